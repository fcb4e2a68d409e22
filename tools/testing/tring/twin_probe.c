// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the dynamic probes' definition parser
 * (kernel/trace/tring_probe_parse.c and tring_probe_fetch.c, the
 * kernel's own files) in user space: every valid form decoded in full
 * (kind, names, probe point, each argument's type, field and fetch
 * program), every malformed form refused at its byte with its message,
 * the limits at and past them, the error display, allocation failure, and
 * a fuzzer of mutated definitions for the sanitizer variants to watch.
 */
#include <linux/err.h>

#include "twin.h"
#include "twin_probe.h"

#define K	TRING_PROBE_FILE_KPROBE
#define U	TRING_PROBE_FILE_UPROBE

/* ---- valid definitions ---- */

struct vcase {
	int file;
	const char *line;
	const char *want;
};

static const struct vcase valid[] = {
	/* kprobetrace.rst's examples */
	{ K, "p:myprobe do_sys_open dfd=%ax filename=%dx flags=%cx mode=+4($stack)",
	  "kprobe kprobes/myprobe do_sys_open+0 rec=8/40: dfd=x64@8[reg:80,value/8] filename=x64@16[reg:96,value/8] flags=x64@24[reg:88,value/8] mode=x64@32[stackp,mem:4/8]" },
	{ K, "r:myretprobe do_sys_open $retval",
	  "kretprobe kprobes/myretprobe do_sys_open+0 rec=16/24: arg1=x64@16[retval,value/8]" },
	{ K, "-:myprobe", "remove */myprobe" },
	/* the command, the names */
	{ K, "p do_sys_open", "kprobe kprobes/p_do_sys_open_0 do_sys_open+0 rec=8/8:" },
	{ K, "r do_sys_open", "kretprobe kprobes/r_do_sys_open_0 do_sys_open+0 rec=16/16:" },
	{ K, "r10:grp/ev do_sys_open", "kretprobe grp/ev do_sys_open+0 max=10 rec=16/16:" },
	{ K, "r0x10:ev vfs_read", "kretprobe kprobes/ev vfs_read+0 max=16 rec=16/16:" },
	{ K, "r4096 vfs_read", "kretprobe kprobes/r_vfs_read_0 vfs_read+0 max=4096 rec=16/16:" },
	{ K, "p:grp.ev vfs_read+0x10", "kprobe grp/ev vfs_read+16 rec=8/8:" },
	{ K, "p:my-grp/_Ev9 vfs_read", "kprobe my-grp/_Ev9 vfs_read+0 rec=8/8:" },
	{ K, "p:grp/ vfs_read+4", "kprobe grp/p_vfs_read_4 vfs_read+4 rec=8/8:" },
	{ K, "p:ev vfs_read+4294967295", "kprobe kprobes/ev vfs_read+4294967295 rec=8/8:" },
	{ K, "p:ev vfs_read-0", "kprobe kprobes/ev vfs_read+0 rec=8/8:" },
	{ K, "p 0xffffffff81000000", "kprobe kprobes/p_0xffffffff81000000 @0xffffffff81000000 rec=8/8:" },
	{ K, "r 0xffffffff81000010", "kretprobe kprobes/r_0xffffffff81000010 @0xffffffff81000010 rec=16/16:" },
	{ K, "p:ev 0 %ax", "kprobe kprobes/ev @0x0 rec=8/16: arg1=x64@8[reg:80,value/8]" },
	{ K, "p ext4:ext4_sync_file+8", "kprobe kprobes/p_ext4_ext4_sync_file_8 ext4:ext4_sync_file+8 rec=8/8:" },
	{ K, "p foo.isra.0", "kprobe kprobes/p_foo_isra_0_0 foo.isra.0+0 rec=8/8:" },
	{ K, "p:ev do_sys_open%return", "kretprobe kprobes/ev do_sys_open+0 rec=16/16:" },
	{ K, "p:ev do_sys_open+0%return $retval:s32",
	  "kretprobe kprobes/ev do_sys_open+0 rec=16/20: arg1=s32@16[retval,value/4]" },
	{ K, "r2:ev do_sys_open%return", "kretprobe kprobes/ev do_sys_open+0 max=2 rec=16/16:" },
	/* blanks and comments, as ftrace splits the words */
	{ K, "  p:ev\tvfs_read   %ax \t\v\f\r", "kprobe kprobes/ev vfs_read+0 rec=8/16: arg1=x64@8[reg:80,value/8]" },
	{ K, "p:ev vfs_read %ax # a comment %bx", "kprobe kprobes/ev vfs_read+0 rec=8/16: arg1=x64@8[reg:80,value/8]" },
	{ K, "p:ev vfs_read %ax#%bx", "kprobe kprobes/ev vfs_read+0 rec=8/16: arg1=x64@8[reg:80,value/8]" },
	{ K, "p:ev\xa0vfs_read", "kprobe kprobes/ev vfs_read+0 rec=8/8:" },
	/* $-variables */
	{ K, "p:ev vfs_read $arg1 $arg2:u32 count=$arg3:s32 $arg2048",
	  "kprobe kprobes/ev vfs_read+0 rec=8/32: arg1=x64@8[arg:0,value/8] arg2=u32@16[arg:1,value/4] count=s32@20[arg:2,value/4] arg4=x64@24[arg:2047,value/8]" },
	{ K, "p:ev vfs_read $stack $stack0 $stack2048 $comm $COMM:string",
	  "kprobe kprobes/ev vfs_read+0 rec=8/40: arg1=x64@8[stackp,value/8] arg2=x64@16[stack:0,value/8] arg3=x64@24[stack:2048,value/8] arg4=string@32[comm] arg5=string@36[comm]" },
	{ K, "r:ev vfs_read $retval:symstr ret=$retval:s32 +0($retval):u8",
	  "kretprobe kprobes/ev vfs_read+0 rec=16/25: arg1=symstr@16[retval,symstr] ret=s32@20[retval,value/4] arg3=u8@24[retval,mem:0/1]" },
	/* memory, strings, immediates */
	{ K, "p:ev vfs_read +0(%di):string +u8(%si):string +0(%di):ustring \\0x1000:string n=\\\"hello\"",
	  "kprobe kprobes/ev vfs_read+0 rec=8/28: arg1=string@8[reg:112,string:0] arg2=string@12[reg:104,ustring:8] arg3=ustring@16[reg:112,ustring:0] arg4=string@20[imm:0x1000,string:0] n=string@24[data:hello]" },
	{ K, "p:ev vfs_read a=+8(+0(%di)):u16 b=-8(%bp):s8 c=+0x10(-0x8(+u4(%si))):x32",
	  "kprobe kprobes/ev vfs_read+0 rec=8/16: a=u16@8[reg:112,deref:0,mem:8/2] b=s8@10[reg:32,mem:-8/1] c=x32@12[reg:104,uderef:4,deref:-8,mem:16/4]" },
	{ K, "p:ev vfs_read @jiffies @jiffies+8:u32 @jiffies-0x10:s64 @0xffffffff82000000:x8 @sym.isra.0",
	  "kprobe kprobes/ev vfs_read+0 rec=8/48: arg1=x64@8[sym:jiffies+0,mem:0/8] arg2=u32@16[sym:jiffies+8,mem:0/4] arg3=s64@24[sym:jiffies-16,mem:0/8] arg4=x8@32[imm:0xffffffff82000000,mem:0/1] arg5=x64@40[sym:sym.isra.0+0,mem:0/8]" },
	{ K, "p:ev vfs_read +8(@init_task):string +0(+8(@jiffies)):x16",
	  "kprobe kprobes/ev vfs_read+0 rec=8/14: arg1=string@8[sym:init_task+0,deref:0,string:8] arg2=x16@12[sym:jiffies+0,deref:0,deref:8,mem:0/2]" },
	{ K, "p:ev vfs_read @jiffies:ustring +0(%ax):ustring",
	  "kprobe kprobes/ev vfs_read+0 rec=8/16: arg1=ustring@8[sym:jiffies+0,ustring:0] arg2=ustring@12[reg:80,ustring:0]" },
	{ K, "p:ev vfs_read %ip:symbol %di:symstr +0(%si):symstr",
	  "kprobe kprobes/ev vfs_read+0 rec=8/24: arg1=symbol@8[reg:128,value/8] arg2=symstr@16[reg:112,symstr] arg3=symstr@20[reg:104,deref:0,symstr]" },
	{ K, "p:ev vfs_read \\1234 \\-1:s32 \\+5:u8 \\0x10:x16 \\\"\"",
	  "kprobe kprobes/ev vfs_read+0 rec=8/28: arg1=x64@8[imm:0x4d2,value/8] arg2=s32@16[imm:0xffffffffffffffff,value/4] arg3=u8@20[imm:0x5,value/1] arg4=x16@22[imm:0x10,value/2] arg5=string@24[data:]" },
	{ K, "p:ev vfs_read x=%ax X=%bx _y1=%cx:s64 arg9=%dx %si",
	  "kprobe kprobes/ev vfs_read+0 rec=8/48: x=x64@8[reg:80,value/8] X=x64@16[reg:40,value/8] _y1=s64@24[reg:88,value/8] arg9=x64@32[reg:96,value/8] arg5=x64@40[reg:104,value/8]" },
	{ K, "p:ev vfs_read a=%ax:u8 b=%ax:u64 c=%ax:u16 d=%ax:u32 e=%ax:s16 f=%ax:x32",
	  "kprobe kprobes/ev vfs_read+0 rec=8/40: a=u8@8[reg:80,value/1] b=u64@16[reg:80,value/8] c=u16@24[reg:80,value/2] d=u32@28[reg:80,value/4] e=s16@32[reg:80,value/2] f=x32@36[reg:80,value/4]" },
	/* removals */
	{ K, "-:grp/ev", "remove grp/ev" },
	{ K, "-:grp/", "remove grp/" },
	{ K, "-:grp.ev", "remove grp/ev" },
	{ U, "  -:uprobes/p_bash_0x4245c0  ", "remove uprobes/p_bash_0x4245c0" },
	/* uprobetracer.rst's examples, and more */
	{ U, "p /bin/bash:0x4245c0", "uprobe uprobes/p_bash_0x4245c0 /bin/bash:0x4245c0 rec=8/8:" },
	{ U, "r /bin/bash:0x4245c0", "uretprobe uprobes/p_bash_0x4245c0 /bin/bash:0x4245c0 rec=16/16:" },
	{ U, "p:zfree_entry /bin/zsh:0x46420 %ip %ax",
	  "uprobe uprobes/zfree_entry /bin/zsh:0x46420 rec=8/24: arg1=x64@8[reg:128,value/8] arg2=x64@16[reg:80,value/8]" },
	{ U, "r:zfree_exit /bin/zsh:0x46420 %ip %ax",
	  "uretprobe uprobes/zfree_exit /bin/zsh:0x46420 rec=16/32: arg1=x64@16[reg:128,value/8] arg2=x64@24[reg:80,value/8]" },
	{ U, "p:grp/ev /lib/x86_64-linux-gnu/libc.so.6:4096%return $retval",
	  "uretprobe grp/ev /lib/x86_64-linux-gnu/libc.so.6:0x1000 rec=16/24: arg1=x64@16[retval,value/8]" },
	{ U, "p /usr/lib/libfoo-1.2.so:0x10(0x20)", "uprobe uprobes/p_libfoo_0x10 /usr/lib/libfoo-1.2.so:0x10(0x20) rec=8/8:" },
	{ U, "p:ev /usr/lib/libfoo.so:0x10%return(32)", "uretprobe uprobes/ev /usr/lib/libfoo.so:0x10(0x20) rec=16/16:" },
	{ U, "p /opt/my:app/bin:0x20", "uprobe uprobes/p_bin_0x20 /opt/my:app/bin:0x20 rec=8/8:" },
	{ U, "p ./a+b:010", "uprobe uprobes/p_a_b_0x8 ./a+b:0x8 rec=8/8:" },
	{ U, "p:ev /bin/bash:0x10 +0(%di):string +u0(%si):string @0x601000:u32 @+0x100:s16 $stack1 $comm +8($stack):x32 $stack4096",
	  "uprobe uprobes/ev /bin/bash:0x10 rec=8/48: arg1=string@8[reg:112,ustring:0] arg2=string@12[reg:104,ustring:0] arg3=u32@16[imm:0x601000,umem:0/4] arg4=s16@20[foffs:0x100,umem:0/2] arg5=x64@24[stack:1,value/8] arg6=string@32[comm] arg7=x32@36[stackp,umem:8/4] arg8=x64@40[stack:4096,value/8]" },
	{ U, "p:ev /bin/sh:1 +0(+8(%sp)):u64 \\0x1000:ustring",
	  "uprobe uprobes/ev /bin/sh:0x1 rec=8/20: arg1=u64@8[reg:152,uderef:8,umem:0/8] arg2=ustring@16[imm:0x1000,ustring:0]" },
};

static void t_valid(void)
{
	struct tring_probe_error err;
	struct tring_probe_def *d;
	unsigned int i;
	const char *why;
	char got[1024];

	for (i = 0; i < ARRAY_SIZE(valid); i++) {
		d = tring_probe_parse(valid[i].line, valid[i].file, &err);
		if (!check(!IS_ERR_OR_NULL(d), "'%s': refused at %u: %s",
			   valid[i].line, err.pos, err.msg ?: "-")) {
			tap_result(valid[i].line);
			continue;
		}
		describe(got, sizeof(got), d);
		check(!strcmp(got, valid[i].want), "'%s':\n#   got  %s\n#   want %s",
		      valid[i].line, got, valid[i].want);
		why = def_check(d);
		check(!why, "'%s': %s", valid[i].line, why);
		check(!err.msg, "an error message with a definition");
		tring_probe_free(d);
		tap_result(valid[i].line);
	}
}

/* Every register, at its offset in x86-64's struct pt_regs. */
static void t_registers(void)
{
	static const struct { const char *name; unsigned int off; } regs[] = {
		{ "r15", 0 }, { "r14", 8 }, { "r13", 16 }, { "r12", 24 },
		{ "bp", 32 }, { "bx", 40 }, { "r11", 48 }, { "r10", 56 },
		{ "r9", 64 }, { "r8", 72 }, { "ax", 80 }, { "cx", 88 },
		{ "dx", 96 }, { "si", 104 }, { "di", 112 }, { "orig_ax", 120 },
		{ "ip", 128 }, { "cs", 136 }, { "flags", 144 }, { "sp", 152 },
		{ "ss", 160 },
	};
	static const char *const bad[] = {
		"%rax", "%eax", "%AX", "%r16", "%ds", "%", "%ax%", "%fs",
	};
	struct tring_probe_error err;
	struct tring_probe_def *d;
	char line[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(regs); i++) {
		snprintf(line, sizeof(line), "p:ev f %%%s:u8", regs[i].name);
		d = tring_probe_parse(line, K, &err);
		if (!check(!IS_ERR_OR_NULL(d), "%s refused", line))
			continue;
		check(d->args[0].ops[0].code == TRING_PROBE_OP_REG &&
		      d->args[0].ops[0].param == regs[i].off, "%s: offset %u",
		      line, d->args[0].ops[0].param);
		tring_probe_free(d);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(line, sizeof(line), "p:ev f %s", bad[i]);
		d = tring_probe_parse(line, K, &err);
		check(IS_ERR(d) && err.pos == 7 && err.msg &&
		      !strcmp(err.msg, "unknown register"), "%s accepted", line);
		if (!IS_ERR_OR_NULL(d))
			tring_probe_free(d);
	}
}

/* ---- refused definitions: where, and why ---- */

struct ecase {
	int file;
	const char *line;
	unsigned int pos;
	const char *msg;
};

#define SYM	"bad symbol name"
#define NUMBER	"bad offset from the symbol"
#define ENTRY	"a return probe is on a function's entry: no offset"
#define NOARG	"$argN is only for kprobes on a function's entry"
#define MEMORY	"a string type needs memory: +OFFS(), @, \\IMM or $comm"
#define STRONLY	"$comm and an immediate string are strings only"
#define SYMSTR	"symstr needs a value or kernel memory"
#define IDENT	"argument name is not a C identifier"
#define USED	"argument name already used"

static const struct ecase errors[] = {
	/* the command */
	{ K, "x:ev vfs_read", 0, "unknown command: not p, r or -" },
	{ K, "  P:ev vfs_read", 2, "unknown command: not p, r or -" },
	{ K, "pfoo:ev vfs_read", 1, "':' expected after the command" },
	{ K, "p5:ev vfs_read", 1, "MAXACTIVE is only for kretprobes" },
	{ U, "r5:ev /bin/sh:0x10", 1, "MAXACTIVE is only for kretprobes" },
	{ K, "r0:ev vfs_read", 1, "bad MAXACTIVE" },
	{ K, "r12x:ev vfs_read", 1, "bad MAXACTIVE" },
	{ K, "r4097 vfs_read", 1, "MAXACTIVE is too big" },
	{ K, "r99999999999999999999 vfs_read", 1, "bad MAXACTIVE" },
	/* group and event */
	{ K, "p: vfs_read", 2, "event name missing" },
	{ K, "p:/ev vfs_read", 2, "group name missing" },
	{ K, "p:1ev vfs_read", 2, "event name is not a C identifier" },
	{ K, "p:grp/e-v vfs_read", 6, "event name is not a C identifier" },
	{ K, "p:grp/ev/x vfs_read", 6, "event name is not a C identifier" },
	{ K, "p:g+p/ev vfs_read", 2, "bad group name: letters, digits, '_' and '-'" },
	{ K, "p:\xe9v vfs_read", 2, "event name is not a C identifier" },
	/* the probe point: the symbol's errors come before the name's */
	{ K, "p:ev", 4, "symbol or address expected" },
	{ K, "p:ev   # no symbol", 7, "symbol or address expected" },
	{ U, "p:ev", 4, "PATH:OFFSET expected" },
	{ K, "p:1ev vfs_read+", 14, NUMBER },
	{ K, "p:ev vfs_read-4", 13, NUMBER },
	{ K, "p:ev vfs_read+0x100000000", 13, NUMBER },
	{ K, "p:ev vfs_read+1x", 13, NUMBER },
	{ K, "r:ev vfs_read+4", 13, ENTRY },
	{ K, "p:ev vfs_read+4%return", 13, ENTRY },
	{ K, "p:ev vfs_read%ret", 13, "bad suffix: only %return" },
	{ K, "p:ev vfs_read%return%return", 13, "bad suffix: only %return" },
	{ K, "p:ev 1vfs", 5, SYM },
	{ K, "p:ev 0x12g4", 5, SYM },
	{ K, "p:ev :vfs_read", 5, SYM },
	{ K, "p:ev ext4:", 5, SYM },
	{ K, "p:ev vfs$read", 5, SYM },
	{ K, "p:ev vfs/read:1", 5, "PATH:OFFSET is for uprobe_events" },
	{ U, "p:ev bash:0x10", 5, "PATH:OFFSET expected, PATH with a '/'" },
	{ U, "p:ev /bin/sh %ax", 12, "':OFFSET' expected after the path" },
	{ U, "p:ev /bin/sh:main", 13, "the offset must be a number" },
	{ U, "p:ev /bin/sh:", 13, "the offset must be a number" },
	{ U, "p:ev /bin/sh:0x10x", 13, "bad uprobe offset" },
	{ U, "p:ev /bin/sh:0x10%ret", 17, "bad suffix: only %return" },
	{ U, "p:ev /bin/sh:0x10(0x20", 22, "'(' not closed" },
	{ U, "p:ev /bin/sh:0x10(0x20)x", 23, "unexpected text after ')'" },
	{ U, "p:ev /bin/sh:0x10(zz)", 18, "bad reference counter offset" },
	{ U, "p:ev /bin/sh:0x10(0x20)%return", 23, "unexpected text after ')'" },
	/* $-variables */
	{ K, "p:ev vfs_read $retval", 14, "$retval is only for return probes" },
	{ U, "p:ev /bin/sh:1 $retval", 15, "$retval is only for return probes" },
	{ K, "p:ev vfs_read+4 $arg1", 16, NOARG },
	{ K, "r:ev vfs_read $arg1", 14, NOARG },
	{ K, "p:ev 0xffffffff81000000 $arg1", 24, NOARG },
	{ U, "p:ev /bin/sh:0x10 $arg1", 18, NOARG },
	{ K, "p:ev vfs_read $arg0", 14, "bad argument number" },
	{ K, "p:ev vfs_read $arg2049", 14, "bad argument number" },
	{ K, "p:ev vfs_read $arg1x", 14, "bad argument number" },
	{ K, "p:ev vfs_read $arg", 14, "unknown $-variable" },
	{ K, "p:ev vfs_read $stack2049", 14, "bad stack entry number" },
	{ U, "p:ev /bin/sh:1 $stack4294967296", 15, "bad stack entry number" },
	{ K, "p:ev vfs_read $stackx", 14, "unknown $-variable" },
	{ K, "p:ev vfs_read $foo", 14, "unknown $-variable" },
	{ K, "p:ev vfs_read $", 14, "unknown $-variable" },
	{ K, "p:ev vfs_read $Comm", 14, "unknown $-variable" },
	/* types */
	{ K, "p:ev vfs_read %ax:u128", 18, "unknown type" },
	{ K, "p:ev vfs_read %ax:", 18, "unknown type" },
	{ K, "p:ev vfs_read %ax:U8", 18, "unknown type" },
	{ K, "p:ev vfs_read %ax:string", 18, MEMORY },
	{ K, "p:ev vfs_read $stack:string", 21, MEMORY },
	{ K, "p:ev vfs_read $comm:u32", 20, STRONLY },
	{ K, "p:ev vfs_read $comm:ustring", 20, STRONLY },
	{ K, "p:ev vfs_read \\\"abc\":u8", 21, STRONLY },
	{ K, "p:ev vfs_read +0(%di):x8[4]", 24, "array types are not supported" },
	{ K, "p:ev vfs_read +0(%di):b4@2/32", 22, "bitfield types are not supported" },
	{ K, "p:ev vfs_read $stack:symstr", 21, SYMSTR },
	{ K, "p:ev vfs_read +u0(%di):symstr", 23, SYMSTR },
	{ U, "p:ev /bin/sh:1 %ax:symstr", 19, "symstr is only for kprobes" },
	/* dereferences */
	{ K, "p:ev vfs_read +0(%di", 20, "'(' not closed" },
	{ K, "p:ev vfs_read +0(+8(%di)", 23, "'(' not closed" },
	{ K, "p:ev vfs_read +0%di)", 14, "'(' expected after the offset" },
	{ K, "p:ev vfs_read +0(%di)x", 21, "unexpected text after ')'" },
	{ K, "p:ev vfs_read +0(%di))", 17, "unknown register" },
	{ K, "p:ev vfs_read +x(%di)", 15, "bad dereference offset" },
	{ K, "p:ev vfs_read +(%di)", 15, "bad dereference offset" },
	{ K, "p:ev vfs_read +-8(%di)", 15, "bad dereference offset" },
	{ K, "p:ev vfs_read +u(%di)", 16, "bad dereference offset" },
	{ K, "p:ev vfs_read +0((%di))", 17, "unknown fetch argument" },
	{ K, "p:ev vfs_read +0()", 17, "fetch argument expected" },
	{ K, "p:ev vfs_read +0($comm)", 17, "$comm can not be dereferenced" },
	{ K, "p:ev vfs_read +0(\\\"abc\")", 17, "an immediate string can not be dereferenced" },
	/* memory, immediates */
	{ K, "p:ev vfs_read @", 15, SYM },
	{ K, "p:ev vfs_read @0xzz", 14, "bad memory address" },
	{ K, "p:ev vfs_read @+0x10", 14, "file offsets are only for uprobes" },
	{ U, "p:ev /bin/sh:1 @+x", 15, "bad file offset" },
	{ U, "p:ev /bin/sh:1 @jiffies", 15, "symbols are not available on uprobes" },
	{ K, "p:ev vfs_read @jiffies+x", 22, NUMBER },
	{ K, "p:ev vfs_read @1jiffies", 14, "bad memory address" },
	{ K, "p:ev vfs_read \\x", 15, "bad immediate value" },
	{ K, "p:ev vfs_read \\", 15, "bad immediate value" },
	{ K, "p:ev vfs_read \\-", 15, "bad immediate value" },
	{ K, "p:ev vfs_read \\\"abc", 19, "string not closed with '\"'" },
	{ K, "p:ev vfs_read \\\"", 16, "string not closed with '\"'" },
	{ K, "p:ev vfs_read foo", 14, "unknown fetch argument" },
	{ K, "p:ev vfs_read %ax, %bx", 14, "unknown register" },
	/* names */
	{ K, "p:ev vfs_read 1=%ax", 14, IDENT },
	{ K, "p:ev vfs_read a-b=%ax", 14, IDENT },
	{ K, "p:ev vfs_read =%ax", 14, "argument name missing before '='" },
	{ K, "p:ev vfs_read a=%ax a=%bx", 20, USED },
	{ K, "p:ev vfs_read arg2=%ax %bx", 23, USED },
	{ K, "p:ev vfs_read %ax arg1=%bx", 18, USED },
	{ K, "p:ev vfs_read common_pid=%ax", 14, "argument name is reserved" },
	{ K, "p:ev vfs_read __probe_ip=%ax", 14, "argument name is reserved" },
	{ K, "p:ev vfs_read a=", 16, "fetch argument expected after '='" },
	{ K, "p:ev vfs_read a==%ax", 16, "unknown fetch argument" },
	/* removals */
	{ K, "-", 1, "':' expected after '-'" },
	{ K, "-x", 1, "':' expected after '-'" },
	{ K, "-:", 2, "event name missing" },
	{ K, "-:/ev", 2, "group name missing" },
	{ K, "-:ev vfs_read", 5, "nothing may follow the event's name" },
};

static void t_errors(void)
{
	struct tring_probe_error err;
	struct tring_probe_def *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errors); i++) {
		const struct ecase *e = &errors[i];

		d = tring_probe_parse(e->line, e->file, &err);
		if (!check(IS_ERR(d) && PTR_ERR(d) == -EINVAL,
			   "'%s' accepted", e->line)) {
			if (!IS_ERR_OR_NULL(d))
				tring_probe_free(d);
		} else {
			check(err.pos == e->pos && err.msg &&
			      !strcmp(err.msg, e->msg),
			      "'%s': at %u \"%s\", want %u \"%s\"", e->line,
			      err.pos, err.msg ?: "-", e->pos, e->msg);
		}
		tap_result(e->line);
	}
}

