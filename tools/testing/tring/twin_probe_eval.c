// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the dynamic probes' fetch-program evaluator
 * (kernel/trace/tring_probe_eval.c, the kernel's own file) in user space,
 * on definitions that tring_probe_parse() made from real lines: every
 * source and store op, nested loads, faults at each level and their
 * bits, strings cut at cap, kprobes' and uprobes' $argN, return probes'
 * heads, @SYM, symstr. The world it runs in: twin_probe_eval_env.c.
 */
#include <linux/err.h>
#include <linux/sched.h>

#include "twin.h"
#include "twin_probe_eval.h"

/* ---- the cases ---- */

static void t_sources(void)
{
	struct tring_probe_def *d;
	struct want w;

	setup();
	d = parse(K, "p:g/src vfs_read r=%r15 a1=$arg1 a6=$arg6 a7=$arg7 a8=$arg8 s0=$stack0 s3=$stack3 sp=$stack i=\\0x1234 ip=%ip big=$stack2048");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, 0x1515, 8);
	w_int(&w, 16, KMEM + 0x10, 8);
	w_int(&w, 24, 0x99, 8);
	/* regs_get_kernel_argument(): the 7th above the return address */
	w_int(&w, 32, 0x5009, 8);
	w_int(&w, 40, 0x500a, 8);
	w_int(&w, 48, 0x5008, 8);
	w_int(&w, 56, 0x500b, 8);
	w_int(&w, 64, KSTACK + 0x40, 8);
	w_int(&w, 72, 0x1234, 8);
	w_int(&w, 80, SYM_VFS_READ, 8);
	/* off the stack: regs_get_kernel_stack_nth() gives 0, no fault */
	w_int(&w, 88, 0, 8);
	eval_expect(d, &kctx, &w, 512, 0, "kprobe sources");
	tring_probe_free(d);
}

static void t_stores(void)
{
	struct tring_probe_def *d;
	struct want w;

	setup();
	d = parse(K, "p:g/st vfs_read v1=%dx:u8 v2=%dx:s16 v4=%dx:x32 v8=%dx:u64 m=+0(%di):u32 um=+u0(%r13):u16 s=+0(%si):string us=+u0(%bx):ustring sy=%r12:symstr c=$comm d=\\\"hello\"");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, 0x88, 1);
	w_int(&w, 10, 0x7788, 2);
	w_int(&w, 12, 0x55667788, 4);
	w_int(&w, 16, 0x1122334455667788UL, 8);
	w_int(&w, 24, 0x12340200, 4);
	w_int(&w, 28, 0xcafe, 2);
	w.n = 52;
	w_cstr(&w, 32, "/etc/passwd");
	w_cstr(&w, 36, "user str");
	w_cstr(&w, 40, "vfs_read+0x10/0x100");
	w_cstr(&w, 44, "twin-eval");
	w_cstr(&w, 48, "hello");
	eval_expect(d, &kctx, &w, 512, 0, "every store");
	/* the same at an odd base: unaligned fields, offsets from rec */
	w.base = 3;
	w.n = 52;
	w_cstr(&w, 32, "/etc/passwd");
	w_cstr(&w, 36, "user str");
	w_cstr(&w, 40, "vfs_read+0x10/0x100");
	w_cstr(&w, 44, "twin-eval");
	w_cstr(&w, 48, "hello");
	eval_expect(d, &kctx, &w, 512, 0, "every store at base 3");
	tring_probe_free(d);
}

static void t_nested(void)
{
	struct tring_probe_def *d;
	struct want w;

	setup();
	d = parse(K, "p:g/n vfs_read a=+8(+0(%di)):u64 b=+4(+8(+0(%di))):u16 c=+0(+0(+0(%di))):string");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, KMEM + 0x400, 8);
	w_int(&w, 16, 0xbeef, 2);
	w.n = 24;
	w_cstr(&w, 20, "nested");
	eval_expect(d, &kctx, &w, 512, 0, "nested dereferences");
	tring_probe_free(d);
}

