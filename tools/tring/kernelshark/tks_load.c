// SPDX-License-Identifier: GPL-2.0
/*
 * A CTF trace read through libbabeltrace2 (src.ctf.fs, then
 * flt.utils.muxer for time order) into struct tks_trace: each event's
 * time, CPU (its packet's cpu_id), the task running on that CPU (from
 * sched_switch, or a tid context), and its fields packed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "tks.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TKS_MAX_STREAMS	1024
#define TKS_MAX_CPUS	4096

struct tks_loader {
	struct tks_trace *t;
	const bt_stream *stream[TKS_MAX_STREAMS];
	int stream_cpu[TKS_MAX_STREAMS];
	int nr_streams;
	int32_t current[TKS_MAX_CPUS];	/* the running task, -1: not known */
	const void **keys;		/* event class -> t->classes index */
	int *vals;
	size_t cap;
	unsigned char *rec;		/* the record being packed */
	size_t len, rec_cap;
	int err;
};

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

static int tks_put_bytes(struct tks_loader *ld, const void *p, size_t n)
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
static int tks_pack_struct(struct tks_loader *ld, const struct tks_class *c,
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
static int tks_class_new(struct tks_loader *ld, const void *key,
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

static size_t tks_slot(const struct tks_loader *ld, const void *key)
{
	size_t i = ((uintptr_t)key >> 4) * 2654435761u & (ld->cap - 1);

	while (ld->keys[i] && ld->keys[i] != key)
		i = (i + 1) & (ld->cap - 1);
	return i;
}

/* Twice the slots of the class map. */
static int tks_map_grow(struct tks_loader *ld)
{
	size_t cap = ld->cap ? ld->cap * 2 : 256, i, j;
	const void **keys = ld->keys;
	int *vals = ld->vals;
	size_t old = ld->cap;

	ld->keys = calloc(cap, sizeof(*ld->keys));
	ld->vals = calloc(cap, sizeof(*ld->vals));
	ld->cap = cap;
	if (!ld->keys || !ld->vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < old; i++) {
		if (!keys[i])
			continue;
		j = tks_slot(ld, keys[i]);
		ld->keys[j] = keys[i];
		ld->vals[j] = vals[i];
	}
	free(keys);
	free(vals);
	return 0;
}

/* The class index of @key (@ec's), made the first time it is seen. */
static int tks_class_of(struct tks_loader *ld, const void *key,
			const bt_event_class *ec)
{
	size_t i;
	int id;

	if (ld->cap) {
		i = tks_slot(ld, key);
		if (ld->keys[i])
			return ld->vals[i];
	}
	if ((size_t)(ld->t->nr_classes + 1) * 2 > ld->cap && tks_map_grow(ld))
		return -ENOMEM;
	id = tks_class_new(ld, key, ec);
	if (id >= 0) {
		i = tks_slot(ld, key);
		ld->keys[i] = key;
		ld->vals[i] = id;
	}
	return id;
}

/* The CPU of @stream's packets (known from its first packet). */
static int tks_cpu_of(struct tks_loader *ld, const bt_stream *stream)
{
	int i;

	for (i = 0; i < ld->nr_streams; i++)
		if (ld->stream[i] == stream)
			return ld->stream_cpu[i];
	return 0;
}

/* A packet begins: its stream's CPU is the packet context's cpu_id. */
static int tks_packet(struct tks_loader *ld, const bt_message *msg)
{
	const bt_packet *p = bt_message_packet_beginning_borrow_packet_const(msg);
	const bt_stream *s = bt_packet_borrow_stream_const(p);
	const bt_field *ctx = bt_packet_borrow_context_field_const(p);
	const bt_field *cpu = NULL;
	int i, n = ld->nr_streams;

	if (ctx)
		cpu = bt_field_structure_borrow_member_field_by_name_const(ctx, "cpu_id");
	for (i = 0; i < n && ld->stream[i] != s; i++)
		;
	if (i == n) {
		if (n == TKS_MAX_STREAMS)
			return -E2BIG;
		ld->stream[i] = s;
		ld->nr_streams++;
	}
	ld->stream_cpu[i] = cpu ? (int)bt_field_integer_unsigned_get_value(cpu) :
				  (int)bt_stream_get_id(s);
	if (ld->stream_cpu[i] < 0 || ld->stream_cpu[i] >= TKS_MAX_CPUS)
		return -ERANGE;
	if (ld->stream_cpu[i] >= ld->t->nr_cpus)
		ld->t->nr_cpus = ld->stream_cpu[i] + 1;
	return 0;
}

/* Field @r of the record just packed, if class @c has it. */
static bool tks_role(const struct tks_loader *ld, const struct tks_class *c,
		     enum tks_role r, int64_t *val, const char **str)
{
	*val = 0;
	*str = NULL;
	return c->role[r] >= 0 &&
	       !tks_field_value(c, ld->rec, c->role[r], val, str);
}

/* The names the record gives tasks: learned. */
static int tks_learn(struct tks_loader *ld, const struct tks_class *c)
{
	static const enum tks_role pairs[][2] = {
		{ TKS_PREV_TID, TKS_PREV_COMM }, { TKS_NEXT_TID, TKS_NEXT_COMM },
		{ TKS_CTX_TID, TKS_CTX_COMM }, { TKS_TID, TKS_COMM },
		{ TKS_CHILD_TID, TKS_CHILD_COMM },
	};
	const char *s, *comm;
	int64_t tid, v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pairs); i++)
		if (tks_role(ld, c, pairs[i][0], &tid, &s) &&
		    tks_role(ld, c, pairs[i][1], &v, &comm) &&
		    tks_comm_set(ld->t, (int32_t)tid, comm))
			return -ENOMEM;
	return 0;
}

