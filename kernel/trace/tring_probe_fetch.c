// SPDX-License-Identifier: GPL-2.0
/*
 * tring: dynamic probe definitions: the fetch arguments,
 * [NAME=]FETCHARG[:TYPE], each compiled into a fetch program and given
 * its field in the event's record.
 *
 *	%REG		a register of pt_regs (x86-64: ax bx cx dx si di bp
 *			sp ip flags r8 to r15 orig_ax cs ss)
 *	$argN		the Nth argument (N from 1): kprobes on a function's
 *			entry (SYM or SYM+0) only, as ftrace on 6.1
 *	$retval		the return value: return probes only
 *	$stackN $stack	the Nth stack entry, the stack pointer
 *	$comm $COMM	the task's comm: type string only, no dereference
 *	@ADDR		memory at ADDR
 *	@SYM[+|-OFFS]	memory at a kernel symbol: kprobes only
 *	@+OFFS		memory at OFFS of the probed file: uprobes only
 *	\IMM \"TEXT"	an immediate value, an immediate string
 *	+|-[u]OFFS(FETCHARG)	memory at FETCHARG +|- OFFS (u: user
 *			memory; a uprobe reads only user memory)
 *
 * TYPE: u8 to u64, s8 to s64, x8 to x64 (the default: x64), string and
 * ustring (memory, \IMM, $comm, \"TEXT"), symbol, symstr (a value or a
 * kernel load; kprobes only). ftrace's arrays (TYPE[N]) and bitfields
 * (bW@O/S) are refused, for now.
 *
 * Fields follow the probe's own (struct tring_probe_def), in order, each
 * aligned to its size: a string's u32 __data_loc word at 4 bytes.
 */
#include <linux/bug.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <asm/ptrace.h>

#include "tring_filter.h"
#include "tring_probe.h"

enum {
	TP_T_U8, TP_T_U16, TP_T_U32, TP_T_U64,
	TP_T_S8, TP_T_S16, TP_T_S32, TP_T_S64,
	TP_T_X8, TP_T_X16, TP_T_X32, TP_T_X64,
	TP_T_STRING, TP_T_USTRING, TP_T_SYMSTR, TP_T_SYMBOL,
};

#define TP_INT(n, s, sg, pr)	{ n, s, sg, TRING_PROBE_PRINT_##pr, TRING_FT_INT }
#define TP_STR(n)	{ n, 4, 0, TRING_PROBE_PRINT_STRING, TRING_FT_DATA_LOC }
static const struct tring_probe_type tp_types[] = {
	[TP_T_U8] = TP_INT("u8", 1, 0, DEC),
	[TP_T_U16] = TP_INT("u16", 2, 0, DEC),
	[TP_T_U32] = TP_INT("u32", 4, 0, DEC),
	[TP_T_U64] = TP_INT("u64", 8, 0, DEC),
	[TP_T_S8] = TP_INT("s8", 1, 1, DEC),
	[TP_T_S16] = TP_INT("s16", 2, 1, DEC),
	[TP_T_S32] = TP_INT("s32", 4, 1, DEC),
	[TP_T_S64] = TP_INT("s64", 8, 1, DEC),
	[TP_T_X8] = TP_INT("x8", 1, 0, HEX),
	[TP_T_X16] = TP_INT("x16", 2, 0, HEX),
	[TP_T_X32] = TP_INT("x32", 4, 0, HEX),
	[TP_T_X64] = TP_INT("x64", 8, 0, HEX),
	[TP_T_STRING] = TP_STR("string"),
	[TP_T_USTRING] = TP_STR("ustring"),
	[TP_T_SYMSTR] = TP_STR("symstr"),
	[TP_T_SYMBOL] = TP_INT("symbol", 8, 0, SYMBOL),
};

