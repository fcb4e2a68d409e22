// SPDX-License-Identifier: GPL-2.0
/*
 * tring: event filters.
 *
 * A filter is ftrace's filter syntax: comparisons of an event's fields
 * with constants, joined by "&&" (binding tighter) and "||", negated by
 * "!", grouped by parentheses:
 *
 *	integers	==  !=  <  <=  >  >=  &  (bits in common)
 *	strings		==  !=  ~  (a glob: * ? [a-z] [!a-z] \x; a
 *			leading ! matches what the rest does not)
 *
 * Fields are the event's, then ftrace's generic ones where the event has
 * none of that name: CPU, cpu and common_cpu (the CPU the event runs on:
 * no "&"), COMM and comm (the running task's comm).
 *
 * A constant is an integer as C writes it (decimal, 0x hexadecimal, 0
 * octal; a sign only for a signed field), or a quoted string ("..." or
 * '...': the bytes up to the next same quote, as they are, "\"
 * included), as ftrace reads them. Only a glob gives "\" a meaning.
 *
 * It is compiled once, when written, into a program in postfix order: one
 * instruction per comparison, "and", "or" and "not"
 * (tring_filter_prog.h), which tring_filter_match.c runs.
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tring_filter_prog.h"

/* The compiler's state. */
struct tf_parser {
	const char *s;
	unsigned int pos;
	unsigned int depth;
	unsigned int nr_preds;
	const struct tring_filter_field *fields;
	unsigned int nr_fields;
	struct tring_filter *f;
	struct tring_filter_error *err;
};

static int tf_fail(struct tf_parser *p, unsigned int pos, const char *msg)
{
	if (!p->err->msg) {
		p->err->pos = pos;
		p->err->msg = msg;
	}
	return -EINVAL;
}

/* A blank, as ftrace's parser and strstrip() see one. */
static bool tf_space(char c)
{
	return isspace(c);
}

static bool tf_ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static char tf_peek(struct tf_parser *p)
{
	while (tf_space(p->s[p->pos]))
		p->pos++;
	return p->s[p->pos];
}

/* Consume @tok if the text continues with it. */
static bool tf_take(struct tf_parser *p, const char *tok)
{
	size_t n = strlen(tok);

	tf_peek(p);
	if (strncmp(p->s + p->pos, tok, n))
		return false;
	p->pos += n;
	return true;
}

static int tf_emit(struct tf_parser *p, u8 insn)
{
	if (p->f->nr_insns == TRING_FILTER_MAX_INSNS)
		return tf_fail(p, p->pos, "too many operators");
	p->f->insns[p->f->nr_insns++] = insn;
	return 0;
}

/*
 * ftrace's generic fields (its trace_define_generic_fields()), which
 * every event's filter may name: read when the filter runs, from the
 * CPU and the task it runs on, not from the record.
 */
static const struct tring_filter_field tf_generic[] = {
	{ "CPU", 0, sizeof(int), TRING_FT_CPU, 1, 0 },
	{ "cpu", 0, sizeof(int), TRING_FT_CPU, 1, 0 },
	{ "common_cpu", 0, sizeof(int), TRING_FT_CPU, 1, 0 },
	{ "COMM", 0, TASK_COMM_LEN, TRING_FT_COMM, 0, 0 },
	{ "comm", 0, TASK_COMM_LEN, TRING_FT_COMM, 0, 0 },
};

/* The field of @fields named by the @n bytes at @name, or NULL. */
static const struct tring_filter_field *
tf_lookup(const struct tring_filter_field *fields, unsigned int nr,
	  const char *name, size_t n)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (strlen(fields[i].name) == n &&
		    !strncmp(fields[i].name, name, n))
			return &fields[i];
	return NULL;
}

/*
 * The field named at the current position: the event's, else a generic
 * one (ftrace looks them up in that order: an event's own "cpu" wins).
 */
