/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mark tring_insn.so (the QEMU plugin) answers: a NOP that writes
 * every vCPU's instruction counts so far to the plugin's output.
 */
#ifndef TRING_INSN_MARK_H
#define TRING_INSN_MARK_H

/*
 * nopw 0x474e5254(%rax,%rax,1): "TRNG" as its displacement; %rax holds
 * TAG, which the plugin writes with the counts.
 */
/* Tags that switch the plugin's profile (prof=FILE) on and off. */
#define TRING_INSN_PROF_ON	0x6e6f7270UL	/* "pron" */
#define TRING_INSN_PROF_OFF	0x666f7270UL	/* "prof" */

static inline void tring_insn_mark_tag(unsigned long tag)
{
	asm volatile(".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x54, 0x52, 0x4e, 0x47"
		     : : "a"(tag) : "memory");
}

static inline void tring_insn_mark(void)
{
	tring_insn_mark_tag(0);
}

#endif