/*
 * The task of a record of class @c on @cpu: sched_switch's prev_tid, a
 * tid context, or the task the last sched_switch there switched to
 * (-1 before the first: tks_backfill()).
 */
static int32_t tks_task(struct tks_loader *ld, const struct tks_class *c,
			int cpu)
{
	int32_t pid = ld->current[cpu];
	const char *s;
	int64_t v;

	if (c->sched_switch && tks_role(ld, c, TKS_PREV_TID, &v, &s))
		pid = (int32_t)v;
	else if (tks_role(ld, c, TKS_CTX_TID, &v, &s))
		pid = (int32_t)v;
	if (c->sched_switch && tks_role(ld, c, TKS_NEXT_TID, &v, &s))
		ld->current[cpu] = (int32_t)v;
	return pid;
}

/* One row: @class's record (packed in ld->rec) at @ts on @cpu. */
static int tks_row(struct tks_loader *ld, int class, int64_t ts, int cpu)
{
	struct tks_trace *t = ld->t;
	const struct tks_class *c = &t->classes[class];
	int err = tks_add_row(t);

	err = err ?: tks_arena_put(&t->arena, ld->rec, ld->len, &t->off[t->n]);
	err = err ?: tks_learn(ld, c);
	if (err)
		return err;
	t->ts[t->n] = ts;
	t->cpu[t->n] = (int16_t)cpu;
	t->event[t->n] = (int16_t)class;
	t->pid[t->n] = tks_task(ld, c, cpu);
	t->n++;
	return 0;
}

/*
 * A time in ns of the trace's own clock (tring's and LTTng's: the
 * monotonic clock, time since boot as ftrace shows it), not from the
 * clock's origin (the epoch).
 */
static int64_t tks_ns(const bt_clock_snapshot *cs)
{
	uint64_t freq;

	if (!cs)
		return 0;
	freq = bt_clock_class_get_frequency(bt_clock_snapshot_borrow_clock_class_const(cs));
	if (!freq)
		return 0;
	return (int64_t)((__uint128_t)bt_clock_snapshot_get_value(cs) *
			 1000000000u / freq);
}

static int tks_event(struct tks_loader *ld, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	int class = tks_class_of(ld, ec, ec);
	const struct tks_class *c;
	int64_t ts = 0;
	int index = 0, err;

	if (class < 0)
		return class;
	c = &ld->t->classes[class];
	if (c->skip)
		return 0;
	ld->len = 0;
	err = tks_pack_struct(ld, c, bt_event_borrow_common_context_field_const(ev), &index) ?:
	      tks_pack_struct(ld, c, bt_event_borrow_specific_context_field_const(ev), &index) ?:
	      tks_pack_struct(ld, c, bt_event_borrow_payload_field_const(ev), &index);
	if (err)
		return err;
	if (bt_stream_class_borrow_default_clock_class_const(
		bt_event_class_borrow_stream_class_const(ec)))
		ts = tks_ns(bt_message_event_borrow_default_clock_snapshot_const(msg));
	return tks_row(ld, class, ts, tks_cpu_of(ld, bt_event_borrow_stream_const(ev)));
}

/* Events a stream lost: a row of our own, at the end of the gap. */
static int tks_discarded(struct tks_loader *ld, const bt_message *msg)
{
	static const char lost_key;
	const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	int class = tks_class_of(ld, &lost_key, NULL);
	unsigned char v[10];
	int64_t ts = 0;
	uint64_t n = 0;

	if (class < 0)
		return class;
	bt_message_discarded_events_get_count(msg, &n);
	ld->t->lost += n;
	if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
		ts = tks_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
	ld->len = 0;
	return tks_put_bytes(ld, v, tks_put_uint(v, n)) ?:
	       tks_row(ld, class, ts, tks_cpu_of(ld, s));
}

static int tks_message(struct tks_loader *ld, const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return tks_packet(ld, msg);
	case BT_MESSAGE_TYPE_EVENT:
		return tks_event(ld, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return tks_discarded(ld, msg);
	default:
		return 0;
	}
}