static void t_faults(void)
{
	struct tring_probe_def *d;
	struct want w;
	unsigned int i;

	setup();
	d = parse(K, "p:g/f vfs_read a=+0(%ax):u32 b=+0(+0(%r10)):u64 c=+0(%r11):u64 d=+0(%r13):u64 e=+u0(%r14):u64 f=+0(%ax):string g=+0(+0(%r11)):string h=+u0(%r14):ustring i=+0(%r13):string j=%r15:u16");
	if (!d)
		return;
	/* NULL, unmapped at the 2nd and the 1st level, user as kernel,
	 * kernel as user: integers 0, strings "(fault)"
	 */
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 64, 0x1515, 2);
	w.n = 66;
	for (i = 0; i < 4; i++)
		w_cstr(&w, 48 + 4 * i, "(fault)");
	eval_expect(d, &kctx, &w, 512, 0x1ff, "a fault at each level");
	tring_probe_free(d);
}

static void t_pages(void)
{
	char longs[101];
	struct tring_probe_def *d;
	struct want w;

	setup();
	strcpy(at(KMEM + 0xffe), "0123456789");
	strcpy(at(KMEM + 0x1ffc), "abc");
	memcpy(at(UMEM + 0x1ffc), "wxyz", 4);
	memset(longs, 'L', 100);
	longs[100] = '\0';
	strcpy(at(KMEM + 0x1800), longs);
	regs.r15 = KMEM + 0xffe;
	regs.r14 = KMEM + 0x1ffc;
	regs.r13 = UMEM + 0x1ffc;
	regs.r12 = KMEM + 0x1800;
	d = parse(K, "p:g/pg vfs_read a=+0(%r15):string b=+0(%r14):string c=+u0(%r13):ustring d=+0(%r12):string");
	if (!d)
		return;
	/* across a page; its NUL last in the page; none: the next page */
	w_begin(&w, 0, SYM_VFS_READ);
	w.n = 24;
	w_cstr(&w, 8, "0123456789");
	w_cstr(&w, 12, "abc");
	w_cstr(&w, 16, "(fault)");
	w_str(&w, 20, longs, sizeof(longs));
	eval_expect(d, &kctx, &w, 512, 1 << 2, "strings at pages' ends");
	tring_probe_free(d);
}

/* 33 or 40 arguments of %r15, those in @bad "+0(%r11)". */
static void many(unsigned int n, u64 bad, u32 faults)
{
	char line[1024] = "p:g/lots vfs_read";
	struct tring_probe_def *d;
	struct want w;
	unsigned int i;
	char what[64];

	setup();
	for (i = 0; i < n; i++)
		strcat(line, bad >> i & 1 ? " +0(%r11)" : " %r15");
	d = parse(K, line);
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	for (i = 0; i < n; i++)
		w_int(&w, 8 + 8 * i, bad >> i & 1 ? 0 : 0x1515, 8);
	snprintf(what, sizeof(what), "%u arguments, faults %#llx", n,
		 (unsigned long long)bad);
	eval_expect(d, &kctx, &w, 512, faults, what);
	tring_probe_free(d);
}

static void t_fault_bits(void)
{
	many(33, 1ULL << 5 | 1ULL << 31 | 1ULL << 32, 1U << 5 | 1U << 31);
	many(33, 1ULL << 32, 1U << 31);
	many(40, 1ULL << 35, 1U << 31);
	many(40, 1ULL << 30, 1U << 30);
}

/* A broken promise: no room for the fixed part, nothing written. */
static void no_room(const struct tring_probe_def *d, unsigned int b)
{
	unsigned int got;
	u32 f;

	got = run(d, &kctx, b, b + d->fixed_size - 1, &f);
	check(got == 0 && f == 0, "cap below the fixed part: %u, %#x", got, f);
	for (got = 0; got < sizeof(rec); got++)
		if (!check(rec[got] == POISON, "byte %u written", got))
			break;
}

