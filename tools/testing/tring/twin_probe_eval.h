/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin: what twin_probe_eval.c takes from twin_probe_eval_env.c.
 *
 * Memory is what is declared here mapped, as kernel or as user memory;
 * anything else faults, and, as on x86-64, a kernel read of a user
 * address and a user read of a kernel one fault too. The registers are
 * x86-64's pt_regs, set by setup(). A record is checked byte for byte,
 * around it too: nothing before its base or past cap written, nothing but
 * zeroes between the bytes returned and cap.
 */
#ifndef _TWIN_PROBE_EVAL_H
#define _TWIN_PROBE_EVAL_H

#include <asm/ptrace.h>

#include "tring_probe.h"

#define K	TRING_PROBE_FILE_KPROBE
#define U	TRING_PROBE_FILE_UPROBE

#define KMEM	0xffff888012340000UL	/* kernel data, 2 pages */
#define KSTACK	0xffffc90000010000UL	/* a kernel stack, 1 page */
#define UMEM	0x00007f0000000000UL	/* user data, 2 pages */
#define USTACK	0x00007ffd00000000UL	/* a user stack, 1 page */
#define UNMAPPED_K	0xffff8880aaaa0000UL

/* sprint_symbol() knows these; other addresses it prints as "0x...". */
#define SYM_VFS_READ	0xffffffff81000000UL	/* vfs_read, 0x100 bytes */
#define SYM_EXT4	0xffffffffc0001000UL	/* ext4_sync_file [ext4] */
#define SYM_LONG	0xffffffff81200000UL	/* a long name [mod] */

/* Reads of memory so far, mapped or not. */
extern unsigned long nr_reads;
/* The bytes of a mapped address, to fill in; aborts if unmapped. */
void *at(unsigned long addr);
void put_word(unsigned long addr, unsigned long v);

/*
 * The machine at the hit, as setup() leaves it: registers r15 0x1515,
 * r14 KMEM + 0x10, r13 UMEM + 0x20, r12 SYM_VFS_READ + 0x10, bp 0xb0b0,
 * bx UMEM + 0x40, r11 UNMAPPED_K, r10 KMEM + 0x500, r9 0x99, r8 0x88,
 * ax 0, cx 0xcc, dx 0x1122334455667788, si KMEM + 0x100, di KMEM + 0x10,
 * ip SYM_VFS_READ, sp KSTACK + 0x40; kernel stack words 0x5000 + i, user
 * stack words 0x7000 + i; KMEM + 0x10: KMEM + 0x200, + 0x200: KMEM +
 * 0x300, + 0x208: KMEM + 0x400, + 0x300: "nested", + 0x404: u16 0xbeef,
 * + 0x100: "/etc/passwd", + 0x500: UNMAPPED_K + 0x1000; UMEM + 0x20: u16
 * 0xcafe, + 0x40: "user str"; the task's comm "twin-eval".
 */
extern struct pt_regs regs;
void setup(void);
/* A kprobe's hit at SYM_VFS_READ. */
extern const struct tring_probe_ctx kctx;

#define POISON	0xa5
/* The record's buffer: POISON, then what tring_probe_eval() wrote. */
extern u8 rec[1024];

/* The definition of @line; NULL (a failed check) if refused. */
struct tring_probe_def *parse(int file, const char *line);
/* rec poisoned, then @d evaluated into it: what it returns. */
unsigned int run(const struct tring_probe_def *d,
		 const struct tring_probe_ctx *c, unsigned int base,
		 unsigned int cap, u32 *faults);

/* The record expected from @base, built field by field. */
struct want {
	u8 b[512];
	unsigned int n;		/* bytes from base */
	unsigned int base;
};

/* A fresh record at @base with __probe_ip @ip. */
void w_begin(struct want *w, unsigned int base, u64 ip);
/* The @size low bytes of @v at @off. */
void w_int(struct want *w, unsigned int off, u64 v, unsigned int size);
/* String @s (@len bytes, NUL included) next, its word at @field. */
void w_str(struct want *w, unsigned int field, const char *s,
	   unsigned int len);
/* The C string @s next, its NUL included. */
void w_cstr(struct want *w, unsigned int field, const char *s);

/* Run @d with @c from @w->base to @cap: @w's bytes and @faults? */
void eval_expect(const struct tring_probe_def *d,
		 const struct tring_probe_ctx *c, struct want *w,
		 unsigned int cap, u32 faults, const char *what);

#endif /* _TWIN_PROBE_EVAL_H */