static bt_graph_simple_sink_component_consume_func_status
tks_consume(bt_message_iterator *it, void *data)
{
	struct tks_loader *ld = data;
	bt_message_array_const msgs;
	uint64_t i, n;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (!ld->err)
			ld->err = tks_message(ld, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return ld->err ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR :
			 BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* Component class @name of plugin @plugin, added to @g as @comp. */
static int tks_add(bt_graph *g, const char *plugin, const char *name,
		   const bt_value *params, const void **comp)
{
	const bt_plugin *p = NULL;
	int err = -EINVAL;

	if (bt_plugin_find(plugin, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return -ENOENT;
	if (params) {
		const bt_component_class_source *c =
			bt_plugin_borrow_source_component_class_by_name_const(p, name);

		if (c && bt_graph_add_source_component(g, c, name, params,
				BT_LOGGING_LEVEL_NONE, (const bt_component_source **)comp) ==
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			err = 0;
	} else {
		const bt_component_class_filter *c =
			bt_plugin_borrow_filter_component_class_by_name_const(p, name);

		if (c && bt_graph_add_filter_component(g, c, name, NULL,
				BT_LOGGING_LEVEL_NONE, (const bt_component_filter **)comp) ==
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			err = 0;
	}
	bt_plugin_put_ref(p);
	return err;
}

/* Every output port of @src into the muxer @mux, @mux into @sink. */
static int tks_connect(bt_graph *g, const bt_component_source *src,
		       const bt_component_filter *mux, const bt_component_sink *sink)
{
	uint64_t i, n = bt_component_source_get_output_port_count(src);

	if (!n)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_filter_borrow_input_port_by_index_const(mux, i),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return -EIO;
	if (bt_graph_connect_ports(g,
		bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return -EIO;
	return 0;
}

/* src.ctf.fs of @dir, flt.utils.muxer, our sink; NULL: *@err. */
static bt_graph *tks_graph(struct tks_loader *ld, const char *dir, int *perr)
{
	const bt_component_source *src = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	bt_graph *g = bt_graph_create(0);
	int err = -ENOMEM;

	if (!g || !params)
		goto out;
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir))
		goto out;
	err = tks_add(g, "ctf", "fs", params, (const void **)&src) ?:
	      tks_add(g, "utils", "muxer", NULL, (const void **)&mux);
	if (err)
		goto out;
	if (bt_graph_add_simple_sink_component(g, "tring-ks", NULL, tks_consume,
					       NULL, ld, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		err = -ENOMEM;
	else
		err = tks_connect(g, src, mux, sink);
out:
	bt_value_put_ref(params);
	*perr = err;
	if (err) {
		bt_graph_put_ref(g);
		return NULL;
	}
	return g;
}

/* What babeltrace2 said went wrong, on stderr. */
static void tks_report(const char *dir)
{
	const bt_error *e = bt_current_thread_take_error();
	uint64_t i, n = e ? bt_error_get_cause_count(e) : 0;

	fprintf(stderr, "tring-ks: %s: not a trace babeltrace2 can read:\n", dir);
	for (i = 0; i < n && i < 6; i++)
		fprintf(stderr, "tring-ks:   %s\n",
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i)));
	if (e)
		bt_error_release(e);
}

/*
 * Events before a CPU's first sched_switch ran in the task it switched
 * away from: walked back from the end, each CPU's next prev_tid.
 */
static void tks_backfill(struct tks_trace *t)
{
	int32_t *next = calloc(t->nr_cpus ?: 1, sizeof(*next));
	size_t i;

	if (!next)
		return;
	for (i = t->n; i-- > 0;) {
		const struct tks_class *c = &t->classes[t->event[i]];

		if (c->sched_switch && t->pid[i] >= 0)
			next[t->cpu[i]] = t->pid[i];
		else if (t->pid[i] < 0)
			t->pid[i] = next[t->cpu[i]];
	}
	free(next);
}

/* Read the trace under @dir into @t (zeroed). Returns 0 or -errno. */
int tks_load(struct tks_trace *t, const char *dir)
{
	struct tks_loader *ld = calloc(1, sizeof(*ld));
	bt_graph_run_status st;
	bt_graph *g;
	int err = -ENOMEM;

	if (!ld)
		return err;
	ld->t = t;
	memset(ld->current, 0xff, sizeof(ld->current));
	g = tks_graph(ld, dir, &err);
	if (g) {
		do {
			st = bt_graph_run(g);
		} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
		err = st == BT_GRAPH_RUN_STATUS_OK ? 0 : ld->err ?: -EIO;
		bt_graph_put_ref(g);
	}
	if (err && err != -ENOMEM)
		tks_report(dir);
	else if (!err && !t->n)
		err = -ENODATA;
	if (!err)
		tks_backfill(t);
	free(ld->keys);
	free(ld->vals);
	free(ld->rec);
	free(ld);
	return err;
}

void tks_free(struct tks_trace *t)
{
	int i, j;

	for (i = 0; i < t->nr_classes; i++) {
		for (j = 0; j < t->classes[i].nr_fields; j++)
			free(t->classes[i].fields[j].name);
		free(t->classes[i].fields);
		free(t->classes[i].name);
	}
	free(t->classes);
	free(t->ts);
	free(t->off);
	free(t->pid);
	free(t->cpu);
	free(t->event);
	free(t->comms);
	tks_arena_free(&t->arena);
	memset(t, 0, sizeof(*t));
}
