// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: twin_probe_eval's world: the memory the nofault readers
 * see, kallsyms' sprint_symbol(), the registers at the hit, and the
 * records expected (see twin_probe_eval.h).
 */
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "twin.h"
#include "twin_probe_eval.h"

/* ---- memory: ranges declared mapped, as kernel or user memory ---- */

/* As x86-64's: user addresses end below this one, kernel ones above. */
#define USER_END	0x00007ffffffff000UL

struct region {
	unsigned long addr;
	size_t len;
	u8 *mem;
	bool user;
};

static u8 kmem[8192], kstack[4096], umem[8192], ustack[4096];
static struct region regions[] = {
	{ KMEM, sizeof(kmem), kmem, false },
	{ KSTACK, sizeof(kstack), kstack, false },
	{ UMEM, sizeof(umem), umem, true },
	{ USTACK, sizeof(ustack), ustack, true },
};

unsigned long nr_reads;

static long twin_read(void *dst, unsigned long src, size_t size, bool user)
{
	const struct region *r;

	nr_reads++;
	for (r = regions; r < regions + ARRAY_SIZE(regions); r++)
		if (r->user == user && src >= r->addr && size <= r->len &&
		    src - r->addr <= r->len - size) {
			memcpy(dst, r->mem + (src - r->addr), size);
			return 0;
		}
	return -EFAULT;
}

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	/* x86-64's copy_from_kernel_nofault_allowed(): no user address. */
	if ((unsigned long)src < USER_END + 4096)
		return -ERANGE;
	return twin_read(dst, (unsigned long)src, size, false);
}

long copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	unsigned long a = (unsigned long)src;

	/* access_ok() */
	if (a > USER_END || size > USER_END - a)
		return -EFAULT;
	return twin_read(dst, a, size, true);
}

/* A kernel or user address's bytes, to fill in. */
void *at(unsigned long addr)
{
	const struct region *r;

	for (r = regions; r < regions + ARRAY_SIZE(regions); r++)
		if (addr >= r->addr && addr - r->addr < r->len)
			return r->mem + (addr - r->addr);
	abort();
}

void put_word(unsigned long addr, unsigned long v)
{
	memcpy(at(addr), &v, sizeof(v));
}

/* ---- kallsyms: a few symbols ---- */

