// SPDX-License-Identifier: GPL-2.0
/*
 * tring: dynamic probes: the fetch programs that tring_probe_fetch.c
 * compiles, run at a hit to fill the event's record.
 *
 * This runs in a kprobe's, kretprobe's or uprobe's handler: any context,
 * NMI included, preemption off. It never sleeps, locks or allocates, and
 * reads memory only with the nofault readers: a bad address is a fault
 * of that argument (its field 0, or the string "(fault)"), never an oops.
 * One pass over each argument's ops, no recursion, no division.
 *
 * A string's field is its __data_loc word, length (NUL included) << 16 |
 * offset from the record's start; the strings follow the fixed part, one
 * after the other, each cut to the room left (its NUL kept).
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "tring_probe.h"

/* What a string that could not be read shows, as ftrace's. */
static const char tp_fault_str[] = "(fault)";

/* The most a __data_loc word can point at: offset and length are u16. */
#define TP_LOC_MAX	0xffffU

/*
 * sprint_symbol() writes up to KSYM_SYMBOL_LEN bytes: straight into the
 * record when that much room is left, else into a buffer on the stack,
 * then cut to fit. That buffer must stay small (666 bytes on 6.1 and
 * 6.12): an NMI has a stack of its own of 4 KiB.
 */
#define TP_SYMSTR_STACK	768
static_assert(KSYM_SYMBOL_LEN <= TP_SYMSTR_STACK);

/* A string is read in pieces of this many bytes. */
#define TP_STR_CHUNK	64U

/* One evaluation: the record and where its next string goes. */
struct tp_eval {
	const struct tring_probe_def *def;
	const struct tring_probe_ctx *ctx;
	u8 *rec;
	unsigned int base;
	unsigned int pos;	/* the next string's offset from @rec */
	unsigned int end;	/* strings end here: cap, at most TP_LOC_MAX */
};

/* @size bytes at @addr into @dst, user memory if @user: 0, or < 0. */
static nokprobe_inline long tp_read(void *dst, unsigned long addr,
				    size_t size, bool user)
{
	if (user)
		return copy_from_user_nofault(dst, (const void __user *)addr,
					      size);
	return copy_from_kernel_nofault(dst, (const void *)addr, size);
}

/* $argN (@n from 0), by the x86-64 calling convention. */
static nokprobe_inline int tp_arg(const struct tp_eval *e, unsigned int n,
				  unsigned long *val)
{
	struct pt_regs *regs = e->ctx->regs;
	unsigned long sp;

	if (!e->ctx->user) {
		*val = regs_get_kernel_argument(regs, n);
		return 0;
	}
	if (n < TRING_PROBE_REG_ARGS) {
		*val = *(unsigned long *)((u8 *)regs + tring_probe_arg_reg(n));
		return 0;
	}
	/* Above the return address: the 7th argument at sp + 8. */
	sp = user_stack_pointer(regs);
	return tp_read(val, sp + 8 * ((unsigned long)n - 5), sizeof(*val),
		       true);
}

/* A load or source op: the new value into *@val; 0, or < 0: a fault. */
static nokprobe_inline int tp_step(const struct tp_eval *e,
				   const struct tring_probe_op *op,
				   unsigned long *val)
{
	struct pt_regs *regs = e->ctx->regs;
	bool user = e->ctx->user;

	switch (op->code) {
	case TRING_PROBE_OP_REG:
		if (op->param > sizeof(*regs) - sizeof(*val))
			return -EINVAL;
		*val = *(unsigned long *)((u8 *)regs + op->param);
		return 0;
	case TRING_PROBE_OP_ARG:
		return tp_arg(e, op->param, val);
	case TRING_PROBE_OP_RETVAL:
		*val = regs_return_value(regs);
		return 0;
	case TRING_PROBE_OP_STACK:
		if (!user) {
			*val = regs_get_kernel_stack_nth(regs, op->param);
			return 0;
		}
		return tp_read(val, user_stack_pointer(regs) +
			       8 * (unsigned long)op->param, sizeof(*val), true);
	case TRING_PROBE_OP_STACKP:
		*val = user ? user_stack_pointer(regs) :
			      kernel_stack_pointer(regs);
		return 0;
	case TRING_PROBE_OP_IMM:
		*val = op->imm;
		return 0;
	case TRING_PROBE_OP_FOFFS:
		*val = e->ctx->bp_addr - e->def->offset + op->imm;
		return 0;
	case TRING_PROBE_OP_DEREF:
	case TRING_PROBE_OP_UDEREF:
		return tp_read(val, *val + op->imm, sizeof(*val),
			       user || op->code == TRING_PROBE_OP_UDEREF);
	}
	/* TRING_PROBE_OP_SYMBOL not resolved, or not a load. */
	return -EINVAL;
}

