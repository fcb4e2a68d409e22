// SPDX-License-Identifier: GPL-2.0
/*
 * Each record's fields packed for tring's KernelShark plugin (integers
 * as varints, strings as they are, anything else as babeltrace2's text),
 * and each event class described: its fields and their roles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tks_load.h"

/* Room for @n more bytes of record. */
static int tks_room(struct tks_loader *ld, size_t n)
{
	size_t cap = ld->rec_cap ? ld->rec_cap : 256;
	unsigned char *p;

	while (cap < ld->len + n)
		cap *= 2;
	if (cap == ld->rec_cap)
		return 0;
	p = realloc(ld->rec, cap);
	if (!p)
		return -ENOMEM;
	ld->rec = p;
	ld->rec_cap = cap;
	return 0;
}

int tks_put_bytes(struct tks_loader *ld, const void *p, size_t n)
{
	if (tks_room(ld, n))
		return -ENOMEM;
	memcpy(ld->rec + ld->len, p, n);
	ld->len += n;
	return 0;
}

static __attribute__((format(printf, 2, 3)))
int tks_printf(struct tks_loader *ld, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return tks_put_bytes(ld, small, n);
	if (tks_room(ld, n + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf((char *)ld->rec + ld->len, n + 1, fmt, ap);
	va_end(ap);
	ld->len += n;
	return 0;
}

static bool tks_is(const bt_field_class *fc, bt_field_class_type type)
{
	return bt_field_class_type_is(bt_field_class_get_type(fc), type);
}

static bool tks_hex(const bt_field_class *fc)
{
	return bt_field_class_integer_get_preferred_display_base(fc) ==
	       BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL;
}

static int tks_text(struct tks_loader *ld, const bt_field *f);

/* An array's or a structure's members, as babeltrace2 prints them. */
static int tks_text_members(struct tks_loader *ld, const bt_field *f)
{
	const bt_field_class *fc = bt_field_borrow_class_const(f);
	bool array = tks_is(fc, BT_FIELD_CLASS_TYPE_ARRAY);
	uint64_t i, n;
	int err;

	n = array ? bt_field_array_get_length(f) :
		    bt_field_class_structure_get_member_count(fc);
	err = tks_printf(ld, array ? "[" : "{");
	for (i = 0; !err && i < n; i++) {
		const bt_field *m;

		if (array) {
			m = bt_field_array_borrow_element_field_by_index_const(f, i);
		} else {
			m = bt_field_structure_borrow_member_field_by_index_const(f, i);
			err = tks_printf(ld, "%s%s = ", i ? ", " : " ",
					 bt_field_class_structure_member_get_name(
					 bt_field_class_structure_borrow_member_by_index_const(fc, i)));
		}
		if (!err && array)
			err = tks_printf(ld, "%s", i ? ", " : "");
		err = err ?: tks_text(ld, m);
	}
	return err ?: tks_printf(ld, array ? "]" : " }");
}

/* @f as text, without its NUL. */
static int tks_text(struct tks_loader *ld, const bt_field *f)
{
	const bt_field_class *fc = bt_field_borrow_class_const(f);

	if (tks_is(fc, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return tks_printf(ld, tks_hex(fc) ? "0x%" PRIx64 : "%" PRIu64,
				  bt_field_integer_unsigned_get_value(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return tks_printf(ld, "%" PRId64,
				  bt_field_integer_signed_get_value(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_STRING))
		return tks_printf(ld, "\"%s\"", bt_field_string_get_value(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_REAL))
		return tks_printf(ld, "%g", tks_is(fc, BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) ?
				  bt_field_real_single_precision_get_value(f) :
				  bt_field_real_double_precision_get_value(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_BOOL))
		return tks_printf(ld, "%s", bt_field_bool_get_value(f) ? "true" : "false");
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_BIT_ARRAY))
		return tks_printf(ld, "0x%" PRIx64,
				  bt_field_bit_array_get_value_as_integer(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_VARIANT))
		return tks_text(ld, bt_field_variant_borrow_selected_option_field_const(f));
	if (tks_is(fc, BT_FIELD_CLASS_TYPE_OPTION)) {
		f = bt_field_option_borrow_field_const(f);
		return f ? tks_text(ld, f) : tks_printf(ld, "none");
	}
	return tks_text_members(ld, f);
}

/* Whether a member of class @fc is left out: an empty structure. */
static bool tks_skip(const bt_field_class *fc)
{
	return tks_is(fc, BT_FIELD_CLASS_TYPE_STRUCTURE) &&
	       !bt_field_class_structure_get_member_count(fc);
}

/* Pack one field of @kind. */
static int tks_pack(struct tks_loader *ld, const bt_field *f, enum tks_kind kind)
{
	unsigned char v[10];
	uint64_t u;
	int64_t s;

	switch (kind) {
	case TKS_UINT:
		u = bt_field_integer_unsigned_get_value(f);
		return tks_put_bytes(ld, v, tks_put_uint(v, u));
	case TKS_SINT:
		s = bt_field_integer_signed_get_value(f);
		u = (uint64_t)s << 1 ^ (uint64_t)(s >> 63);
		return tks_put_bytes(ld, v, tks_put_uint(v, u));
	case TKS_STR:
		return tks_printf(ld, "%s", bt_field_string_get_value(f)) ?:
		       tks_put_bytes(ld, "", 1);
	default:
		return tks_text(ld, f) ?: tks_put_bytes(ld, "", 1);
	}
}

/* Pack the members of the structure @s (may be NULL) of class @c. */
int tks_pack_struct(struct tks_loader *ld, const struct tks_class *c,
			   const bt_field *s, int *index)
{
	const bt_field_class *fc;
	uint64_t i, n;
	int err = 0;

	if (!s)
		return 0;
	fc = bt_field_borrow_class_const(s);
	n = bt_field_class_structure_get_member_count(fc);
	for (i = 0; !err && i < n; i++) {
		const bt_field *m = bt_field_structure_borrow_member_field_by_index_const(s, i);

		if (tks_skip(bt_field_borrow_class_const(m)))
			continue;
		if (*index >= c->nr_fields)
			return -EPROTO;
		err = tks_pack(ld, m, c->fields[(*index)++].kind);
	}
	return err;
}

static const char * const tks_role_name[TKS_NR_ROLES] = {
	[TKS_PREV_TID] = "prev_tid", [TKS_PREV_COMM] = "prev_comm",
	[TKS_NEXT_TID] = "next_tid", [TKS_NEXT_COMM] = "next_comm",
	[TKS_CTX_TID] = "tid", [TKS_CTX_COMM] = "procname",
	[TKS_TID] = "tid", [TKS_COMM] = "comm",
	[TKS_CHILD_TID] = "child_tid", [TKS_CHILD_COMM] = "child_comm",
};

/* The role of field @index named @name, in a context or not. */
static void tks_set_role(struct tks_class *c, const char *name, int index,
			 bool context)
{
	int r;

	for (r = 0; r < TKS_NR_ROLES; r++) {
		if ((r == TKS_CTX_TID || r == TKS_CTX_COMM) != context)
			continue;
		if (!strcmp(name, tks_role_name[r]) ||
		    (r == TKS_COMM && !strcmp(name, "name")))
			if (c->role[r] < 0)
				c->role[r] = index;
	}
}

/* Append the members of structure class @fc (may be NULL) to @c. */
static int tks_class_members(struct tks_class *c, const bt_field_class *fc,
			     bool context)
{
	uint64_t i, n = fc ? bt_field_class_structure_get_member_count(fc) : 0;
	struct tks_field *fields;

	fields = realloc(c->fields, (c->nr_fields + n + 1) * sizeof(*fields));
	if (!fields)
		return -ENOMEM;
	c->fields = fields;
	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const bt_field_class *mc =
			bt_field_class_structure_member_borrow_field_class_const(m);
		struct tks_field *f = &fields[c->nr_fields];

		if (tks_skip(mc))
			continue;
		f->name = strdup(bt_field_class_structure_member_get_name(m));
		if (!f->name)
			return -ENOMEM;
		f->kind = tks_is(mc, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER) ? TKS_UINT :
			  tks_is(mc, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? TKS_SINT :
			  tks_is(mc, BT_FIELD_CLASS_TYPE_STRING) ? TKS_STR : TKS_TEXT;
		f->hex = f->kind == TKS_UINT && tks_hex(mc);
		tks_set_role(c, f->name, c->nr_fields++, context);
	}
	return 0;
}

/* The class of what a stream lost: its count. */
static int tks_class_lost(struct tks_class *c)
{
	c->name = strdup("lost_events");
	c->fields = calloc(1, sizeof(*c->fields));
	if (!c->name || !c->fields)
		return -ENOMEM;
	c->fields[0].name = strdup("count");
	c->fields[0].kind = TKS_UINT;
	c->nr_fields = 1;
	return c->fields[0].name ? 0 : -ENOMEM;
}

/* A new class for @ec (NULL: lost events) as @key; its index. */
int tks_class_new(struct tks_loader *ld, const void *key,
			 const bt_event_class *ec)
{
	struct tks_trace *t = ld->t;
	const bt_stream_class *sc;
	struct tks_class *c;
	int r;

	if (t->nr_classes >= INT16_MAX)
		return -E2BIG;
	c = realloc(t->classes, (t->nr_classes + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->classes = c;
	c = &c[t->nr_classes++];
	memset(c, 0, sizeof(*c));
	for (r = 0; r < TKS_NR_ROLES; r++)
		c->role[r] = -1;
	c->key = key;
	if (!ec)
		return tks_class_lost(c) ?: t->nr_classes - 1;
	sc = bt_event_class_borrow_stream_class_const(ec);
	c->name = strdup(bt_event_class_get_name(ec) ?: "?");
	if (!c->name ||
	    tks_class_members(c, bt_stream_class_borrow_event_common_context_field_class_const(sc), true) ||
	    tks_class_members(c, bt_event_class_borrow_specific_context_field_class_const(ec), true) ||
	    tks_class_members(c, bt_event_class_borrow_payload_field_class_const(ec), false))
		return -ENOMEM;
	c->sched_switch = !strcmp(c->name, "sched_switch");
	c->skip = !strcmp(c->name, "tring_padding") || !strcmp(c->name, "tring_nop");
	return t->nr_classes - 1;
}

