/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: event filters, compiled once when written, evaluated on a
 * record before space is reserved for it (tring_filter.c).
 */
#ifndef _TRING_FILTER_H
#define _TRING_FILTER_H

#include <linux/limits.h>
#include <linux/types.h>

/* Limits of one filter; past them it is refused with EINVAL. */
#define TRING_FILTER_MAX_LEN	1024	/* bytes of text */
#define TRING_FILTER_MAX_PREDS	32	/* comparisons */
#define TRING_FILTER_MAX_DEPTH	16	/* nested parentheses and '!' */
#define TRING_FILTER_MAX_STR	256	/* bytes of a string constant */
#define TRING_FILTER_MAX_INSNS	(3 * TRING_FILTER_MAX_PREDS)

/* How a field is stored in the record the filter reads. */
enum tring_filter_ftype {
	TRING_FT_INT,		/* integer of 1, 2, 4 or 8 bytes */
	TRING_FT_CHARS,		/* char[size], NUL-padded or full */
	TRING_FT_DATA_LOC,	/* u32: length << 16 | offset in the record */
	TRING_FT_REL_LOC,	/* the same, offset from the end of the u32 */
	TRING_FT_STRPTR,	/* const char *, NULL for "" */
	/*
	 * Not in the record, and never in a caller's fields: ftrace's
	 * generic fields, which tring_filter.c offers every event.
	 */
	TRING_FT_CPU,		/* int: the CPU the filter runs on */
	TRING_FT_COMM,		/* char[TASK_COMM_LEN]: current->comm */
};

/**
 * struct tring_filter_field - a field a filter may name
 * @name: its name.
 * @offset: byte offset in the record.
 * @size: bytes (for TRING_FT_INT: 1, 2, 4 or 8; for TRING_FT_CHARS the
 *	array's length).
 * @type: enum tring_filter_ftype.
 * @is_signed: TRING_FT_INT only: compare as signed.
 * @is_current_pid: the field is an s32 the writer fills with
 *	current->pid: the filter may test it before the record is built
 *	(struct tring_filter_gate).
 */
struct tring_filter_field {
	const char *name;
	u16 offset;
	u16 size;
	u8 type;
	u8 is_signed;
	u8 is_current_pid;
};

/**
 * struct tring_filter_gate - what a filter says of current alone
 * @pid: the pid every kept event has, sign-extended as the filter
 *	compares an s32 field.
 * @on: @pid is set: the filter keeps no event of another pid.
 *
 * A compiled filter's first member, set when it is compiled and never
 * changed: a comparison "FIELD == N" on a field marked is_current_pid
 * that the filter requires (an operand of its top-level "&&"s, or the
 * same comparison on both sides of an "||"). A writer tests it before it
 * builds the event's record (tring_filter_gate_pid(), kept in the
 * filter's slot); the whole filter still runs on the events it lets
 * through.
 */
struct tring_filter_gate {
	u64 pid;
	bool on;
};

/**
 * struct tring_filter_error - where and why a filter was refused
 * @pos: byte offset in the text.
 * @msg: what is wrong (a static string).
 */
struct tring_filter_error {
	unsigned int pos;
	const char *msg;
};

struct tring_filter;

struct tring_filter *tring_filter_compile(const char *text,
					  const struct tring_filter_field *fields,
					  unsigned int nr_fields,
					  struct tring_filter_error *err);
bool tring_filter_match(const struct tring_filter *f, const void *rec,
			unsigned int len);
const char *tring_filter_text(const struct tring_filter *f);

/**
 * tring_filter_gate_pid - the pid @f requires of current, for a writer
 * @f: a compiled filter.
 *
 * A pid the filter's constant cannot be (below 0, above INT_MAX) is
 * INT_MAX, which no task has: that filter keeps no task's event. Pid 0,
 * the idle tasks', is left to the filter itself: 0 stands for no gate,
 * which is what a zeroed slot holds.
 *
 * Return: 0 if @f has no gate; else the only pid whose events @f can
 * keep, from 1 to INT_MAX.
 */
static inline int tring_filter_gate_pid(const struct tring_filter *f)
{
	/* The gate is the filter's first member (tring_filter.c). */
	const struct tring_filter_gate *g = (const void *)f;

	if (!g->on)
		return 0;
	return g->pid <= INT_MAX ? (int)g->pid : INT_MAX;
}

void tring_filter_free(struct tring_filter *f);

#endif /* _TRING_FILTER_H */