/* Whether the store op @code stores a string. */
static nokprobe_inline bool tp_is_string(u8 code)
{
	return code >= TRING_PROBE_OP_ST_STRING &&
	       code <= TRING_PROBE_OP_ST_DATA;
}

/* The C string @s at @dst, cut to @room bytes: the bytes stored. */
static nokprobe_inline unsigned int tp_copy_str(char *dst, unsigned int room,
						const char *s)
{
	size_t n;

	if (!room)
		return 0;
	n = strnlen(s, room - 1);
	memcpy(dst, s, n);
	dst[n] = '\0';
	return n + 1;
}

/* Out of line: its buffer is on the stack only when it is needed. */
static noinline unsigned int tp_symstr_cut(char *dst, unsigned int room,
					   unsigned long val)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, val);
	return tp_copy_str(dst, room, buf);
}

NOKPROBE_SYMBOL(tp_symstr_cut);

/* "symbol+offset/size [module]" of @val at @dst: the bytes stored. */
static nokprobe_inline unsigned int tp_symstr(char *dst, unsigned int room,
					      unsigned long val)
{
	int n;

	if (room < KSYM_SYMBOL_LEN)
		return tp_symstr_cut(dst, room, val);
	n = sprint_symbol(dst, val);
	return n < 0 ? 0 : n + 1;
}

/*
 * The string at @addr into @dst, cut to @room (> 0) bytes: its bytes, NUL
 * included, or < 0: a fault. strncpy_from_kernel_nofault() and
 * strncpy_from_user_nofault() are not exported to modules: this reads
 * in pieces of at most TP_STR_CHUNK bytes, none across a page, and zeroes
 * what it read past the NUL.
 */
static nokprobe_inline long tp_read_string(char *dst, unsigned long addr,
					   unsigned int room, bool user)
{
	unsigned long n, done = 0;
	char *nul;

	do {
		n = PAGE_SIZE - ((addr + done) & (PAGE_SIZE - 1));
		n = min3(n, (unsigned long)TP_STR_CHUNK, room - done);
		if (tp_read(dst + done, addr + done, n, user))
			return -EFAULT;
		nul = memchr(dst + done, '\0', n);
		if (nul) {
			memset(nul + 1, 0, dst + done + n - nul - 1);
			return nul - dst + 1;
		}
		done += n;
	} while (done < room);
	dst[room - 1] = '\0';
	return room;
}

/* A string store's string at @dst, @room bytes (> 0): its bytes, or < 0. */
static nokprobe_inline long tp_fetch_string(const struct tp_eval *e,
					    const struct tring_probe_op *op,
					    char *dst, unsigned int room,
					    unsigned long val)
{
	bool user = e->ctx->user || op->code == TRING_PROBE_OP_ST_USTRING;
	unsigned int n;
	ssize_t ret;

	switch (op->code) {
	case TRING_PROBE_OP_ST_STRING:
	case TRING_PROBE_OP_ST_USTRING:
		return tp_read_string(dst, val + op->imm, room, user);
	case TRING_PROBE_OP_ST_SYMSTR:
		return tp_symstr(dst, room, val);
	case TRING_PROBE_OP_ST_COMM:
		/* The comm may change under us: strscpy() ends it anyway. */
		n = min_t(unsigned int, room, TASK_COMM_LEN);
		ret = strscpy(dst, current->comm, n);
		return ret < 0 ? n : ret + 1;
	}
	return tp_copy_str(dst, room, e->def->chars + op->param);
}

/* A string's store op @op into @field: 0, or the fault (@fault or its). */
static nokprobe_inline int tp_string(struct tp_eval *e,
				     const struct tring_probe_op *op,
				     u8 *field, unsigned long val, int fault)
{
	unsigned int room = e->pos < e->end ? e->end - e->pos : 0;
	char *dst = (char *)e->rec + e->pos;
	long len = 0;
	u32 loc;

	if (room && !fault) {
		len = tp_fetch_string(e, op, dst, room, val);
		if (len < 0)
			fault = len;
	}
	if (room && fault)
		len = tp_copy_str(dst, room, tp_fault_str);
	loc = (u32)len << 16 | min(e->pos, TP_LOC_MAX);
	memcpy(field, &loc, sizeof(loc));
	e->pos += len;
	return fault;
}

