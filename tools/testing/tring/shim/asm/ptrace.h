/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: x86-64's struct pt_regs, the kernel's layout (its
 * field names and order), for the probe parser's register offsets.
 */
#ifndef _TWIN_ASM_PTRACE_H
#define _TWIN_ASM_PTRACE_H

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

#endif /* _TWIN_ASM_PTRACE_H */