#define TP_REG(r)	{ #r, offsetof(struct pt_regs, r) }
static const struct {
	const char *name;
	u16 offset;
} tp_regs[] = {
	TP_REG(ax), TP_REG(bx), TP_REG(cx), TP_REG(dx), TP_REG(si),
	TP_REG(di), TP_REG(bp), TP_REG(sp), TP_REG(ip), TP_REG(flags),
	TP_REG(r8), TP_REG(r9), TP_REG(r10), TP_REG(r11), TP_REG(r12),
	TP_REG(r13), TP_REG(r14), TP_REG(r15), TP_REG(orig_ax), TP_REG(cs),
	TP_REG(ss),
};

/* Fields ftrace gives every probe event, or probe events themselves. */
static const char *const tp_reserved[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", "__probe_ip", "__probe_ret_ip", "__probe_func",
};

/* A dereference +|-[u]OFFS( ... ) on the way in. */
struct tp_deref {
	const char *at;
	long off;
	bool user;
};

static bool tp_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Append an op to the argument's program. */
static int tp_op(struct tring_probe_parser *p, const char *at, u8 code,
		 u32 param, s64 imm)
{
	struct tring_probe_op *op;

	if (WARN_ON_ONCE(p->n == TRING_PROBE_MAX_OPS))
		return tring_probe_fail(p, at, "too many operations");
	op = &p->ops[p->n++];
	op->code = code;
	op->size = 0;
	op->reserved = 0;
	op->param = param;
	op->imm = imm;
	return 0;
}

/* $stack, $stackN (the text after "$stack": @s, @len). */
static int tp_var_stack(struct tring_probe_parser *p, const char *at,
			const char *s, unsigned int len)
{
	unsigned long n;

	if (!len)
		return tp_op(p, at, TRING_PROBE_OP_STACKP, 0, 0);
	if (!tp_digit(s[0]))
		return tring_probe_fail(p, at, "unknown $-variable");
	if (!tring_probe_ulong(s, len, 10, &n) || n > U32_MAX ||
	    (!p->uprobe && n > TRING_PROBE_MAX_STACK))
		return tring_probe_fail(p, at, "bad stack entry number");
	return tp_op(p, at, TRING_PROBE_OP_STACK, n, 0);
}

/* $argN (the text after "$arg": @s, @len). */
static int tp_var_arg(struct tring_probe_parser *p, const char *at,
		      const char *s, unsigned int len)
{
	unsigned long n;

	if (!len || !tp_digit(s[0]))
		return tring_probe_fail(p, at, "unknown $-variable");
	if (!p->fentry)
		return tring_probe_fail(p, at, "$argN is only for kprobes on a function's entry");
	if (!tring_probe_ulong(s, len, 10, &n) || !n ||
	    n > TRING_PROBE_MAX_STACK)
		return tring_probe_fail(p, at, "bad argument number");
	return tp_op(p, at, TRING_PROBE_OP_ARG, n - 1, 0);
}

/* $VAR at @s, @len bytes with the '$'. */
static int tp_var(struct tring_probe_parser *p, const char *s,
		  unsigned int len, unsigned int depth)
{
	const char *v = s + 1;
	unsigned int n = len - 1;

	if (tring_probe_is(v, n, "retval")) {
		if (!p->ret)
			return tring_probe_fail(p, s, "$retval is only for return probes");
		return tp_op(p, s, TRING_PROBE_OP_RETVAL, 0, 0);
	}
	if (tring_probe_is(v, n, "comm") || tring_probe_is(v, n, "COMM")) {
		if (depth)
			return tring_probe_fail(p, s, "$comm can not be dereferenced");
		return tp_op(p, s, TRING_PROBE_OP_ST_COMM, 0, 0);
	}
	if (n >= 5 && !memcmp(v, "stack", 5))
		return tp_var_stack(p, s, v + 5, n - 5);
	if (n >= 3 && !memcmp(v, "arg", 3))
		return tp_var_arg(p, s, v + 3, n - 3);
	return tring_probe_fail(p, s, "unknown $-variable");
}