/* An integer's store op @op into @field: 0, or < 0 (@field unset). */
static nokprobe_inline int tp_store(const struct tp_eval *e,
				    const struct tring_probe_op *op,
				    u8 *field, unsigned int size,
				    unsigned long val)
{
	bool user = e->ctx->user;

	if (op->size != size || size > sizeof(val))
		return -EINVAL;
	switch (op->code) {
	case TRING_PROBE_OP_ST_VALUE:
		/* Little endian: the low bytes first. */
		memcpy(field, &val, size);
		return 0;
	case TRING_PROBE_OP_ST_UMEM:
		user = true;
		fallthrough;
	case TRING_PROBE_OP_ST_MEM:
		return tp_read(field, val + op->imm, size, user);
	}
	return -EINVAL;
}

/* Argument @arg's program, its field written: whether it faulted. */
static nokprobe_inline bool tp_run(struct tp_eval *e,
				   const struct tring_probe_arg *arg)
{
	const struct tring_probe_op *op = arg->ops, *st;
	u8 *field = e->rec + e->base + arg->offset;
	unsigned long val = 0;
	int ret = 0;

	if (!arg->nr_ops) {
		memset(field, 0, arg->size);
		return true;
	}
	st = op + arg->nr_ops - 1;
	for (; op < st && !ret; op++)
		ret = tp_step(e, op, &val);
	if (tp_is_string(st->code) && arg->size == sizeof(u32))
		return tp_string(e, st, field, val, ret);
	ret = ret ?: tp_store(e, st, field, arg->size, val);
	if (ret)
		memset(field, 0, arg->size);
	return ret;
}

/*
 * tring_probe_eval()'s programs, out of line: their frame is not the
 * direct definitions'.
 */
static noinline unsigned int tp_eval_programs(const struct tring_probe_def *def,
					      const struct tring_probe_ctx *ctx,
					      u8 *rec, unsigned int base,
					      unsigned int cap, u32 *faults)
{
	struct tp_eval e = {
		.def = def, .ctx = ctx, .rec = rec, .base = base,
		.pos = base + def->fixed_size, .end = min(cap, TP_LOC_MAX),
	};
	u64 head[2] = { ctx->ip, ctx->ret_ip };
	unsigned int i;
	u32 bits = 0;

	/* Nothing of the buffer's past shows between the fields. */
	memset(rec + base, 0, def->fixed_size);
	if (def->head_size <= sizeof(head))
		memcpy(rec + base, head, def->head_size);
	for (i = 0; i < def->nr_args; i++)
		if (tp_run(&e, &def->args[i]))
			bits |= 1U << min(i, 31U);
	*faults = bits;
	return e.pos - base;
}

NOKPROBE_SYMBOL(tp_eval_programs);

/**
 * tring_probe_eval - run a definition's fetch programs at a hit
 * @def: the definition, its TRING_PROBE_OP_SYMBOL ops resolved (one left
 *	is a fault of its argument).
 * @ctx: the hit.
 * @rec: the record's buffer, @cap bytes.
 * @base: where @def's record starts in @rec: its fields at @rec + @base,
 *	its strings' __data_loc offsets counted from @rec.
 * @cap: bytes of @rec; @base + @def->fixed_size <= @cap.
 * @faults: set to the arguments that faulted: bit i for argument i, bit
 *	31 for the 32nd and any after it.
 *
 * Writes the probe's own fields (__probe_ip; a return probe's
 * __probe_func and __probe_ret_ip), every argument's field, and after the
 * fixed part the strings, each cut to the room left below @cap (its NUL
 * kept; none at all, length 0, if not one byte is left: then it is not
 * read, and no fault is known; no string starts past 64 KiB, where a
 * __data_loc offset ends). An argument that faults stores 0, or for a
 * string "(fault)". The fixed part's padding is zeroed; past the bytes
 * returned, up to @cap, zeroes may be written (a string is read in
 * pieces). Any context, NMI included: it never sleeps, locks or
 * allocates, and reads only with the nofault readers.
 *
 * Return: the bytes written from @rec + @base: the fixed part and the
 * strings; 0 if @cap has no room for the fixed part.
 */
unsigned int tring_probe_eval(const struct tring_probe_def *def,
			      const struct tring_probe_ctx *ctx, u8 *rec,
			      unsigned int base, unsigned int cap, u32 *faults)
{
	*faults = 0;
	if (base + def->fixed_size > cap)
		return 0;
	if (!def->direct)
		return tp_eval_programs(def, ctx, rec, base, cap, faults);
	tring_probe_eval_direct(def, ctx, rec + base);
	return def->fixed_size;
}

NOKPROBE_SYMBOL(tring_probe_eval);
