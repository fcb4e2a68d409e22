// SPDX-License-Identifier: GPL-2.0
/*
 * tring: a generic event's field table, read from the kernel's own
 * (struct trace_event_fields of the event's class, and the system calls'
 * metadata), each field's place in the kernel's record and what it
 * becomes in the trace (struct tring_gen_field). Runs once per event at
 * registration, in process context; the table never changes after.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <trace/syscall.h>

#include "tring_gen.h"

/* Bytes of one @type, a C type name of the kernel's; 0: unknown. */
static unsigned int tring_gen_type_size(const char *type)
{
	static const struct { const char *t; u8 size; } types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__be16", 2 }, { "__le16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__be32", 4 },
		{ "__le32", 4 }, { "pid_t", 4 }, { "gfp_t", 4 },
		{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 },
		{ "__u64", 8 }, { "__be64", 8 }, { "__le64", 8 },
		{ "size_t", 8 }, { "void *", sizeof(void *) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(type, types[i].t))
			return types[i].size;
	return 0;
}

/**
 * tring_gen_ctf_keyword - is a name a CTF keyword?
 * @s: the name.
 *
 * A field may not be called so in the metadata: CTF's escape is a
 * leading '_', which readers drop again.
 *
 * Return: true if it is one.
 */
bool tring_gen_ctf_keyword(const char *s)
{
	static const char *const kw[] = {
		"align", "callsite", "const", "char", "clock", "double", "enum",
		"env", "event", "floating_point", "float", "integer", "int",
		"long", "short", "signed", "stream", "string", "struct", "trace",
		"typealias", "typedef", "unsigned", "variant", "void", "_Bool",
		"_Complex", "_Imaginary",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kw); i++)
		if (!strcmp(s, kw[i]))
			return true;
	return false;
}

/* A __data_loc/__rel_loc field of element type @type (text, no "[]"). */
static void tring_gen_kind_dynamic(struct tring_gen_field *f, const char *type)
{
	if (!strcmp(type, "char")) {
		f->kind = TRING_GEN_DSTR;
		f->elem = 1;
		return;
	}
	f->kind = TRING_GEN_DARR;
	f->elem = tring_gen_type_size(type) ?: 1;
	if (f->elem == 1 && strcmp(type, "s8") && strcmp(type, "signed char"))
		f->is_signed = 0;
}

/* A fixed-size field: @type is the kernel's, "T" or "T[N]". */
static void tring_gen_kind_fixed(struct tring_gen_field *f, const char *type)
{
	const char *br = strchr(type, '[');
	unsigned int es;
	char elem[64];

	f->kind = TRING_GEN_BYTES;
	f->elem = 1;
	if (!br) {
		if (is_power_of_2(f->size) && f->size <= 8) {
			f->kind = TRING_GEN_INT;
			f->elem = f->size;
			f->hex = !!strchr(type, '*');
		}
		return;
	}
	strscpy(elem, type, min_t(size_t, br - type + 1, sizeof(elem)));
	strim(elem);
	es = tring_gen_type_size(elem);
	if (!strcmp(elem, "char") || !strcmp(elem, "const char")) {
		f->kind = TRING_GEN_CHARS;
	} else if (es && f->size % es == 0) {
		f->kind = TRING_GEN_ARRAY;
		f->elem = es;
	}
}

/*
 * One entry of the kernel's field table, at offset @off of the record,
 * into @f. Return: 0, or -ENOMEM.
 */
static int tring_gen_field(const struct trace_event_fields *tf,
			   unsigned int off, struct tring_gen_field *f)
{
	char type[64], *end;
	bool rel;

	*f = (struct tring_gen_field) { .src = off, .size = tf->size,
					.is_signed = !!tf->is_signed };
	rel = str_has_prefix(tf->type, "__rel_loc ");
	if (rel || str_has_prefix(tf->type, "__data_loc ")) {
		f->rel = rel;
		strscpy(type, strchr(tf->type, ' ') + 1, sizeof(type));
		end = strstr(type, "[]");
		if (end)
			*end = '\0';
		tring_gen_kind_dynamic(f, strim(type));
	} else {
		tring_gen_kind_fixed(f, tf->type);
	}
	f->name = kasprintf(GFP_KERNEL, "%s%s",
			    tring_gen_ctf_keyword(tf->name) ? "_" : "",
			    tf->name);
	return f->name ? 0 : -ENOMEM;
}

/**
 * tring_gen_fields_free - free a field table
 * @fields: the table (kcalloc'd), its names kmalloc'd or NULL.
 * @n: the entries whose names were set.
 */
void tring_gen_fields_free(struct tring_gen_field *fields, unsigned int n)
{
	while (n--)
		kfree(fields[n].name);
	kfree(fields);
}

/**
 * tring_gen_sizes - an event's sizes from its field table
 * @ev: the event, its ->fields and ->nr_fields set.
 *
 * Sets ->fixed, ->rec_min, ->flat and ->flat_src.
 *
 * Return: 0, or -E2BIG past TRING_GEN_MAX_DYN dynamic fields.
 */
int tring_gen_sizes(struct tring_gen_event *ev)
{
	const struct tring_gen_field *f;
	unsigned int i, ndyn = 0;

	ev->flat_src = ev->nr_fields ? ev->fields[0].src : 0;
	ev->flat = true;
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind >= TRING_GEN_DSTR) {
			ndyn++;
			ev->flat = false;
		} else {
			/* Each field where the one before ended. */
			ev->flat &= f->src == ev->flat_src + ev->fixed;
			ev->fixed += f->size;
		}
		ev->rec_min = max_t(unsigned int, ev->rec_min,
				    f->src + f->size);
	}
	return ndyn > TRING_GEN_MAX_DYN ? -E2BIG : 0;
}