/* %REG. */
static int tp_reg(struct tring_probe_parser *p, const char *s,
		  unsigned int len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tp_regs); i++)
		if (tring_probe_is(s + 1, len - 1, tp_regs[i].name))
			return tp_op(p, s, TRING_PROBE_OP_REG,
				     tp_regs[i].offset, 0);
	return tring_probe_fail(p, s, "unknown register");
}

/* @SYM[+|-OFFS], the text after '@'. */
static int tp_mem_symbol(struct tring_probe_parser *p, const char *s,
			 unsigned int len)
{
	const char *end = s + len, *sign = s;
	long off = 0;

	while (sign < end && *sign != '+' && *sign != '-')
		sign++;
	if (!tring_probe_symbol_ok(s, sign - s))
		return tring_probe_fail(p, s, "bad symbol name");
	if (sign < end && !tring_probe_long(sign, end - sign, &off))
		return tring_probe_fail(p, sign, "bad offset from the symbol");
	return tp_op(p, s - 1, TRING_PROBE_OP_SYMBOL,
		     tring_probe_chars(p, s, sign - s), off);
}

/* @ADDR, @+OFFS, @SYM[+|-OFFS]: an address, then the load there. */
static int tp_mem(struct tring_probe_parser *p, const char *s,
		  unsigned int len)
{
	const char *a = s + 1;
	unsigned long addr;
	long off;
	int ret;

	if (len > 1 && tp_digit(*a)) {
		if (!tring_probe_ulong(a, len - 1, 0, &addr))
			return tring_probe_fail(p, s, "bad memory address");
		ret = tp_op(p, s, TRING_PROBE_OP_IMM, 0, addr);
	} else if (len > 1 && *a == '+') {
		if (!p->uprobe)
			return tring_probe_fail(p, s, "file offsets are only for uprobes");
		if (!tring_probe_long(a + 1, len - 2, &off))
			return tring_probe_fail(p, s, "bad file offset");
		ret = tp_op(p, s, TRING_PROBE_OP_FOFFS, 0, off);
	} else {
		if (p->uprobe)
			return tring_probe_fail(p, s, "symbols are not available on uprobes");
		ret = tp_mem_symbol(p, a, len - 1);
	}
	return ret ?: tp_op(p, s, p->uprobe ? TRING_PROBE_OP_UDEREF :
			    TRING_PROBE_OP_DEREF, 0, 0);
}

/* \IMM or \"TEXT". */
static int tp_imm(struct tring_probe_parser *p, const char *s,
		  unsigned int len, unsigned int depth)
{
	unsigned long v;
	long sv;

	if (len > 1 && s[1] == '"') {
		if (depth)
			return tring_probe_fail(p, s,
						"an immediate string can not be dereferenced");
		if (len < 3 || s[len - 1] != '"')
			return tring_probe_fail(p, s + len, "string not closed with '\"'");
		return tp_op(p, s, TRING_PROBE_OP_ST_DATA,
			     tring_probe_chars(p, s + 2, len - 3), 0);
	}
	if (len > 1 && tp_digit(s[1]) && tring_probe_ulong(s + 1, len - 1, 0, &v))
		return tp_op(p, s, TRING_PROBE_OP_IMM, 0, v);
	if (len > 1 && (s[1] == '-' || s[1] == '+') &&
	    tring_probe_long(s + 1, len - 1, &sv))
		return tp_op(p, s, TRING_PROBE_OP_IMM, 0, sv);
	return tring_probe_fail(p, s + 1, "bad immediate value");
}

/* The innermost FETCHARG: what the dereferences start from. */
static int tp_source(struct tring_probe_parser *p, const char *s,
		     unsigned int len, unsigned int depth)
{
	if (!len)
		return tring_probe_fail(p, s, "fetch argument expected");
	switch (s[0]) {
	case '$':
		return tp_var(p, s, len, depth);
	case '%':
		return tp_reg(p, s, len);
	case '@':
		return tp_mem(p, s, len);
	case '\\':
		return tp_imm(p, s, len, depth);
	}
	return tring_probe_fail(p, s, "unknown fetch argument");
}

