// SPDX-License-Identifier: GPL-2.0
/*
 * tring: running a compiled filter (tring_filter.c compiles it) over an
 * event's record.
 *
 * Evaluation runs the program once from start to end (no jumps, so no
 * loop but the one over at most TRING_FILTER_MAX_INSNS instructions),
 * keeping the truth values as bits of one u64: a stack at most
 * TRING_FILTER_MAX_PREDS deep. It reads the record, takes no lock and
 * allocates nothing: any context, NMI included.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "tring_filter_prog.h"

/*
 * The integer at @rec + @pr->offset, extended to 64 bits. memcpy(): a
 * record need not keep its fields aligned.
 */
static u64 tf_load(const struct tf_pred *pr, const void *rec)
{
	const void *a = rec + pr->offset;
	u8 v8;
	u16 v16;
	u32 v32;
	u64 v64;

	switch (pr->size) {
	case 1:
		memcpy(&v8, a, 1);
		return pr->is_signed ? (u64)(s64)(s8)v8 : v8;
	case 2:
		memcpy(&v16, a, 2);
		return pr->is_signed ? (u64)(s64)(s16)v16 : v16;
	case 4:
		memcpy(&v32, a, 4);
		return pr->is_signed ? (u64)(s64)(s32)v32 : v32;
	}
	memcpy(&v64, a, 8);
	return v64;
}

static bool tf_int_match(const struct tf_pred *pr, const void *rec)
{
	u64 v = pr->ftype == TRING_FT_CPU ?
		(u64)(s64)(int)raw_smp_processor_id() : tf_load(pr, rec);
	bool lt = pr->is_signed ? (s64)v < (s64)pr->val : v < pr->val;

	switch (pr->op) {
	case TF_EQ:
		return v == pr->val;
	case TF_NE:
		return v != pr->val;
	case TF_LT:
		return lt;
	case TF_LE:
		return lt || v == pr->val;
	case TF_GT:
		return !lt && v != pr->val;
	case TF_GE:
		return !lt;
	}
	return v & pr->val;
}

/*
 * Does @c match the class at *@pp ("[a-z_]", "[!0-9]"; a "]" first is a
 * member)? Moves *@pp past it. Without a closing "]", "[" is a plain
 * character.
 */
static bool tf_class(const char **pp, char c)
{
	const char *p = *pp + 1, *first;
	bool neg = *p == '!', hit = false;
	u8 uc = c;

	p += neg;
	first = p;
	while (*p && (*p != ']' || p == first)) {
		/* Ranges of bytes, 0x80-0xff above ASCII (as lib/glob.c). */
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hit |= uc >= (u8)p[0] && uc <= (u8)p[2];
			p += 3;
		} else {
			hit |= c == *p++;
		}
	}
	if (!*p) {
		(*pp)++;
		return c == '[';
	}
	*pp = p + 1;
	return hit != neg;
}

/*
 * Does @c match the pattern atom at *@pp ("?", a class, an escaped or a
 * plain character)? Moves *@pp past the atom when it does.
 */
static bool tf_atom(const char **pp, char c)
{
	const char *p = *pp;

	if (*p == '[')
		return tf_class(pp, c);
	if (*p == '?') {
		*pp = p + 1;
		return true;
	}
	if (*p == '\\') {
		/* "\x" is x; a "\" last matches the string's end alone. */
		if (!p[1])
			return false;
		p++;
	}
	*pp = p + 1;
	return *p == c;
}

/*
 * Glob match of @s (@n bytes) against @pat. A "*" remembers where it
 * was; a mismatch after it retries one byte further: O(n * len(pat)),
 * and both are bounded (a field's bytes, TRING_FILTER_MAX_STR).
 */
static bool tf_glob(const char *pat, const char *s, size_t n)
{
	const char *p = pat, *star = NULL, *q;
	size_t i = 0, star_i = 0;

	while (i < n) {
		if (*p == '*') {
			star = ++p;
			star_i = i;
			continue;
		}
		q = p;
		if (*p && tf_atom(&q, s[i])) {
			p = q;
			i++;
		} else if (star) {
			p = star;
			i = ++star_i;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	/* A "\" last in the pattern stands for the string's end. */
	return !*p || (p[0] == '\\' && !p[1]);
}

/* The string field of @pr in @rec (@len bytes): its bytes into @n. */
static const char *tf_str(const struct tf_pred *pr, const void *rec,
			  unsigned int len, size_t *n)
{
	unsigned int off;
	const char *s;
	u32 loc;

	switch (pr->ftype) {
	case TRING_FT_CHARS:
		s = rec + pr->offset;
		*n = strnlen(s, pr->size);
		return s;
	case TRING_FT_COMM:
		/* Read as ftrace reads it: a rename may race with it. */
		*n = strnlen(current->comm, TASK_COMM_LEN);
		return current->comm;
	case TRING_FT_DATA_LOC:
	case TRING_FT_REL_LOC:
		memcpy(&loc, rec + pr->offset, 4);
		off = (loc & 0xffff) +
		      (pr->ftype == TRING_FT_REL_LOC ? pr->offset + 4 : 0);
		/* Out of the record: no string. */
		if (off + (loc >> 16) > len) {
			*n = 0;
			return "";
		}
		s = rec + off;
		*n = strnlen(s, loc >> 16);
		return s;
	}
	memcpy(&s, rec + pr->offset, sizeof(s));
	*n = s ? strnlen(s, TRING_FILTER_MAX_LEN) : 0;
	return s ?: "";
}

static bool tf_pred_match(const struct tring_filter *f,
			  const struct tf_pred *pr, const void *rec,
			  unsigned int len)
{
	const char *str = f->chars + pr->str_off, *s;
	size_t n;

	if (tf_is_int(pr->ftype))
		return tf_int_match(pr, rec);
	s = tf_str(pr, rec, len, &n);
	if (pr->op == TF_GLOB || pr->op == TF_NGLOB)
		return tf_glob(str, s, n) == (pr->op == TF_GLOB);
	return (pr->str_len == n && !memcmp(str, s, n)) == (pr->op == TF_EQ);
}

/**
 * tring_filter_match - does a record pass a filter?
 * @f: the filter.
 * @rec: the record, laid out as the fields given to
 *	tring_filter_compile() say.
 * @len: bytes in @rec (a __data_loc string must lie inside).
 *
 * Context: any, NMI included; takes no lock, allocates nothing.
 * Return: true to record it.
 */
bool tring_filter_match(const struct tring_filter *f, const void *rec,
			unsigned int len)
{
	u64 st = 0, top;
	unsigned int i;

	for (i = 0; i < f->nr_insns; i++) {
		u8 insn = f->insns[i];

		if (insn == TF_NOT) {
			st ^= 1;
			continue;
		}
		if (insn < TF_AND) {
			st = st << 1 |
			     tf_pred_match(f, &f->preds[insn], rec, len);
			continue;
		}
		top = st & 1;
		st >>= 1;
		st = (st & ~1ULL) |
		     (insn == TF_AND ? st & top : (st | top) & 1);
	}
	return st & 1;
}
