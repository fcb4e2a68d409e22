// SPDX-License-Identifier: GPL-2.0
/*
 * tring: CTF 1.8 metadata and tracefs-style format files, generated from
 * the same struct tring_event_desc tables the writers use.
 *
 * The metadata describes struct tring_packet_header as the packet header
 * and context, the compact/wide/extended event header, the buffer's clock and
 * every event's payload, so a directory holding the metadata and one
 * stream file per CPU is a CTF trace that babeltrace2 reads unaided.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/stringify.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "tring_ctx.h"
#include "tring_events.h"
#include "tring_generic.h"

static const char *const tring_ctf_int_names[] = {
	[TRING_FIELD_U8] = "uint8_t",
	[TRING_FIELD_U16] = "uint16_t",
	[TRING_FIELD_U32] = "uint32_t",
	[TRING_FIELD_U64] = "uint64_t",
	[TRING_FIELD_S8] = "int8_t",
	[TRING_FIELD_S16] = "int16_t",
	[TRING_FIELD_S32] = "int32_t",
	[TRING_FIELD_S64] = "int64_t",
};

static const char *const tring_format_names[] = {
	[TRING_FIELD_U8] = "u8",
	[TRING_FIELD_U16] = "u16",
	[TRING_FIELD_U32] = "u32",
	[TRING_FIELD_U64] = "u64",
	[TRING_FIELD_S8] = "s8",
	[TRING_FIELD_S16] = "s16",
	[TRING_FIELD_S32] = "s32",
	[TRING_FIELD_S64] = "s64",
};

static bool tring_field_is_int(unsigned int type)
{
	return type <= TRING_FIELD_S64;
}

/* U8..U64 then S8..S64: the enum's order gives the sizes. */
static_assert(TRING_FIELD_U64 == 3 && TRING_FIELD_S8 == 4 && TRING_FIELD_S64 == 7);

static unsigned int tring_int_size(unsigned int type)
{
	return 1U << (type % 4);
}