/* ---- limits: at each, accepted; past it, refused ---- */

/* Parse @line; refused at @pos with @msg (NULL: accepted). */
static void expect(int file, const char *line, unsigned int pos,
		   const char *msg, const char *what)
{
	struct tring_probe_error err;
	struct tring_probe_def *d = tring_probe_parse(line, file, &err);
	const char *why;

	if (!msg) {
		if (check(!IS_ERR_OR_NULL(d), "%s: refused at %u: %s", what,
			  err.pos, err.msg ?: "-")) {
			why = def_check(d);
			check(!why, "%s: %s", what, why);
			tring_probe_free(d);
		}
		return;
	}
	if (check(IS_ERR(d), "%s: accepted", what))
		check(err.pos == pos && err.msg && !strcmp(err.msg, msg),
		      "%s: at %u \"%s\", want %u \"%s\"", what, err.pos,
		      err.msg ?: "-", pos, msg);
	else if (d)
		tring_probe_free(d);
}

static char big[TRING_PROBE_MAX_LINE + 64];

static void t_limit_args(void)
{
	struct tring_probe_error err;
	struct tring_probe_def *d;
	unsigned int i, at = 0;

	strcpy(big, "p:ev vfs_read");
	for (i = 0; i < TRING_PROBE_MAX_ARGS; i++) {
		at = strlen(big) + 1;
		strcat(big, i % 2 ? " %ax" : " +8(%si):string");
	}
	d = tring_probe_parse(big, K, &err);
	if (check(!IS_ERR_OR_NULL(d), "%u arguments refused at %u: %s",
		  TRING_PROBE_MAX_ARGS, err.pos, err.msg ?: "-")) {
		check(d->nr_args == TRING_PROBE_MAX_ARGS && !def_check(d) &&
		      !strcmp(d->args[127].name, "arg128") &&
		      d->fixed_size == 8 + 64 * 16, "%u arguments",
		      TRING_PROBE_MAX_ARGS);
		tap_diag("%u arguments: a block of %zu bytes (a definition %zu, an argument %zu, an op %zu)",
			 d->nr_args, d->size, sizeof(*d), sizeof(d->args[0]),
			 sizeof(d->ops[0]));
		tring_probe_free(d);
	}
	at = strlen(big) + 1;
	strcat(big, " %bx");
	expect(K, big, at, "too many arguments", "129 arguments");
}

