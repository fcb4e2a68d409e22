/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: event filters, compiled once when written, evaluated on a
 * record before space is reserved for it (tring_filter.c).
 */
#ifndef _TRING_FILTER_H
#define _TRING_FILTER_H

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
 */
struct tring_filter_field {
	const char *name;
	u16 offset;
	u16 size;
	u8 type;
	u8 is_signed;
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
void tring_filter_free(struct tring_filter *f);

#endif /* _TRING_FILTER_H */