static const struct tring_filter_field *tf_field(struct tf_parser *p)
{
	const struct tring_filter_field *fld;
	unsigned int start = p->pos;
	size_t n;

	while (tf_ident_char(p->s[p->pos], p->pos == start))
		p->pos++;
	n = p->pos - start;
	if (!n) {
		tf_fail(p, start, "expected a field name");
		return NULL;
	}
	fld = tf_lookup(p->fields, p->nr_fields, p->s + start, n) ?:
	      tf_lookup(tf_generic, ARRAY_SIZE(tf_generic), p->s + start, n);
	if (!fld)
		tf_fail(p, start, "no such field");
	return fld;
}

static int tf_op(struct tf_parser *p, u8 ftype)
{
	static const struct { const char *tok; u8 op; bool ints, strs; } ops[] = {
		{ "==", TF_EQ, true, true }, { "!=", TF_NE, true, true },
		{ "<=", TF_LE, true, false }, { ">=", TF_GE, true, false },
		{ "<", TF_LT, true, false }, { ">", TF_GT, true, false },
		{ "~", TF_GLOB, false, true },
	};
	unsigned int pos = (tf_peek(p), p->pos), i;
	bool is_int = tf_is_int(ftype);

	/*
	 * "&", not "&&": bits in common. Not for CPU: ftrace takes it there
	 * and never matches.
	 */
	if (p->s[pos] == '&' && p->s[pos + 1] != '&') {
		p->pos++;
		return ftype == TRING_FT_INT ? TF_BAND :
			tf_fail(p, pos, is_int ? "CPU takes no &" :
				"& needs an integer field");
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!tf_take(p, ops[i].tok))
			continue;
		if (is_int ? ops[i].ints : ops[i].strs)
			return ops[i].op;
		return tf_fail(p, pos, is_int ?
			       "~ needs a string field" :
			       "a string field takes ==, != or ~ only");
	}
	return tf_fail(p, pos, "expected an operator");
}

static int tf_digit(char c, unsigned int base)
{
	int d = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;

	return d < (int)base ? d : -1;
}

/*
 * An unsigned number at p->pos into @v, read as ftrace reads it (C's
 * bases: 0x hexadecimal, a leading 0 octal); false if none or too large.
 */
static bool tf_number(struct tf_parser *p, u64 *v)
{
	unsigned int base = 10, start;
	int d;

	if (p->s[p->pos] == '0' && (p->s[p->pos + 1] | 0x20) == 'x') {
		base = 16;
		p->pos += 2;
	} else if (p->s[p->pos] == '0') {
		base = 8;
	}
	start = p->pos;
	for (*v = 0; (d = tf_digit(p->s[p->pos], base)) >= 0; p->pos++) {
		if (*v > (U64_MAX - d) / base)
			return false;
		*v = *v * base + d;
	}
	return p->pos > start && !tf_ident_char(p->s[p->pos], false) &&
	       (p->s[p->pos] < '0' || p->s[p->pos] > '9');
}

/* Does @v (negated if @neg) fit @fld? Stores it, as the field reads. */
static int tf_int_value(struct tf_parser *p, const struct tring_filter_field *fld,
			struct tf_pred *pr, unsigned int pos)
{
	unsigned int bits = fld->size * 8;
	bool neg = tf_take(p, "-");
	u64 v, max;

	/* No blank after "-": kstrtoll() would not read "- 3" either. */
	if (!tf_number(p, &v))
		return tf_fail(p, pos, "expected an integer");
	if (neg && !fld->is_signed)
		return tf_fail(p, pos, "negative value for an unsigned field");
	max = bits == 64 ? U64_MAX : (1ULL << bits) - 1;
	if (fld->is_signed)
		max >>= 1;
	if (v > max + neg)
		return tf_fail(p, pos, "value out of the field's range");
	pr->val = neg ? -v : v;
	return 0;
}

