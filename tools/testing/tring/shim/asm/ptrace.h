/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: x86-64's struct pt_regs, the kernel's layout (its
 * field names and order), for the probe parser's register offsets, and
 * the accessors the probe evaluator uses, as x86-64's (the kernel stack
 * read through copy_from_kernel_nofault(), 0 where it faults).
 */
#ifndef _TWIN_ASM_PTRACE_H
#define _TWIN_ASM_PTRACE_H

#include <stddef.h>

struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

long copy_from_kernel_nofault(void *dst, const void *src, size_t size);

static inline unsigned long regs_return_value(struct pt_regs *regs)
{
	return regs->ax;
}

static inline unsigned long kernel_stack_pointer(struct pt_regs *regs)
{
	return regs->sp;
}

static inline unsigned long user_stack_pointer(struct pt_regs *regs)
{
	return regs->sp;
}

static inline unsigned long regs_get_kernel_stack_nth(struct pt_regs *regs,
						      unsigned int n)
{
	unsigned long val;

	if (copy_from_kernel_nofault(&val, (void *)(regs->sp + 8UL * n),
				     sizeof(val)))
		return 0;
	return val;
}

/* Arguments 7 and on: above the return address, at the stack's top. */
static inline unsigned long regs_get_kernel_argument(struct pt_regs *regs,
						     unsigned int n)
{
	const unsigned long args[] = {
		regs->di, regs->si, regs->dx, regs->cx, regs->r8, regs->r9,
	};

	if (n >= 6)
		return regs_get_kernel_stack_nth(regs, n - 5);
	return args[n];
}

#endif /* _TWIN_ASM_PTRACE_H */