/* +|-[u]OFFS(...): *s and *len become the text inside the parentheses. */
static int tp_deref(struct tring_probe_parser *p, const char **s,
		    unsigned int *len, struct tp_deref *d)
{
	const char *at = *s, *end = at + *len, *num = at + 1, *open, *close;

	d->at = at;
	d->user = p->uprobe;
	if (num < end && *num == 'u') {
		d->user = true;
		num++;
	}
	open = memchr(num, '(', end - num);
	if (!open)
		return tring_probe_fail(p, at, "'(' expected after the offset");
	if (!tring_probe_signed(num, open - num, at[0] == '-', &d->off))
		return tring_probe_fail(p, num, "bad dereference offset");
	for (close = end - 1; close > open && *close != ')'; close--)
		;
	if (close == open)
		return tring_probe_fail(p, end, "'(' not closed");
	if (close + 1 != end)
		return tring_probe_fail(p, close + 1, "unexpected text after ')'");
	*s = open + 1;
	*len = close - open - 1;
	return 0;
}

/* A FETCHARG into p->ops: its source, then its loads, innermost first. */
static int tp_fetch(struct tring_probe_parser *p, const char *s,
		    unsigned int len)
{
	struct tp_deref d[TRING_PROBE_MAX_DEPTH];
	unsigned int depth = 0;
	int ret;

	while (len && (s[0] == '+' || s[0] == '-')) {
		if (depth == TRING_PROBE_MAX_DEPTH)
			return tring_probe_fail(p, s, "dereferences nested too deeply");
		ret = tp_deref(p, &s, &len, &d[depth]);
		if (ret)
			return ret;
		depth++;
	}
	ret = tp_source(p, s, len, depth);
	while (!ret && depth--)
		ret = tp_op(p, d[depth].at, d[depth].user ?
			    TRING_PROBE_OP_UDEREF : TRING_PROBE_OP_DEREF,
			    0, d[depth].off);
	return ret;
}

/* The store of a string type (string, ustring, symstr). */
static int tp_store_string(struct tring_probe_parser *p,
			   const struct tring_probe_type *t, const char *at)
{
	struct tring_probe_op *last = &p->ops[p->n - 1];
	bool user = p->uprobe || t == &tp_types[TP_T_USTRING];
	u8 c = last->code;

	if (t == &tp_types[TP_T_SYMSTR]) {
		if (p->uprobe)
			return tring_probe_fail(p, at, "symstr is only for kprobes");
		if (c != TRING_PROBE_OP_REG && c != TRING_PROBE_OP_STACK &&
		    c != TRING_PROBE_OP_RETVAL && c != TRING_PROBE_OP_ARG &&
		    c != TRING_PROBE_OP_DEREF)
			return tring_probe_fail(p, at,
						"symstr needs a value or kernel memory");
		return tp_op(p, at, TRING_PROBE_OP_ST_SYMSTR, 0, 0);
	}
	if (c == TRING_PROBE_OP_DEREF || c == TRING_PROBE_OP_UDEREF) {
		/* The string is where the last load would have read. */
		user |= c == TRING_PROBE_OP_UDEREF;
		last->code = user ? TRING_PROBE_OP_ST_USTRING :
				    TRING_PROBE_OP_ST_STRING;
		return 0;
	}
	if (c == TRING_PROBE_OP_IMM)
		return tp_op(p, at, user ? TRING_PROBE_OP_ST_USTRING :
			     TRING_PROBE_OP_ST_STRING, 0, 0);
	return tring_probe_fail(p, at,
				"a string type needs memory: +OFFS(), @, \\IMM or $comm");
}