/*
 * A quoted string ("..." or '...'), into f->chars. As ftrace's
 * parse_pred(): the bytes up to the next same quote, as they are ("\"
 * escapes nothing here; only a glob gives it a meaning). For ~, a
 * leading "!" negates the glob (ftrace's filter_parse_regex()).
 */
static int tf_str_value(struct tf_parser *p, struct tf_pred *pr,
			unsigned int pos)
{
	char *str = p->f->chars + p->f->chars_used;
	char q = tf_peek(p), c;
	unsigned int n = 0;

	/* As ftrace: a string constant is always quoted. */
	if (q != '"' && q != '\'')
		return tf_fail(p, pos, "expected a quoted string");
	for (p->pos++; (c = p->s[p->pos]) && c != q; p->pos++) {
		if (n == TRING_FILTER_MAX_STR - 1)
			return tf_fail(p, pos, "string too long");
		str[n++] = c;
	}
	if (!c)
		return tf_fail(p, pos, "unterminated string");
	p->pos++;
	str[n] = '\0';
	pr->str_off = p->f->chars_used;
	pr->str_len = n;
	p->f->chars_used += n + 1;
	if (pr->op == TF_GLOB && str[0] == '!') {
		pr->op = TF_NGLOB;
		pr->str_off++;
		pr->str_len--;
	}
	return 0;
}

/* FIELD OP VALUE */
static int tf_pred(struct tf_parser *p)
{
	const struct tring_filter_field *fld;
	struct tf_pred *pr;
	int op, ret;

	if (p->nr_preds == TRING_FILTER_MAX_PREDS)
		return tf_fail(p, p->pos, "too many comparisons");
	pr = &p->f->preds[p->nr_preds];
	fld = tf_field(p);
	if (!fld)
		return -EINVAL;
	op = tf_op(p, fld->type);
	if (op < 0)
		return op;
	pr->offset = fld->offset;
	pr->size = fld->size;
	pr->ftype = fld->type;
	pr->is_signed = fld->is_signed;
	pr->op = op;
	pr->gate = fld->is_current_pid && fld->type == TRING_FT_INT &&
		   fld->size == 4 && fld->is_signed && op == TF_EQ;
	if (tf_is_int(fld->type))
		ret = tf_int_value(p, fld, pr, (tf_peek(p), p->pos));
	else
		ret = tf_str_value(p, pr, (tf_peek(p), p->pos));
	return ret ?: tf_emit(p, p->nr_preds++);
}

/*
 * The gate of the program @f holds (struct tring_filter_gate): over the
 * program in postfix order, each value on the stack is the comparison
 * whose truth the value requires (a gate comparison), or -1. An "&&"
 * requires what either side does; an "||" what both sides do, if it is
 * one pid; a "!" nothing.
 */
static void tf_gate(struct tring_filter *f)
{
	s8 st[TRING_FILTER_MAX_PREDS];
	unsigned int i, sp = 0;
	s8 a, b;

	for (i = 0; i < f->nr_insns; i++) {
		u8 insn = f->insns[i];

		if (insn < TF_AND) {
			st[sp++] = f->preds[insn].gate ? insn : -1;
			continue;
		}
		if (insn == TF_NOT) {
			st[sp - 1] = -1;
			continue;
		}
		b = st[--sp];
		a = st[sp - 1];
		if (insn == TF_AND)
			st[sp - 1] = a >= 0 ? a : b;
		else if (a < 0 || b < 0 || f->preds[a].val != f->preds[b].val)
			st[sp - 1] = -1;
	}
	if (sp == 1 && st[0] >= 0) {
		f->gate.pid = f->preds[st[0]].val;
		f->gate.on = true;
	}
}

/*
 * Does @s remove the filter? As ftrace's apply_event_filter(): "0",
 * blanks around it (it compares strstrip()'s result with "0"); and, as
 * tring always had it, a text of blanks alone.
 */