static void t_limit_lengths(void)
{
	char line[256], name[80];
	unsigned int len;

	/* An argument of 63 bytes after NAME=, of 64: +0x000...1(%ax) */
	for (len = TRING_PROBE_MAX_ARG_LEN; len <= TRING_PROBE_MAX_ARG_LEN + 1;
	     len++) {
		strcpy(line, "p:ev f n=+0x");
		memset(line + 12, '0', len - 9);
		strcpy(line + 12 + len - 9, "1(%ax)");
		check(strlen(line + 9) == len, "setup");
		if (len == TRING_PROBE_MAX_ARG_LEN)
			expect(K, line, 0, NULL, "argument of 63 bytes");
		else
			expect(K, line, 9, "argument too long",
			       "argument of 64 bytes");
	}
	/* A name of 32 bytes, of 33. */
	memset(name, 'a', 33);
	name[32] = '\0';
	snprintf(line, sizeof(line), "p:ev f %s=%%ax", name);
	expect(K, line, 0, NULL, "name of 32 bytes");
	name[32] = 'a';
	name[33] = '\0';
	snprintf(line, sizeof(line), "p:ev f %s=%%ax", name);
	expect(K, line, 7, "argument name too long", "name of 33 bytes");
	/* An event's and a group's name of 63 bytes, of 64. */
	memset(name, 'e', 64);
	name[63] = '\0';
	snprintf(line, sizeof(line), "p:%s f", name);
	expect(K, line, 0, NULL, "event name of 63 bytes");
	snprintf(line, sizeof(line), "p:%s/%s f", name, name);
	expect(K, line, 0, NULL, "group name of 63 bytes");
	name[63] = 'e';
	name[64] = '\0';
	snprintf(line, sizeof(line), "p:%s f", name);
	expect(K, line, 2, "event name too long", "event name of 64 bytes");
	snprintf(line, sizeof(line), "-:%s/ev", name);
	expect(K, line, 2, "group name too long", "group name of 64 bytes");
}