/* End the program with its store op, as type @t; @at: the type's text. */
static int tp_store(struct tring_probe_parser *p,
		    const struct tring_probe_type *t, const char *at)
{
	struct tring_probe_op *last = &p->ops[p->n - 1];
	int ret = 0;

	if (last->code == TRING_PROBE_OP_ST_COMM ||
	    last->code == TRING_PROBE_OP_ST_DATA)
		;	/* $comm, \"TEXT": already whole (and strings) */
	else if (t->print == TRING_PROBE_PRINT_STRING)
		ret = tp_store_string(p, t, at);
	else if (last->code == TRING_PROBE_OP_DEREF)
		last->code = TRING_PROBE_OP_ST_MEM;
	else if (last->code == TRING_PROBE_OP_UDEREF)
		last->code = TRING_PROBE_OP_ST_UMEM;
	else
		ret = tp_op(p, at, TRING_PROBE_OP_ST_VALUE, 0, 0);
	p->ops[p->n - 1].size = t->size;
	return ret;
}

/* :TYPE (@t, @tlen; @t NULL: none) of FETCHARG @s, @len. */
static int tp_type(struct tring_probe_parser *p, const char *s,
		   unsigned int len, const char *t, unsigned int tlen,
		   const struct tring_probe_type **type)
{
	bool str = tring_probe_is(s, len, "$comm") || tring_probe_is(s, len, "$COMM") ||
		   (len > 1 && s[0] == '\\' && s[1] == '"');
	const char *bracket;
	unsigned int i;

	*type = &tp_types[str ? TP_T_STRING : TP_T_X64];
	if (!t)
		return 0;
	bracket = memchr(t, '[', tlen);
	if (bracket)
		return tring_probe_fail(p, bracket, "array types are not supported");
	if (tlen > 1 && t[0] == 'b' && tp_digit(t[1]))
		return tring_probe_fail(p, t, "bitfield types are not supported");
	for (i = 0; i < ARRAY_SIZE(tp_types); i++)
		if (tring_probe_is(t, tlen, tp_types[i].name))
			break;
	if (i == ARRAY_SIZE(tp_types))
		return tring_probe_fail(p, t, "unknown type");
	if (str && i != TP_T_STRING)
		return tring_probe_fail(p, t,
					"$comm and an immediate string are strings only");
	*type = &tp_types[i];
	return 0;
}

/* The name of argument @i, as the line gives it; @buf: room for "argN". */
static const char *tp_arg_name(const struct tring_probe_parser *p,
			       unsigned int i, char *buf, size_t size,
			       unsigned int *len)
{
	unsigned int pos = p->args_at, start = pos, n;
	const char *eq;

	for (n = 0; n <= i; n++) {
		while (pos < p->end && isspace(p->line[pos]))
			pos++;
		start = pos;
		while (pos < p->end && !isspace(p->line[pos]))
			pos++;
	}
	eq = memchr(p->line + start, '=', pos - start);
	if (eq) {
		*len = eq - (p->line + start);
		return p->line + start;
	}
	*len = snprintf(buf, size, "arg%u", i + 1);
	return buf;
}

/* NAME (@s, @len) of the argument being parsed: valid, not used yet. */
static int tp_name(struct tring_probe_parser *p, const char *at,
		   const char *s, unsigned int len)
{
	unsigned int i, n;
	const char *name;
	char buf[16];

	if (!tring_probe_name_ok(s, len, false))
		return tring_probe_fail(p, at, "argument name is not a C identifier");
	for (i = 0; i < ARRAY_SIZE(tp_reserved); i++)
		if (tring_probe_is(s, len, tp_reserved[i]))
			return tring_probe_fail(p, at, "argument name is reserved");
	for (i = 0; i < p->nr_args; i++) {
		name = tp_arg_name(p, i, buf, sizeof(buf), &n);
		if (n == len && !memcmp(name, s, len))
			return tring_probe_fail(p, at, "argument name already used");
	}
	return 0;
}