static void t_truncation(void)
{
	struct tring_probe_def *d;
	unsigned int b = 20;
	struct want w;

	setup();
	d = parse(K, "p:g/t vfs_read a=+0(%si):string b=\\\"xyz\" c=%dx:u8 f=+0(%r11):string m=$comm");
	if (!d)
		return;
	/* 28 bytes fixed; the strings from rec + 48, cut at cap */
	w_begin(&w, b, SYM_VFS_READ);
	w_int(&w, 16, 0x88, 1);
	w.n = 28;
	w_cstr(&w, 8, "/etc");
	w_str(&w, 12, "", 0);
	w_str(&w, 20, "", 0);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, b + 28 + 5, 0, "room for 5 bytes");
	w.n = 28;
	w_cstr(&w, 8, "/etc/passwd");
	w_str(&w, 12, "x", 2);
	w_str(&w, 20, "", 0);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, b + 28 + 14, 0, "room for 14 bytes");
	w.n = 28;
	w_cstr(&w, 8, "/etc/passwd");
	w_cstr(&w, 12, "xyz");
	w_str(&w, 20, "(f", 3);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, b + 28 + 19, 1 << 3, "\"(fault)\" cut");
	w.n = 28;
	w_cstr(&w, 8, "/etc/passwd");
	w_cstr(&w, 12, "xyz");
	w_cstr(&w, 20, "(fault)");
	w_str(&w, 24, "twi", 4);
	eval_expect(d, &kctx, &w, b + 28 + 28, 1 << 3, "$comm cut");
	w.n = 28;
	w_cstr(&w, 8, "/etc/passwd");
	w_cstr(&w, 12, "xyz");
	w_cstr(&w, 20, "(fault)");
	w_cstr(&w, 24, "twin-eval");
	eval_expect(d, &kctx, &w, 512, 1 << 3, "room for all");
	w.n = 28;
	w_str(&w, 8, "", 0);
	w_str(&w, 12, "", 0);
	w_str(&w, 20, "", 0);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, b + 28, 0, "no room for strings");
	no_room(d, b);
	tring_probe_free(d);
}

static void t_args(void)
{
	struct tring_probe_ctx uctx = { .regs = &regs, .user = true };
	struct tring_probe_def *d;
	struct want w;

	setup();
	d = parse(K, "p:g/args vfs_read $arg1 $arg2 $arg3 $arg4 $arg5 $arg6 $arg7 $arg8");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, KMEM + 0x10, 8);
	w_int(&w, 16, KMEM + 0x100, 8);
	w_int(&w, 24, 0x1122334455667788UL, 8);
	w_int(&w, 32, 0xcc, 8);
	w_int(&w, 40, 0x88, 8);
	w_int(&w, 48, 0x99, 8);
	w_int(&w, 56, 0x5009, 8);
	w_int(&w, 64, 0x500a, 8);
	eval_expect(d, &kctx, &w, 512, 0, "kprobe: $arg7 on the kernel stack");
	/* The parser refuses $argN on a uprobe (ftrace 6.1 does): the same
	 * program run as a uprobe's (ctx->user)
	 */
	regs.sp = USTACK + 0x80;
	w_int(&w, 0, 0, 8);
	w_int(&w, 56, 0x7011, 8);
	w_int(&w, 64, 0x7012, 8);
	eval_expect(d, &uctx, &w, 512, 0, "uprobe: $arg7 on the user stack");
	regs.sp = USTACK + 0xff8;
	w_int(&w, 56, 0, 8);
	w_int(&w, 64, 0, 8);
	eval_expect(d, &uctx, &w, 512, 3 << 6, "uprobe: the user stack unmapped");
	tring_probe_free(d);
	d = parse(U, "p:g/us /bin/x:0x100 $stack0 $stack2 $stack");
	if (!d)
		return;
	regs.sp = USTACK + 0x80;
	w_begin(&w, 0, 0);
	w_int(&w, 8, 0x7010, 8);
	w_int(&w, 16, 0x7012, 8);
	w_int(&w, 24, USTACK + 0x80, 8);
	eval_expect(d, &uctx, &w, 512, 0, "uprobe: $stackN, $stack");
	tring_probe_free(d);
}

static void t_return(void)
{
	struct tring_probe_ctx rctx = {
		.regs = &regs, .ip = SYM_VFS_READ, .ret_ip = 0xffffffff81234567UL,
	};
	struct tring_probe_def *d;
	struct want w;

	setup();
	regs.ax = -2UL;
	d = parse(K, "r:g/r f ret=$retval:s32");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, 0xffffffff81234567UL, 8);
	w_int(&w, 16, 0xfffffffe, 4);
	eval_expect(d, &rctx, &w, 512, 0, "kretprobe: head, $retval");
	tring_probe_free(d);
	d = parse(U, "r:g/ur /bin/x:0x100 $retval +0($retval):u8");
	if (!d)
		return;
	rctx.user = true;
	rctx.ip = UMEM + 0x1100;
	rctx.ret_ip = UMEM + 0x1234;
	regs.ax = UMEM + 0x20;
	w_begin(&w, 0, UMEM + 0x1100);
	w_int(&w, 8, UMEM + 0x1234, 8);
	w_int(&w, 16, UMEM + 0x20, 8);
	w_int(&w, 24, 0xfe, 1);
	eval_expect(d, &rctx, &w, 512, 0, "uretprobe: head, $retval, memory");
	tring_probe_free(d);
}