static void t_limit_depth(void)
{
	char line[256];
	unsigned int i;

	strcpy(line, "p:ev f ");
	for (i = 0; i < TRING_PROBE_MAX_DEPTH; i++)
		strcat(line, "+0(");
	strcat(line, "%di");
	for (i = 0; i < TRING_PROBE_MAX_DEPTH; i++)
		strcat(line, ")");
	expect(K, line, 0, NULL, "12 dereferences");
	strcpy(line, "p:ev f @jiffies");
	for (i = 0; i < TRING_PROBE_MAX_DEPTH; i++) {
		memmove(line + 7 + 3, line + 7, strlen(line + 7) + 1);
		memcpy(line + 7, "+8(", 3);
		strcat(line, ")");
	}
	strcat(line, ":symstr");
	expect(K, line, 0, NULL, "12 dereferences of @SYM, symstr");
	strcpy(line, "p:ev f ");
	for (i = 0; i <= TRING_PROBE_MAX_DEPTH; i++)
		strcat(line, "+0(");
	strcat(line, "%di");
	for (i = 0; i <= TRING_PROBE_MAX_DEPTH; i++)
		strcat(line, ")");
	expect(K, line, 7 + 3 * TRING_PROBE_MAX_DEPTH,
	       "dereferences nested too deeply", "13 dereferences");
}