/*
 * The byte of struct pt_regs the program @ops (@n ops) stores as it is
 * into a field of @size bytes (struct tring_probe_arg's reg), or
 * TRING_PROBE_NO_REG. $argN up to the sixth is its register, in the
 * kernel (regs_get_kernel_argument()) and in user space alike.
 */
static u16 tp_reg_of(const struct tring_probe_op *ops, unsigned int n,
		     unsigned int size)
{
	if (n != 2 || ops[1].code != TRING_PROBE_OP_ST_VALUE ||
	    ops[1].size != size || size > sizeof(unsigned long))
		return TRING_PROBE_NO_REG;
	switch (ops[0].code) {
	case TRING_PROBE_OP_REG:
		if (ops[0].param <= sizeof(struct pt_regs) - sizeof(long))
			return ops[0].param;
		break;
	case TRING_PROBE_OP_ARG:
		if (ops[0].param < TRING_PROBE_REG_ARGS)
			return tring_probe_arg_reg(ops[0].param);
		break;
	case TRING_PROBE_OP_RETVAL:
		return offsetof(struct pt_regs, ax);
	}
	return TRING_PROBE_NO_REG;
}

/* Add the program in p->ops and the field to the definition. */
static void tp_commit(struct tring_probe_parser *p, const char *name,
		      unsigned int name_len, const struct tring_probe_type *t)
{
	unsigned int off = ALIGN(p->rec, t->size);
	u32 name_off = tring_probe_chars(p, name, name_len);
	struct tring_probe_arg *a;

	if (p->fill) {
		memcpy(p->dst_ops + p->nr_ops, p->ops, p->n * sizeof(*p->ops));
		a = &p->args[p->nr_args];
		a->name = p->chars + name_off;
		a->type = t;
		a->ops = p->dst_ops + p->nr_ops;
		a->offset = off;
		a->size = t->size;
		a->nr_ops = p->n;
		a->reg = tp_reg_of(p->ops, p->n, t->size);
	}
	p->nr_ops += p->n;
	p->nr_args++;
	p->rec = off + t->size;
}

/**
 * tring_probe_parse_arg - parse and compile one fetch argument
 * @p: the parser, after the probe point.
 * @s: the word, [NAME=]FETCHARG[:TYPE].
 * @len: its bytes.
 *
 * Return: 0, or -EINVAL with the error recorded.
 */
int tring_probe_parse_arg(struct tring_probe_parser *p, const char *s,
			  unsigned int len)
{
	const char *eq = memchr(s, '=', len), *body, *colon, *t = NULL;
	const struct tring_probe_type *type;
	unsigned int blen, flen, tlen = 0, nlen;
	char buf[16];
	int ret;

	if (p->nr_args == TRING_PROBE_MAX_ARGS)
		return tring_probe_fail(p, s, "too many arguments");
	if (eq && eq - s > TRING_PROBE_MAX_ARG_NAME)
		return tring_probe_fail(p, s, "argument name too long");
	if (eq && eq == s)
		return tring_probe_fail(p, s, "argument name missing before '='");
	nlen = eq ? eq - s : snprintf(buf, sizeof(buf), "arg%u", p->nr_args + 1);
	ret = tp_name(p, s, eq ? s : buf, nlen);
	if (ret)
		return ret;
	body = eq ? eq + 1 : s;
	blen = s + len - body;
	if (blen > TRING_PROBE_MAX_ARG_LEN)
		return tring_probe_fail(p, body, "argument too long");
	if (!blen)
		return tring_probe_fail(p, body, "fetch argument expected after '='");
	colon = memchr(body, ':', blen);
	flen = colon ? colon - body : blen;
	if (colon) {
		t = colon + 1;
		tlen = body + blen - t;
	}
	ret = tp_type(p, body, flen, t, tlen, &type);
	p->n = 0;
	ret = ret ?: tp_fetch(p, body, flen);
	ret = ret ?: tp_store(p, type, t ?: body);
	if (!ret)
		tp_commit(p, eq ? s : buf, nlen, type);
	return ret;
}