/* What the caller does before use: @SYM's op into an address. */
static void resolve(struct tring_probe_def *d)
{
	static const struct {
		const char *name;
		unsigned long addr;
	} syms[] = { { "jiffies", KMEM + 0x700 }, { "banner", KMEM + 0x800 } };
	struct tring_probe_op *op;
	unsigned int i, j;

	for (i = 0; i < d->nr_ops; i++) {
		op = (struct tring_probe_op *)&d->ops[i];
		for (j = 0; j < ARRAY_SIZE(syms); j++)
			if (op->code == TRING_PROBE_OP_SYMBOL &&
			    !strcmp(d->chars + op->param, syms[j].name)) {
				op->code = TRING_PROBE_OP_IMM;
				op->imm += syms[j].addr;
			}
	}
}

static void t_symbols(void)
{
	struct tring_probe_def *d;
	struct want w;

	setup();
	put_word(KMEM + 0x700, 0x123456789UL);
	put_word(KMEM + 0x708, 0xabcd0001UL);
	strcpy(at(KMEM + 0x800), "Linux version");
	put_word(KMEM + 0x600, 0x4242);
	d = parse(K, "p:g/sym vfs_read a=@jiffies b=@jiffies+8:u32 s=@banner:string c=@0xffff888012340600:u16");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 24, 0x4242, 2);
	w.n = 26;
	w_cstr(&w, 20, "(fault)");
	eval_expect(d, &kctx, &w, 512, 7, "@SYM unresolved: faults");
	resolve(d);
	w_int(&w, 8, 0x123456789UL, 8);
	w_int(&w, 16, 0xabcd0001, 4);
	w.n = 26;
	w_cstr(&w, 20, "Linux version");
	eval_expect(d, &kctx, &w, 512, 0, "@SYM resolved");
	tring_probe_free(d);
}

static void t_symstr(void)
{
	static const char lng[] =
		"a_function_with_a_name_long_enough_to_be_cut_in_a_small_record+0x3/0x40 [mod]";
	struct tring_probe_def *d;
	struct want w;

	setup();
	regs.r13 = SYM_EXT4 + 8;
	regs.r14 = KMEM + 0x900;
	put_word(KMEM + 0x900, SYM_LONG + 3);
	regs.r10 = SYM_VFS_READ + 0x100;
	d = parse(K, "p:g/sy vfs_read a=%r12:symstr b=%r13:symstr c=+0(%r14):symstr d=+0(%r11):symstr e=%r10:symstr");
	if (!d)
		return;
	/* room for KSYM_SYMBOL_LEN (96 here): straight into the record */
	w_begin(&w, 0, SYM_VFS_READ);
	w.n = 28;
	w_cstr(&w, 8, "vfs_read+0x10/0x100");
	w_cstr(&w, 12, "ext4_sync_file+0x8/0x80 [ext4]");
	w_str(&w, 16, lng, sizeof(lng));
	w_cstr(&w, 20, "(fault)");
	w_cstr(&w, 24, "0xffffffff81000100");
	eval_expect(d, &kctx, &w, 512, 1 << 3, "symstr in the record");
	/* less: through the stack buffer, cut */
	w.n = 28;
	w_cstr(&w, 8, "vfs_read+0x10/0x100");
	w_str(&w, 12, "ext4_sync_file+0x8/0x80 [ext4", 30);
	w_str(&w, 16, "", 0);
	w_str(&w, 20, "", 0);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, 28 + 50, 1 << 3, "symstr cut");
	w.n = 28;
	w_cstr(&w, 8, "vfs_read+0x10/0x100");
	w_cstr(&w, 12, "ext4_sync_file+0x8/0x80 [ext4]");
	w_str(&w, 16, "a_function_with_a_name_long_enough_to_", 39);
	w_str(&w, 20, "", 0);
	w_str(&w, 24, "", 0);
	eval_expect(d, &kctx, &w, 28 + 20 + 31 + 39, 1 << 3,
		    "symstr cut, a module's");
	tring_probe_free(d);
}