static bool tring_ident_ok(const char *s)
{
	if (!s || !(isalpha(*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_')
			return false;
	return true;
}

/* Bytes of field @i of @ev; 0 for a trailing string or byte sequence. */
static unsigned int tring_field_size(const struct tring_event_desc *ev,
				     unsigned int i)
{
	const struct tring_field *f = &ev->fields[i];

	if (f->type == TRING_FIELD_STRING || f->type == TRING_FIELD_BYTES)
		return 0;
	return (f[1].name ? f[1].offset : ev->size) - f->offset;
}

/**
 * tring_event_desc_check - is an event description usable
 * @ev: the description.
 *
 * Names must be identifiers and the id at least TRING_ID_FIRST_EVENT.
 * Fields start at offset 0 and follow each other in order, each with the
 * size its type has (so a hole in the payload is refused); a string or
 * byte sequence only as the last field and at the end of the fixed
 * part, a byte sequence right after the unsigned integer counting it.
 *
 * Return: 0 or -EINVAL.
 */
int tring_event_desc_check(const struct tring_event_desc *ev)
{
	const struct tring_field *f;
	unsigned int i, off = 0, size;

	if (!tring_ident_ok(ev->group) || !tring_ident_ok(ev->name) ||
	    ev->id < TRING_ID_FIRST_EVENT || !ev->fields)
		return -EINVAL;
	for (i = 0; ev->fields[i].name; i++) {
		f = &ev->fields[i];
		if (!tring_ident_ok(f->name) || f->offset != off ||
		    f->offset > ev->size)
			return -EINVAL;
		size = tring_field_size(ev, i);
		if (tring_field_is_int(f->type)) {
			if (size != tring_int_size(f->type))
				return -EINVAL;
		} else if (f->type == TRING_FIELD_CHARS) {
			if (!size || size > ev->size)
				return -EINVAL;
		} else if (f->type == TRING_FIELD_STRING ||
			   f->type == TRING_FIELD_BYTES) {
			if (f[1].name || f->offset != ev->size)
				return -EINVAL;
			if (f->type == TRING_FIELD_BYTES &&
			    (!i || f[-1].type > TRING_FIELD_U64))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		off += size;
	}
	return off == ev->size ? 0 : -EINVAL;
}

static void tring_ctf_field(struct seq_file *m,
			    const struct tring_event_desc *ev, unsigned int i)
{
	const struct tring_field *f = &ev->fields[i];

	switch (f->type) {
	case TRING_FIELD_CHARS:
		seq_printf(m, "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } %s[%u];\n",
			   f->name, tring_field_size(ev, i));
		break;
	case TRING_FIELD_STRING:
		seq_printf(m, "\t\tstring %s;\n", f->name);
		break;
	case TRING_FIELD_BYTES:
		seq_printf(m, "\t\tuint8_t %s[%s];\n", f->name, f[-1].name);
		break;
	default:
		seq_printf(m, "\t\t%s %s;\n", tring_ctf_int_names[f->type], f->name);
	}
}

/*
 * Does the payload of a record with @fields (@size bytes of fixed part)
 * end short of a 4-byte boundary? Records are 4-byte aligned, the gap
 * zero-filled: at the end of a packet a CTF reader would take it for
 * another record's header, so the description ends with an empty 4-byte
 * aligned struct (babeltrace2 shows "tring_pad = { }").
 */
static bool tring_ctf_unaligned(const struct tring_field *fields,
				unsigned int size)
{
	unsigned int i;

	for (i = 0; fields[i].name; i++)
		if (fields[i].type == TRING_FIELD_STRING ||
		    fields[i].type == TRING_FIELD_BYTES)
			return true;
	return size % 4;
}

static void tring_ctf_pad(struct seq_file *m, const struct tring_field *fields,
			  unsigned int size)
{
	if (tring_ctf_unaligned(fields, size))
		seq_puts(m, "\t\tstruct { } align(32) _tring_pad;\n");
}

/* The name of a layout many events share, or NULL. */
static const char *tring_ctf_shared(const struct tring_event_desc *ev)
{
	const struct tring_struct_name *sn;

	for (sn = tring_sys_structs; sn->name; sn++)
		if (sn->fields == ev->fields)
			return sn->name;
	return NULL;
}

static void tring_ctf_event(struct seq_file *m, const struct tring_event_desc *ev)
{
	const char *shared = tring_ctf_shared(ev);
	unsigned int i;

	seq_printf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n",
		   ev->name, ev->id);
	if (shared) {
		seq_printf(m, "\tfields := struct %s;\n};\n\n", shared);
		return;
	}
	if (ev->fields[0].name) {
		seq_puts(m, "\tfields := struct {\n");
		for (i = 0; ev->fields[i].name; i++)
			tring_ctf_field(m, ev, i);
		tring_ctf_pad(m, ev->fields, ev->size);
		seq_puts(m, "\t};\n");
	}
	seq_puts(m, "};\n\n");
}

/* The layouts many events share, as named CTF structs. */
static void tring_ctf_shared_structs(struct seq_file *m)
{
	const struct tring_struct_name *sn;
	struct tring_event_desc ev = { .size = sizeof(u64) * 6 };
	unsigned int i;

	for (sn = tring_sys_structs; sn->name; sn++) {
		ev.fields = sn->fields;
		seq_printf(m, "struct %s {\n", sn->name);
		for (i = 0; sn->fields[i].name; i++)
			tring_ctf_field(m, &ev, i);
		tring_ctf_pad(m, sn->fields, 0);
		seq_puts(m, "};\n\n");
	}
}

/* The two records that carry no event: readers skip them. */
static const struct tring_field tring_padding_fields[] = {
	{ .name = "size", .type = TRING_FIELD_U32, .offset = 0 },
	{ .name = "data", .type = TRING_FIELD_BYTES, .offset = 4 },
	{ }
};

static const struct tring_field tring_no_fields[] = { { } };

static const struct tring_event_desc tring_padding_event = {
	.group = "tring", .name = "tring_padding", .id = TRING_ID_PADDING,
	.size = 4, .fields = tring_padding_fields,
};

static const struct tring_event_desc tring_nop_event = {
	.group = "tring", .name = "tring_nop", .id = TRING_ID_NOP,
	.fields = tring_no_fields,
};

static const char tring_ctf_types[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = " __stringify(TRING_ID_BITS)
	"; align = 1; signed = false; } := tring_id_t;\n\n";

static const char tring_ctf_trace[] =
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct {\n"
	"\t\tuint32_t magic;\n"
	"\t\tuint32_t stream_id;\n"
	"\t};\n"
	"};\n\n";

/*
 * Packet context and event header: struct tring_packet_header after its
 * first 8 bytes, and the record header described in uapi/linux/tring.h.
 */
static const char tring_ctf_stream[] =
	"struct packet_context {\n"
	"\tuint64_clock_t timestamp_begin;\n"
	"\tuint64_clock_t timestamp_end;\n"
	"\tuint64_t content_size;\n"
	"\tuint64_t packet_size;\n"
	"\tuint64_t packet_seq_num;\n"
	"\tuint64_t events_discarded;\n"
	"\tuint32_t cpu_id;\n"
	"\tuint32_t events_count;\n"
	"};\n\n"
	"struct event_header {\n"
	"\tenum : tring_id_t { compact = 0 ... " __stringify(TRING_ID_COMPACT_LAST)
	", wide = " __stringify(TRING_ID_WIDE)
	", extended = " __stringify(TRING_ID_EXTENDED) " } id;\n"
	"\tvariant <id> {\n"
	"\t\tstruct {\n"
	"\t\t\ttring_ts_clock_t timestamp;\n"
	"\t\t} compact;\n"
	"\t\tstruct {\n"
	"\t\t\ttring_ts_clock_t timestamp;\n"
	"\t\t\tinteger { size = 32; align = 1; signed = false; } id;\n"
	"\t\t} wide;\n"
	"\t\tstruct {\n"
	"\t\t\tuint32_t id;\n"
	"\t\t\tuint64_clock_t timestamp;\n"
	"\t\t} align(32) extended;\n"
	"\t} v;\n"
	"} align(32);\n\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tevent.header := struct event_header;\n"
	"\tpacket.context := struct packet_context;\n";

/* What the metadata's env says about the tracer. */
#define TRING_TRACER_MAJOR	1
#define TRING_TRACER_MINOR	2
#define TRING_TRACER_PATCHLEVEL	0

#define TRING_BOOT_ID_FILE	"/proc/sys/kernel/random/boot_id"

/*
 * This boot's id, as the kernel shows it in TRING_BOOT_ID_FILE: the
 * clock's uuid, so traces of one boot merge. Read once, from the first
 * reader of a metadata file; "" if it cannot be read.
 */
static const char *tring_boot_id(void)
{
	static DEFINE_MUTEX(lock);
	static char id[UUID_STRING_LEN + 1];
	static bool done;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	mutex_lock(&lock);
	if (!done) {
		f = filp_open(TRING_BOOT_ID_FILE, O_RDONLY, 0);
		if (!IS_ERR(f)) {
			n = kernel_read(f, id, UUID_STRING_LEN, &pos);
			if (n != UUID_STRING_LEN || !uuid_is_valid(id))
				id[0] = '\0';
			filp_close(f, NULL);
		}
		done = true;
	}
	mutex_unlock(&lock);
	return id;
}

static void tring_ctf_clock(struct seq_file *m, unsigned int clock)
{
	bool mono = clock == TRING_CLOCK_MONO;
	const char *name = mono ? "monotonic" : "local";
	s64 offset;
	s32 rem;
	s64 sec;

	/* Clock value 0 is this long after the epoch. */
	offset = ktime_get_real_ns() -
		 (mono ? ktime_get_mono_fast_ns() : trace_clock_local());
	sec = div_s64_rem(offset, NSEC_PER_SEC, &rem);
	if (rem < 0) {
		sec--;
		rem += NSEC_PER_SEC;
	}
	seq_printf(m, "clock {\n\tname = \"%s\";\n\tdescription = \"%s\";\n",
		   name, mono ? "ktime_get_mono_fast_ns()" : "trace_clock_local()");
	if (*tring_boot_id())
		seq_printf(m, "\tuuid = \"%s\";\n", tring_boot_id());
	seq_printf(m, "\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %d;\n\tabsolute = false;\n};\n\n",
		   sec, rem);
	seq_printf(m, "typealias integer { size = %d; align = 1; signed = false; map = clock.%s.value; } := tring_ts_clock_t;\n",
		   TRING_TS_BITS, name);
	seq_printf(m, "typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; } := uint64_clock_t;\n\n",
		   name);
}

/* A CTF string literal of @s: anything but [ -~] without '"' and '\\' is '_'. */
static void tring_ctf_string(struct seq_file *m, const char *key, const char *s)
{
	seq_printf(m, "\t%s = \"", key);
	for (; *s; s++)
		seq_putc(m, *s >= ' ' && *s <= '~' && *s != '"' && *s != '\\' ?
			 *s : '_');
	seq_puts(m, "\";\n");
}

/**
 * tring_ctf_metadata - write a buffer's CTF metadata
 * @m: where.
 * @attr: the buffer's attributes: clock, name and events.
 */
void tring_ctf_metadata(struct seq_file *m, const struct tring_buffer_attr *attr)
{
	const struct new_utsname *u = utsname();
	unsigned int i;
	uuid_t uuid;

	/* A new trace each time a recording reads the metadata. */
	uuid_gen(&uuid);
	seq_puts(m, tring_ctf_types);
	seq_printf(m, "trace {\n\tuuid = \"%pUb\";\n", &uuid);
	seq_puts(m, tring_ctf_trace);
	seq_puts(m, "env {\n\tdomain = \"kernel\";\n");
	/*
	 * The reading task's UTS namespace names the host. Host names and
	 * releases are set by root, but may hold anything.
	 */
	tring_ctf_string(m, "sysname", u->sysname);
	tring_ctf_string(m, "hostname", u->nodename);
	tring_ctf_string(m, "kernel_release", u->release);
	tring_ctf_string(m, "kernel_version", u->version);
	seq_printf(m, "\ttracer_name = \"tring\";\n\ttracer_major = %d;\n\ttracer_minor = %d;\n\ttracer_patchlevel = %d;\n",
		   TRING_TRACER_MAJOR, TRING_TRACER_MINOR,
		   TRING_TRACER_PATCHLEVEL);
	tring_ctf_string(m, "buffer", attr->name && *attr->name ? attr->name : "default");
	seq_puts(m, "};\n\n");
	tring_ctf_clock(m, attr->clock);
	seq_puts(m, tring_ctf_stream);
	/* The default buffer's events may carry contexts (tring_ctx.c). */
	tring_ctx_ctf(m, attr);
	seq_puts(m, "};\n\n");
	tring_ctf_event(m, &tring_padding_event);
	tring_ctf_event(m, &tring_nop_event);
	tring_ctf_shared_structs(m);
	for (i = 0; i < attr->nr_events; i++)
		if (attr->events[i].name)
			tring_ctf_event(m, &attr->events[i]);
	/* The default buffer: also the events modules added to it. */
	if (attr->events == tring_builtin_events) {
		tring_module_events_show(m, tring_ctf_event);
		tring_generic_ctf(m);
	}
}

/**
 * tring_ctf_format - an event's format file, in the spirit of tracefs
 * @m: where.
 * @ev: the event.
 *
 * Offsets are within the payload, which follows the record header.
 */
void tring_ctf_format(struct seq_file *m, const struct tring_event_desc *ev)
{
	const struct tring_field *f;
	unsigned int i;

	seq_printf(m, "name: %s\nID: %u\nformat:\n", ev->name, ev->id);
	for (i = 0; ev->fields[i].name; i++) {
		f = &ev->fields[i];
		if (tring_field_is_int(f->type))
			seq_printf(m, "\tfield:%s %s;", tring_format_names[f->type],
				   f->name);
		else if (f->type == TRING_FIELD_CHARS)
			seq_printf(m, "\tfield:char %s[%u];", f->name,
				   tring_field_size(ev, i));
		else if (f->type == TRING_FIELD_STRING)
			seq_printf(m, "\tfield:string %s;", f->name);
		else
			seq_printf(m, "\tfield:u8 %s[%s];", f->name, f[-1].name);
		seq_printf(m, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->offset,
			   tring_field_size(ev, i), tring_field_is_int(f->type) &&
			   f->type >= TRING_FIELD_S8);
	}
}