/* Append field @tf at *@off (then past it) to @fields[*@n]. */
static int tring_gen_append(const struct trace_event_fields *tf,
			    unsigned int *off, struct tring_gen_field *fields,
			    unsigned int *n)
{
	int ret = 0;

	*off = ALIGN(*off, max(tf->align, 1));
	if (*off + tf->size > U16_MAX)
		return -E2BIG;
	if (tf->size)	/* a field of no bytes has no value */
		ret = tring_gen_field(tf, *off, &fields[(*n)++]);
	*off += tf->size;
	return ret;
}

/*
 * The system calls' entry events define their arguments in code, from
 * each system call's metadata (include/trace/syscall.h): one unsigned
 * long per argument after the number, as that code lays them out.
 */
static const struct syscall_metadata *
tring_gen_sys_meta(struct trace_event_call *call)
{
	if (strcmp(call->class->system, "syscalls") ||
	    !str_has_prefix(trace_event_name(call), "sys_enter_"))
		return NULL;
	return call->data;
}

/* The system call's arguments of @meta, appended as tring_gen_append(). */
static int tring_gen_sys_args(const struct syscall_metadata *meta,
			      unsigned int *off, struct tring_gen_field *fields,
			      unsigned int *n)
{
	int i, ret = 0;

	for (i = 0; meta && i < meta->nb_args && !ret; i++) {
		struct trace_event_fields arg = {
			.type = meta->types[i], .name = meta->args[i],
			.size = sizeof(long), .align = sizeof(long),
		};

		ret = tring_gen_append(&arg, off, fields, n);
	}
	return ret;
}

/**
 * tring_gen_fields - a generic event's field table from its kernel event
 * @ev: the new event: ->fields, ->nr_fields and its sizes are set.
 * @call: its kernel event, pinned by the caller.
 *
 * Laid out as the kernel's event_define_fields() lays out the record:
 * from the end of struct trace_entry, each field at its alignment.
 * common_pid comes first, as in tracefs's format. A class that defines
 * its fields with a callback (dynamic events) has no table to read; the
 * system calls' entry events are the one such class whose layout is
 * public.
 *
 * Return: 0, -EOPNOTSUPP, -E2BIG (fields that do not fit), -ENOMEM.
 */
int tring_gen_fields(struct tring_gen_event *ev, struct trace_event_call *call)
{
	const struct trace_event_fields *tf = call->class->fields_array;
	unsigned int n = 1, off = sizeof(struct trace_entry), i, j;
	const struct syscall_metadata *meta = NULL;
	struct tring_gen_field *fields;
	int ret = 0;

	if (!tf)
		return -EOPNOTSUPP;
	for (i = 0; tf[i].type && tf[i].type != TRACE_FUNCTION_TYPE; i++)
		;
	if (tf[i].type) {
		meta = tring_gen_sys_meta(call);
		if (!meta || tf[i + 1].type)
			return -EOPNOTSUPP;
	}
	fields = kcalloc(i + 1 + (meta ? meta->nb_args : 0), sizeof(*fields),
			 GFP_KERNEL);
	if (!fields)
		return -ENOMEM;
	fields[0] = (struct tring_gen_field) {
		.src = offsetof(struct trace_entry, pid),
		.size = sizeof(int), .kind = TRING_GEN_INT,
		.elem = sizeof(int), .is_signed = 1,
	};
	fields[0].name = kstrdup("common_pid", GFP_KERNEL);
	if (!fields[0].name)
		ret = -ENOMEM;
	for (j = 0; j < i && !ret; j++)
		ret = tring_gen_append(&tf[j], &off, fields, &n);
	if (!ret)
		ret = tring_gen_sys_args(meta, &off, fields, &n);
	if (ret) {
		tring_gen_fields_free(fields, n);
		return ret;
	}
	ev->fields = fields;
	ev->nr_fields = n;
	return tring_gen_sizes(ev);
}

/**
 * tring_gen_field_add - append a field to an event being made
 * @ev: the event, ->fields long enough for one more.
 * @name: the field's name (a CTF keyword gets a leading '_').
 * @src: its offset in the record.
 * @size: its bytes (4, the location word, for TRING_GEN_DSTR).
 * @kind: TRING_GEN_INT or TRING_GEN_DSTR.
 * @is_signed: an integer shown signed.
 * @hex: an integer shown in hexadecimal.
 *
 * For the events whose record tring itself lays out (dynamic probes,
 * function entry and exit).
 *
 * Return: 0, or -ENOMEM.
 */
int tring_gen_field_add(struct tring_gen_event *ev, const char *name,
			unsigned int src, unsigned int size,
			enum tring_gen_kind kind, bool is_signed, bool hex)
{
	struct tring_gen_field *f = &ev->fields[ev->nr_fields];

	*f = (struct tring_gen_field) {
		.src = src, .size = size, .kind = kind,
		.elem = kind == TRING_GEN_DSTR ? 1 : size,
		.is_signed = is_signed, .hex = hex,
	};
	f->name = kasprintf(GFP_KERNEL, "%s%s",
			    tring_gen_ctf_keyword(name) ? "_" : "", name);
	if (!f->name)
		return -ENOMEM;
	ev->nr_fields++;
	return 0;
}