static void t_user_ctx(void)
{
	struct tring_probe_ctx uctx = { .regs = &regs, .user = true };
	struct tring_probe_def *d;
	struct want w;

	setup();
	regs.di = UMEM + 0x20;
	regs.si = UMEM + 0x60;
	put_word(UMEM + 0x60, UMEM + 0x80);
	memcpy(at(UMEM + 0x84), "\x34\x12", 2);
	d = parse(K, "p:g/ku vfs_read m=+0(%di):u16 n=+4(+0(%si)):u16 s=+0(%bx):string");
	if (!d)
		return;
	/* a uprobe's: memory, loads and strings are the user's */
	w_begin(&w, 0, 0);
	w_int(&w, 8, 0xcafe, 2);
	w_int(&w, 10, 0x1234, 2);
	w.n = 16;
	w_cstr(&w, 12, "user str");
	eval_expect(d, &uctx, &w, 512, 0, "ctx->user: the same ops read user memory");
	/* a kprobe's: none of them */
	w_begin(&w, 0, SYM_VFS_READ);
	w.n = 16;
	w_cstr(&w, 12, "(fault)");
	eval_expect(d, &kctx, &w, 512, 7, "a kprobe reads no user memory");
	tring_probe_free(d);
}

static void t_lines(void)
{
	struct tring_probe_ctx uctx = {
		.regs = &regs, .ip = UMEM + 0x1100, .bp_addr = UMEM + 0x1100,
		.user = true,
	};
	struct tring_probe_error err;
	struct tring_probe_def *d;
	struct want w;

	setup();
	regs.di = -100UL;
	d = parse(K, "p:g/e do_sys_open dfd=%di name=+0(%si):string flags=%dx:x32 c=$comm");
	if (!d)
		return;
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 8, -100UL, 8);
	w_int(&w, 20, 0x55667788, 4);
	w.n = 28;
	w_cstr(&w, 16, "/etc/passwd");
	w_cstr(&w, 24, "twin-eval");
	eval_expect(d, &kctx, &w, 512, 0, "do_sys_open");
	/* its real filename: user memory, which :string does not read */
	regs.si = UMEM + 0x40;
	w.n = 28;
	w_cstr(&w, 16, "(fault)");
	w_cstr(&w, 24, "twin-eval");
	eval_expect(d, &kctx, &w, 512, 1 << 1, "do_sys_open, a user filename");
	tring_probe_free(d);

	d = tring_probe_parse("p /bin/x:0x100 a=$arg1 b=+4($arg2):u16 s=+0(%si):ustring o=@+0x10:u32",
			      U, &err);
	check(IS_ERR(d) && err.pos == 17,
	      "a uprobe's $argN: refused at 17, as by ftrace 6.1");
	if (!IS_ERR_OR_NULL(d))
		tring_probe_free(d);
	d = parse(U, "p /bin/x:0x100 a=%di b=+4(%si):u16 s=+0(%si):ustring o=@+0x10:u32");
	if (!d)
		return;
	regs.di = 7;
	put_word(UMEM + 0x1010, 0x10203040);
	w_begin(&w, 0, UMEM + 0x1100);
	w_int(&w, 8, 7, 8);
	w_int(&w, 16, 0x7320, 2);
	w_int(&w, 24, 0x10203040, 4);
	w.n = 28;
	w_cstr(&w, 20, "user str");
	eval_expect(d, &uctx, &w, 512, 0, "a uprobe: memory, a string, @+OFFS");
	tring_probe_free(d);
}

/*
 * Definitions whose arguments are registers stored as they are, with no
 * byte between fields, are stored with no program (struct
 * tring_probe_def's direct): the same records, fault bits and lengths as
 * their programs give, on kprobes, return probes and uprobes; a hole, a
 * load or a seventh $argN keeps the programs.
 */
