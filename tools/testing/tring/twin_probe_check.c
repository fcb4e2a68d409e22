// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: a probe definition (struct tring_probe_def) as one line of
 * text, for the tests to compare with what they expect, and what every
 * definition must hold, for the tests and the fuzzer to check.
 */
#include "twin.h"
#include "twin_probe.h"

static const char *const kind_names[] = {
	"kprobe", "kretprobe", "uprobe", "uretprobe", "remove",
};

struct out {
	char *s;
	size_t size, n;
};

static void __attribute__((format(printf, 2, 3)))
out(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->s + o->n, o->size - o->n, fmt, ap);
	va_end(ap);
	o->n += n;
	if (o->n >= o->size)
		o->n = o->size - 1;
}

/* An op as "name[:operand][/size]". */
static void describe_op(struct out *o, const struct tring_probe_def *d,
			const struct tring_probe_op *op)
{
	static const char *const names[] = {
		"reg", "arg", "retval", "stack", "stackp", "imm", "sym",
		"foffs", "deref", "uderef", "value", "mem", "umem", "string",
		"ustring", "symstr", "comm", "data",
	};
	long long imm = op->imm;

	if (op->code >= ARRAY_SIZE(names)) {
		out(o, "op%u?", op->code);
		return;
	}
	out(o, "%s", names[op->code]);
	switch (op->code) {
	case TRING_PROBE_OP_REG:
	case TRING_PROBE_OP_ARG:
	case TRING_PROBE_OP_STACK:
		out(o, ":%u", op->param);
		break;
	case TRING_PROBE_OP_IMM:
	case TRING_PROBE_OP_FOFFS:
		out(o, ":0x%llx", imm);
		break;
	case TRING_PROBE_OP_SYMBOL:
		out(o, ":%s%+lld", d->chars + op->param, imm);
		break;
	case TRING_PROBE_OP_DEREF:
	case TRING_PROBE_OP_UDEREF:
	case TRING_PROBE_OP_ST_STRING:
	case TRING_PROBE_OP_ST_USTRING:
		out(o, ":%lld", imm);
		break;
	case TRING_PROBE_OP_ST_VALUE:
		out(o, "/%u", op->size);
		break;
	case TRING_PROBE_OP_ST_MEM:
	case TRING_PROBE_OP_ST_UMEM:
		out(o, ":%lld/%u", imm, op->size);
		break;
	case TRING_PROBE_OP_ST_DATA:
		out(o, ":%s", d->chars + op->param);
		break;
	}
}

/*
 * "KIND GROUP/EVENT TARGET [max=N] rec=HEAD/FIXED: NAME=TYPE@OFFSET[OPS]
 * ...", the group "*" if none; a removal: "remove GROUP/EVENT".
 */
void describe(char *buf, size_t size, const struct tring_probe_def *d)
{
	struct out o = { buf, size, 0 };
	unsigned int i, j;

	buf[0] = '\0';
	out(&o, "%s %s/%s", kind_names[d->kind], d->group ?: "*", d->event);
	if (d->kind == TRING_PROBE_REMOVE)
		return;
	if (d->path)
		out(&o, " %s:0x%lx", d->path, d->offset);
	else if (d->symbol)
		out(&o, " %s+%lu", d->symbol, d->offset);
	else
		out(&o, " @0x%lx", d->addr);
	if (d->ref_ctr_offset)
		out(&o, "(0x%lx)", d->ref_ctr_offset);
	if (d->maxactive)
		out(&o, " max=%u", d->maxactive);
	out(&o, " rec=%u/%u:", d->head_size, d->fixed_size);
	for (i = 0; i < d->nr_args; i++) {
		const struct tring_probe_arg *a = &d->args[i];

		out(&o, " %s=%s@%u[", a->name, a->type->name, a->offset);
		for (j = 0; j < a->nr_ops; j++) {
			out(&o, j ? "," : "");
			describe_op(&o, d, &a->ops[j]);
		}
		out(&o, "]");
	}
}

/* A string of the block: inside its chars, NUL-terminated there. */
static bool in_chars(const struct tring_probe_def *d, const char *s)
{
	const char *end = (const char *)d + d->size;

	return s >= d->chars && s < end && memchr(s, '\0', end - s);
}

static bool is_alpha(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A C identifier, ASCII. */
static bool is_ident(const char *s)
{
	if (!is_alpha(*s))
		return false;
	for (s++; *s; s++)
		if (!is_alpha(*s) && !(*s >= '0' && *s <= '9'))
			return false;
	return true;
}

/* One argument's field and program; NULL or what is wrong. */
static const char *arg_check(const struct tring_probe_def *d,
			     const struct tring_probe_arg *a,
			     unsigned int *end)
{
	unsigned int j;

	if (!in_chars(d, a->name) || !is_ident(a->name))
		return "argument name";
	if (!a->type || !a->type->name || a->size != a->type->size)
		return "argument type";
	if (a->offset % a->size || a->offset < *end ||
	    a->offset + a->size > d->fixed_size)
		return "argument field";
	*end = a->offset + a->size;
	if (!a->nr_ops || a->nr_ops > TRING_PROBE_MAX_OPS ||
	    a->ops < d->ops || a->ops + a->nr_ops > d->ops + d->nr_ops)
		return "argument ops";
	for (j = 0; j < a->nr_ops; j++) {
		const struct tring_probe_op *op = &a->ops[j];
		bool store = op->code >= TRING_PROBE_OP_ST_VALUE;

		if (op->code > TRING_PROBE_OP_ST_DATA || store != (j == a->nr_ops - 1))
			return "a store op, last and only last";
		if (store && op->size != a->size)
			return "store size";
		if ((op->code == TRING_PROBE_OP_SYMBOL ||
		     op->code == TRING_PROBE_OP_ST_DATA) &&
		    !in_chars(d, d->chars + op->param))
			return "op's string";
	}
	return NULL;
}

/* What every definition must hold; NULL or what is wrong. */
const char *def_check(const struct tring_probe_def *d)
{
	const void *ops = d + 1;
	unsigned int i, j, end, nr_ops = 0;
	const char *why;

	if (d->ops != ops || (const void *)d->args != (const void *)(d->ops + d->nr_ops) ||
	    (const void *)d->chars != (const void *)(d->args + d->nr_args))
		return "block layout";
	if (d->kind > TRING_PROBE_REMOVE || !d->event ||
	    (d->group && strcmp(d->group, TRING_PROBE_KGROUP) &&
	     strcmp(d->group, TRING_PROBE_UGROUP) && !in_chars(d, d->group)))
		return "kind or names";
	if (d->group && in_chars(d, d->group) &&
	    (strlen(d->group) > TRING_PROBE_MAX_EVENT || !*d->group))
		return "group name";
	if (d->kind == TRING_PROBE_REMOVE)
		return d->nr_args || d->head_size ? "a removal with fields" : NULL;
	if (!in_chars(d, d->event) || !is_ident(d->event) ||
	    strlen(d->event) > TRING_PROBE_MAX_EVENT)
		return "event name";
	if (d->head_size != (d->kind % 2 ? 16 : 8))
		return "head size";
	end = d->head_size;
	for (i = 0; i < d->nr_args; i++) {
		why = arg_check(d, &d->args[i], &end);
		if (why)
			return why;
		nr_ops += d->args[i].nr_ops;
		for (j = 0; j < i; j++)
			if (!strcmp(d->args[i].name, d->args[j].name))
				return "names not unique";
	}
	if (nr_ops != d->nr_ops || end != d->fixed_size)
		return "ops or fixed size";
	return NULL;
}