static bool tf_removes(const char *s)
{
	while (tf_space(*s))
		s++;
	if (*s == '0')
		s++;
	while (tf_space(*s))
		s++;
	return !*s;
}

static int tf_or(struct tf_parser *p);

/* ! UNARY | ( OR ) | PRED */
static int tf_unary(struct tf_parser *p)
{
	unsigned int pos = (tf_peek(p), p->pos);
	int ret;

	if (p->s[pos] == '!' && p->s[pos + 1] != '=') {
		p->pos++;
		if (++p->depth > TRING_FILTER_MAX_DEPTH)
			return tf_fail(p, pos, "nested too deep");
		ret = tf_unary(p);
		p->depth--;
		return ret ?: tf_emit(p, TF_NOT);
	}
	if (!tf_take(p, "("))
		return tf_pred(p);
	if (++p->depth > TRING_FILTER_MAX_DEPTH)
		return tf_fail(p, pos, "nested too deep");
	ret = tf_or(p);
	p->depth--;
	if (!ret && !tf_take(p, ")"))
		return tf_fail(p, p->pos, "expected )");
	return ret;
}

/* UNARY { && UNARY } */
static int tf_and(struct tf_parser *p)
{
	int ret = tf_unary(p);

	while (!ret && tf_take(p, "&&")) {
		ret = tf_unary(p);
		if (!ret)
			ret = tf_emit(p, TF_AND);
	}
	return ret;
}

/* AND { || AND } */
static int tf_or(struct tf_parser *p)
{
	int ret = tf_and(p);

	while (!ret && tf_take(p, "||")) {
		ret = tf_and(p);
		if (!ret)
			ret = tf_emit(p, TF_OR);
	}
	return ret;
}

/**
 * tring_filter_compile - compile a filter for an event's fields
 * @text: the filter, NUL-terminated.
 * @fields: the fields it may name.
 * @nr_fields: entries in @fields.
 * @err: where and why, when it is refused.
 *
 * Context: process; may sleep.
 * Return: the filter; NULL if @text removes the filter ("0" or nothing,
 * blanks around it); ERR_PTR(-EINVAL) with @err filled in; or
 * ERR_PTR(-ENOMEM).
 */
struct tring_filter *tring_filter_compile(const char *text,
					  const struct tring_filter_field *fields,
					  unsigned int nr_fields,
					  struct tring_filter_error *err)
{
	struct tf_parser p = {
		.s = text, .fields = fields, .nr_fields = nr_fields, .err = err,
	};
	size_t len = strnlen(text, TRING_FILTER_MAX_LEN + 1);
	int ret;

	BUILD_BUG_ON(offsetof(struct tring_filter, gate) != 0);
	err->pos = 0;
	err->msg = NULL;
	if (len > TRING_FILTER_MAX_LEN) {
		tf_fail(&p, TRING_FILTER_MAX_LEN, "filter too long");
		return ERR_PTR(-EINVAL);
	}
	if (tf_removes(text))
		return NULL;
	p.f = kzalloc(struct_size(p.f, chars, 2 * (len + 1)), GFP_KERNEL);
	if (!p.f)
		return ERR_PTR(-ENOMEM);
	memcpy(p.f->chars, text, len);
	p.f->chars_used = len + 1;
	ret = tf_or(&p);
	if (!ret && tf_peek(&p))
		ret = tf_fail(&p, p.pos, "unexpected text");
	if (ret) {
		kfree(p.f);
		return ERR_PTR(ret);
	}
	tf_gate(p.f);
	return p.f;
}

/**
 * tring_filter_free - free a compiled filter
 * @f: the filter, or NULL.
 */
void tring_filter_free(struct tring_filter *f)
{
	kfree(f);
}

/**
 * tring_filter_text - the text a filter was compiled from
 * @f: the filter.
 *
 * Return: the text.
 */
const char *tring_filter_text(const struct tring_filter *f)
{
	return f->chars;
}