static void t_direct(void)
{
	static const struct {
		int file;
		const char *line;
		bool direct;
	} cases[] = {
		{ K, "p:g/d vfs_read a=%di:u64 b=%si:s32 c=$arg3:u16 d=%ax:x8", true },
		{ K, "p:g/d vfs_read $arg1 $arg2 $arg3 $arg4 $arg5 $arg6", true },
		{ K, "r:g/d vfs_read ret=$retval:s32 r9=%r9:u8", true },
		{ U, "p:g/d /bin/true:0x10 a=%di:x32 b=%si:s32", true },
		{ K, "p:g/d vfs_read", true },
		{ K, "p:g/d vfs_read a=%si:s32 b=%di:u64", false },
		{ K, "p:g/d vfs_read a=+0(%di):u64", false },
		{ K, "p:g/d vfs_read a=$arg7:u64", false },
		{ K, "p:g/d vfs_read a=$stack1:u64", false },
	};
	u8 direct[sizeof(rec)];
	struct tring_probe_def *d;
	unsigned int i, n, n2;
	u32 f, f2;

	setup();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		d = parse(cases[i].file, cases[i].line);
		if (!d)
			continue;
		check(d->direct == cases[i].direct, "%s: direct %d",
		      cases[i].line, d->direct);
		n = run(d, &kctx, 16, 512, &f);
		memcpy(direct, rec, sizeof(rec));
		d->direct = false;
		n2 = run(d, &kctx, 16, 512, &f2);
		check(n == n2 && f == f2 && !memcmp(direct, rec, sizeof(rec)),
		      "%s: %u bytes, faults %#x; by the programs %u, %#x",
		      cases[i].line, n, f, n2, f2);
		tring_probe_free(d);
	}
}

static void t_malformed(void)
{
	struct tring_probe_def *d;
	struct tring_probe_op *op;
	struct want w;
	unsigned int got;
	u32 f;

	setup();
	d = parse(K, "p:g/bad vfs_read a=%ax b=%bx c=%cx:u32 d=+0(%si):string");
	if (!d)
		return;
	op = (struct tring_probe_op *)d->args[0].ops;
	op->param = sizeof(struct pt_regs);
	op = (struct tring_probe_op *)d->args[1].ops;
	op->code = 99;
	op = (struct tring_probe_op *)&d->args[2].ops[1];
	op->size = 8;
	((struct tring_probe_arg *)&d->args[3])->nr_ops = 0;
	/* past pt_regs, no such op, a store's size not its field's, none */
	w_begin(&w, 0, SYM_VFS_READ);
	w_int(&w, 24, 0, 4);
	w_int(&w, 28, 0, 4);
	eval_expect(d, &kctx, &w, 512, 0xf, "malformed programs fault");
	tring_probe_free(d);

	d = parse(K, "-:g/ev");
	if (!d)
		return;
	got = run(d, &kctx, 0, 512, &f);
	check(got == 0 && f == 0 && rec[0] == POISON,
	      "a removal: nothing (%u, %#x)", got, f);
	tring_probe_free(d);
}

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} cases[] = {
		{ t_sources, "sources: %REG, $argN, $stackN, $stack, \\IMM" },
		{ t_stores, "stores: values, memory, strings, symstr, $comm, data" },
		{ t_nested, "nested dereferences" },
		{ t_faults, "faults at each level: 0, \"(fault)\", the bits" },
		{ t_pages, "strings at and across pages' ends" },
		{ t_fault_bits, "fault bits: argument 31 and after in bit 31" },
		{ t_truncation, "strings cut at cap, __data_loc from rec, base > 0" },
		{ t_args, "$argN of a kprobe and of a uprobe" },
		{ t_return, "return probes: __probe_func, __probe_ret_ip" },
		{ t_symbols, "@SYM: unresolved faults, resolved reads" },
		{ t_symstr, "symstr: in the record, through the stack, cut" },
		{ t_user_ctx, "ctx->user: kernel ops read user memory" },
		{ t_lines, "definition lines parsed and evaluated" },
		{ t_malformed, "malformed programs fault, a removal writes nothing" },
		{ t_direct, "register arguments stored with no program, as by it" },
	};
	unsigned int i;
	long base;

	tap_plan_begin("twin_probe_eval");
	base = twin_outstanding_allocs();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		check(twin_outstanding_allocs() == base, "leaked %ld allocations",
		      twin_outstanding_allocs() - base);
		tap_result(cases[i].name);
	}
	tap_diag("%lu reads of mapped or unmapped memory", nr_reads);
	return tap_finish();
}