static void t_limit_line(void)
{
	memset(big, ' ', TRING_PROBE_MAX_LINE);
	memcpy(big, "p:ev vfs_read", 13);
	memcpy(big + TRING_PROBE_MAX_LINE - 3, "%ax", 3);
	big[TRING_PROBE_MAX_LINE] = '\0';
	expect(K, big, 0, NULL, "a line of 4094 bytes");
	/* Comments count: ftrace's limit is on the line as written. */
	memcpy(big + TRING_PROBE_MAX_LINE - 3, "#ax ", 4);
	big[TRING_PROBE_MAX_LINE + 1] = '\0';
	expect(K, big, TRING_PROBE_MAX_LINE, "line too long",
	       "a line of 4095 bytes");
}

/* Lines with nothing to do: NULL, no error. */
static void t_nothing(void)
{
	static const char *const lines[] = {
		"", " ", "\t \v\f\r", "#", "# p:ev vfs_read", "   #p:ev",
		"\xa0", "#\xff",
	};
	struct tring_probe_error err;
	struct tring_probe_def *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		err.msg = "stale";
		d = tring_probe_parse(lines[i], i % 2 ? K : U, &err);
		check(!d && !err.msg, "'%s': %p, %s", lines[i], (void *)d,
		      err.msg ?: "-");
	}
}