int sprint_symbol(char *buffer, unsigned long address)
{
	static const struct {
		unsigned long addr, size;
		const char *name, *mod;
	} syms[] = {
		{ SYM_VFS_READ, 0x100, "vfs_read", NULL },
		{ SYM_EXT4, 0x80, "ext4_sync_file", "ext4" },
		{ SYM_LONG, 0x40,
		  "a_function_with_a_name_long_enough_to_be_cut_in_a_small_record",
		  "mod" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		if (address - syms[i].addr >= syms[i].size)
			continue;
		return snprintf(buffer, KSYM_SYMBOL_LEN, "%s+%#lx/%#lx%s%s%s",
				syms[i].name, address - syms[i].addr,
				syms[i].size, syms[i].mod ? " [" : "",
				syms[i].mod ?: "", syms[i].mod ? "]" : "");
	}
	return snprintf(buffer, KSYM_SYMBOL_LEN, "%#lx", address);
}

/* ---- the machine at the hit ---- */

struct pt_regs regs;

void setup(void)
{
	unsigned int i;

	memset(kmem, 0, sizeof(kmem));
	memset(umem, 0, sizeof(umem));
	for (i = 0; i < sizeof(kstack) / 8; i++)
		put_word(KSTACK + 8 * i, 0x5000 + i);
	for (i = 0; i < sizeof(ustack) / 8; i++)
		put_word(USTACK + 8 * i, 0x7000 + i);
	memset(&regs, 0, sizeof(regs));
	regs.r15 = 0x1515;
	regs.r14 = KMEM + 0x10;
	regs.r13 = UMEM + 0x20;
	regs.r12 = SYM_VFS_READ + 0x10;
	regs.bp = 0xb0b0;
	regs.bx = UMEM + 0x40;
	regs.r11 = UNMAPPED_K;
	regs.r10 = KMEM + 0x500;
	regs.r9 = 0x99;
	regs.r8 = 0x88;
	regs.ax = 0;
	regs.cx = 0xcc;
	regs.dx = 0x1122334455667788UL;
	regs.si = KMEM + 0x100;
	regs.di = KMEM + 0x10;
	regs.orig_ax = 0xffffffffffffffffUL;
	regs.ip = SYM_VFS_READ;
	regs.cs = 0x10;
	regs.flags = 0x246;
	regs.sp = KSTACK + 0x40;
	regs.ss = 0x18;
	/* what the registers point at */
	put_word(KMEM + 0x10, KMEM + 0x200);
	put_word(KMEM + 0x200, KMEM + 0x300);
	put_word(KMEM + 0x208, KMEM + 0x400);
	strcpy(at(KMEM + 0x300), "nested");
	memcpy(at(KMEM + 0x404), "\xef\xbe", 2);
	strcpy(at(KMEM + 0x100), "/etc/passwd");
	put_word(KMEM + 0x500, UNMAPPED_K + 0x1000);
	memcpy(at(UMEM + 0x20), "\xfe\xca", 2);
	strcpy(at(UMEM + 0x40), "user str");
	strcpy(twin_task.comm, "twin-eval");
}

const struct tring_probe_ctx kctx = {
	.regs = &regs, .ip = SYM_VFS_READ,
};

/* ---- records: what was written, what should have been ---- */

u8 rec[1024];

/* The definition of @line; NULL (a failed check) if refused. */
struct tring_probe_def *parse(int file, const char *line)
{
	struct tring_probe_error err = { 0 };
	struct tring_probe_def *d = tring_probe_parse(line, file, &err);

	if (!check(!IS_ERR_OR_NULL(d), "'%s' refused at %u: %s", line, err.pos,
		   err.msg ?: "-"))
		return NULL;
	return d;
}

unsigned int run(const struct tring_probe_def *d,
		 const struct tring_probe_ctx *c, unsigned int base,
		 unsigned int cap, u32 *faults)
{
	memset(rec, POISON, sizeof(rec));
	*faults = 0xdeadbeef;
	return tring_probe_eval(d, c, rec, base, cap, faults);
}

void w_int(struct want *w, unsigned int off, u64 v, unsigned int size)
{
	memcpy(w->b + off, &v, size);
	if (off + size > w->n)
		w->n = off + size;
}

/* String @s (@len bytes, NUL included) next, its word at @field. */
void w_str(struct want *w, unsigned int field, const char *s,
	   unsigned int len)
{
	u32 loc = len << 16 | (w->base + w->n);

	memcpy(w->b + field, &loc, 4);
	memcpy(w->b + w->n, s, len);
	w->n += len;
}

void w_cstr(struct want *w, unsigned int field, const char *s)
{
	w_str(w, field, s, strlen(s) + 1);
}

static void hexdump(const char *what, const u8 *p, unsigned int n)
{
	char line[3 * 32 + 1];
	unsigned int i, j;

	for (i = 0; i < n; i += 32) {
		for (j = 0; j < 32 && i + j < n; j++)
			sprintf(line + 3 * j, " %02x", p[i + j]);
		tap_diag("%s +%u:%s", what, i, line);
	}
}

/* rec against @w: @got returned, @cap given; @what names the run. */
static void expect(const struct want *w, unsigned int got, unsigned int cap,
		   const char *what)
{
	unsigned int i;
	bool ok = true;

	check(got == w->n, "%s: returned %u, want %u", what, got, w->n);
	for (i = 0; i < w->base; i++)
		ok &= check(rec[i] == POISON, "%s: byte %u before base written",
			    what, i);
	if (!check(!memcmp(rec + w->base, w->b, w->n), "%s: record differs",
		   what)) {
		hexdump("got ", rec + w->base, w->n);
		hexdump("want", w->b, w->n);
	}
	for (i = w->base + w->n; i < cap && ok; i++)
		ok = check(rec[i] == POISON || !rec[i],
			   "%s: byte %u past the record is %#x", what, i, rec[i]);
	for (i = cap; i < sizeof(rec) && ok; i++)
		ok = check(rec[i] == POISON, "%s: byte %u past cap written",
			   what, i);
}

/* Run @d with @c from @base to @cap against @w, and the fault bits. */
void eval_expect(const struct tring_probe_def *d,
		 const struct tring_probe_ctx *c, struct want *w,
		 unsigned int cap, u32 faults, const char *what)
{
	unsigned int got;
	u32 f;

	got = run(d, c, w->base, cap, &f);
	expect(w, got, cap, what);
	check(f == faults, "%s: faults %#x, want %#x", what, f, faults);
}

/* A fresh expected record at @base with the head of a probe at @ip. */
void w_begin(struct want *w, unsigned int base, u64 ip)
{
	memset(w, 0, sizeof(*w));
	w->base = base;
	w_int(w, 0, ip, 8);
}