/* The line and a caret under the error's byte, cut to the buffer. */
static void t_show(void)
{
	static const struct {
		const char *line;
		unsigned int pos, size;
		const char *want;
	} cases[] = {
		{ "p:ev vfs_read %zz", 14, 128, "p:ev vfs_read %zz\n              ^\n" },
		{ "p:ev\tvfs_read\t%zz", 14, 128, "p:ev\tvfs_read\t%zz\n    \t        \t^\n" },
		{ "p:ev", 4, 128, "p:ev\n    ^\n" },
		{ "x\x1b[2J\x7f", 0, 128, "x?[2J?\n^\n" },
		{ "p:ev f\nsecond line", 6, 128, "p:ev f\n      ^\n" },
		{ "p:ev vfs_read %zz", 14, 8, "p:ev vf" },
		{ "p:ev vfs_read %zz", 14, 19, "p:ev vfs_read %zz\n" },
		{ "p:ev vfs_read %zz", 14, 1, "" },
	};
	struct tring_probe_error err;
	char buf[128];
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		err.pos = cases[i].pos;
		err.msg = "x";
		memset(buf, '@', sizeof(buf));
		n = tring_probe_error_show(buf, cases[i].size, cases[i].line,
					   &err);
		check(!strcmp(buf, cases[i].want) && n == (int)strlen(buf) &&
		      (cases[i].size == sizeof(buf) || buf[cases[i].size] == '@'),
		      "show '%s' at %u in %u bytes: '%s'", cases[i].line,
		      cases[i].pos, cases[i].size, buf);
	}
	n = tring_probe_error_show(NULL, 0, "p:ev", &err);
	check(n == 0, "no buffer: %d", n);
}

/* Out of memory: -ENOMEM, nothing kept; the next attempt works. */
static void t_nomem(void)
{
	struct tring_probe_error err;
	struct tring_probe_def *d;

	twin_fail_alloc_after(1);
	d = tring_probe_parse("p:ev vfs_read %ax", K, &err);
	check(IS_ERR(d) && PTR_ERR(d) == -ENOMEM, "-ENOMEM: %ld", PTR_ERR(d));
	twin_fail_alloc_after(0);
	/* The size tring_probe.h gives for this definition. */
	d = tring_probe_parse("p:grp/ev do_sys_open dfd=%di name=+0(%si):string",
			      K, &err);
	check(!IS_ERR_OR_NULL(d) && d->size == 260, "after -ENOMEM: %zu bytes",
	      IS_ERR_OR_NULL(d) ? 0 : d->size);
	if (!IS_ERR_OR_NULL(d))
		tring_probe_free(d);
	tring_probe_free(NULL);
}

/* ---- fuzz: mutated definitions, refused or sound, never a crash ---- */

static const char *const pieces[] = {
	"p", "r", "-", ":", "/", ".", "=", "+", "-", "u", "(", ")", "%", "@",
	"$", "\\", "\"", "#", " ", "\t", "0", "0x", "8", "4096", "ax", "di",
	"arg1", "retval", "stack", "comm", "string", "ustring", "symstr",
	"symbol", "u8", "s64", "x32", "%return", "jiffies", "/bin/sh:",
	"+0(", "+u8(", "$arg", "\xa0", "\xff", "[4]", "a=", "0xffffffffffffffff",
};

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

static void mutate(char *t, size_t size)
{
	unsigned int i, n, at, len, cut;
	const char *pc;

	strcpy(t, valid[rnd(ARRAY_SIZE(valid))].line);
	for (n = 1 + rnd(4), i = 0; i < n; i++) {
		len = strlen(t);
		at = rnd(len + 1);
		switch (rnd(4)) {
		case 0:		/* a byte changed */
			if (len)
				t[rnd(len)] = (char)(1 + rnd(255));
			break;
		case 1:		/* a piece put in */
			pc = pieces[rnd(ARRAY_SIZE(pieces))];
			if (len + strlen(pc) < size) {
				memmove(t + at + strlen(pc), t + at, len - at + 1);
				memcpy(t + at, pc, strlen(pc));
			}
			break;
		case 2:		/* bytes taken out */
			cut = rnd(len - at + 1);
			memmove(t + at, t + at + cut, len - at - cut + 1);
			break;
		default:	/* cut */
			t[at] = '\0';
		}
	}
}

static void t_fuzz(void)
{
	unsigned int i, accepted = 0, refused = 0, empty = 0;
	struct tring_probe_error err;
	struct tring_probe_def *d;
	char line[1024], shown[2 * sizeof(line) + 8];
	const char *why;

	srandom(34);
	for (i = 0; i < 20000; i++) {
		mutate(line, sizeof(line));
		d = tring_probe_parse(line, rnd(2) ? K : U, &err);
		if (IS_ERR(d)) {
			refused++;
			check(PTR_ERR(d) == -EINVAL && err.msg &&
			      err.pos <= strlen(line), "'%s': bad error", line);
			tring_probe_error_show(shown, 1 + rnd(sizeof(shown) - 1),
					       line, &err);
			continue;
		}
		if (!d) {
			empty++;
			continue;
		}
		accepted++;
		why = def_check(d);
		check(!why, "'%s': %s", line, why);
		tring_probe_free(d);
	}
	tap_diag("fuzz: %u definitions accepted, %u refused, %u empty",
		 accepted, refused, empty);
	check(accepted > 1000 && refused > 1000, "both kinds fuzzed");
}

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} cases[] = {
		{ t_registers, "every register at its pt_regs offset" },
		{ t_limit_args, "128 arguments, not 129" },
		{ t_limit_lengths, "argument, name, event and group lengths" },
		{ t_limit_depth, "12 nested dereferences, not 13" },
		{ t_limit_line, "a line of 4094 bytes, not 4095" },
		{ t_nothing, "blank and comment lines do nothing" },
		{ t_show, "the line and a caret, cut to the buffer" },
		{ t_nomem, "out of memory: -ENOMEM, nothing kept; a block's size" },
		{ t_fuzz, "20000 mutated definitions: refused or sound" },
	};
	unsigned int i;
	long base;

	tap_plan_begin("twin_probe");
	base = twin_outstanding_allocs();
	t_valid();
	t_errors();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		check(twin_outstanding_allocs() == base, "leaked %ld allocations",
		      twin_outstanding_allocs() - base);
		tap_result(cases[i].name);
	}
	return tap_finish();
}
