/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: dynamic probe definitions, in ftrace's syntax of kprobe_events
 * and uprobe_events (Documentation/trace/kprobetrace.rst and
 * uprobetracer.rst), parsed and compiled by tring_probe_parse.c (the
 * line, the probe point) and tring_probe_fetch.c (the fetch arguments);
 * the programs run at a hit by tring_probe_eval.c.
 *
 * One line becomes one struct tring_probe_def: what to probe, the event's
 * name, and per argument a small fetch program and its place in the
 * event's record. Nothing is registered or resolved here: symbols stay
 * names (the caller looks them up with kallsyms), paths stay paths.
 */
#ifndef _TRING_PROBE_H
#define _TRING_PROBE_H

#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/ptrace.h>

/* Limits of one definition; past them it is refused (EINVAL). */
#define TRING_PROBE_MAX_LINE	4094	/* bytes of a line, as ftrace's */
#define TRING_PROBE_MAX_ARGS	128	/* fetch arguments */
#define TRING_PROBE_MAX_ARG_LEN	63	/* bytes of an argument after NAME= */
#define TRING_PROBE_MAX_ARG_NAME 32	/* bytes of an argument's NAME */
#define TRING_PROBE_MAX_EVENT	63	/* bytes of a group's or event's name */
#define TRING_PROBE_MAX_DEPTH	12	/* nested dereferences +OFFS(...) */
#define TRING_PROBE_MAX_ACTIVE	4096	/* a kretprobe's MAXACTIVE */
/* $stackN and $argN on a kprobe: N at most a 16 KiB stack's words. */
#define TRING_PROBE_MAX_STACK	2048
/* Ops of one argument: source, @'s load, the dereferences, the store. */
#define TRING_PROBE_MAX_OPS	(TRING_PROBE_MAX_DEPTH + 3)

/* Groups when a definition names none. */
#define TRING_PROBE_KGROUP	"kprobes"
#define TRING_PROBE_UGROUP	"uprobes"

/**
 * enum tring_probe_file - the file a line was written to
 * @TRING_PROBE_FILE_KPROBE: kprobe_events.
 * @TRING_PROBE_FILE_UPROBE: uprobe_events.
 */
enum tring_probe_file {
	TRING_PROBE_FILE_KPROBE,
	TRING_PROBE_FILE_UPROBE,
};

/**
 * enum tring_probe_kind - what a definition asks for
 * @TRING_PROBE_KPROBE: a kprobe: "p" in kprobe_events.
 * @TRING_PROBE_KRETPROBE: a kretprobe: "r", or "p" and "%return".
 * @TRING_PROBE_UPROBE: a uprobe: "p" in uprobe_events.
 * @TRING_PROBE_URETPROBE: a uretprobe: "r", or "p" and "%return".
 * @TRING_PROBE_REMOVE: "-:": remove the event named (of the file's kind:
 *	kprobe_events removes kprobes only, uprobe_events uprobes only).
 */
enum tring_probe_kind {
	TRING_PROBE_KPROBE,
	TRING_PROBE_KRETPROBE,
	TRING_PROBE_UPROBE,
	TRING_PROBE_URETPROBE,
	TRING_PROBE_REMOVE,
};

/**
 * enum tring_probe_opcode - the ops of a fetch program
 * @TRING_PROBE_OP_REG: value = the register at byte @param of pt_regs.
 * @TRING_PROBE_OP_ARG: value = the function's argument @param (0: the
 *	first; $arg1).
 * @TRING_PROBE_OP_RETVAL: value = the return value.
 * @TRING_PROBE_OP_STACK: value = stack entry @param ($stackN).
 * @TRING_PROBE_OP_STACKP: value = the stack pointer ($stack).
 * @TRING_PROBE_OP_IMM: value = @imm (an address or an immediate).
 * @TRING_PROBE_OP_SYMBOL: value = the address of the symbol named at
 *	&def->chars[@param], plus @imm; the caller resolves it (kallsyms)
 *	and may rewrite the op into a TRING_PROBE_OP_IMM.
 * @TRING_PROBE_OP_FOFFS: uprobes: value = the address where offset @imm
 *	of the probed file is mapped.
 * @TRING_PROBE_OP_DEREF: value = the unsigned long at value + @imm, in
 *	kernel memory.
 * @TRING_PROBE_OP_UDEREF: the same in user memory.
 * @TRING_PROBE_OP_ST_VALUE: store value's low @size bytes.
 * @TRING_PROBE_OP_ST_MEM: store the @size bytes at value + @imm, kernel
 *	memory.
 * @TRING_PROBE_OP_ST_UMEM: the same in user memory.
 * @TRING_PROBE_OP_ST_STRING: store the NUL-terminated string at value +
 *	@imm, kernel memory, as dynamic data (see struct tring_probe_arg).
 * @TRING_PROBE_OP_ST_USTRING: the same in user memory.
 * @TRING_PROBE_OP_ST_SYMSTR: store value as "symbol+offset/size", a
 *	string.
 * @TRING_PROBE_OP_ST_COMM: store current->comm, a string ($comm; the
 *	whole program).
 * @TRING_PROBE_OP_ST_DATA: store the immediate string at
 *	&def->chars[@param] (\"text"; the whole program).
 *
 * A program is one source op (or the two of @SYM: its address and the
 * load there), then dereferences from the innermost out, then exactly one
 * store op, the last. A store op's @size is the bytes it stores in the
 * record: the type's, 4 (the __data_loc word) for a string.
 * tring_probe_eval() (tring_probe_eval.c) walks the ops once; a fault ends
 * the program and stores zero, or for a string the string "(fault)", what
 * ftrace shows for a string it could not read.
 */
enum tring_probe_opcode {
	TRING_PROBE_OP_REG,
	TRING_PROBE_OP_ARG,
	TRING_PROBE_OP_RETVAL,
	TRING_PROBE_OP_STACK,
	TRING_PROBE_OP_STACKP,
	TRING_PROBE_OP_IMM,
	TRING_PROBE_OP_SYMBOL,
	TRING_PROBE_OP_FOFFS,
	TRING_PROBE_OP_DEREF,
	TRING_PROBE_OP_UDEREF,
	TRING_PROBE_OP_ST_VALUE,
	TRING_PROBE_OP_ST_MEM,
	TRING_PROBE_OP_ST_UMEM,
	TRING_PROBE_OP_ST_STRING,
	TRING_PROBE_OP_ST_USTRING,
	TRING_PROBE_OP_ST_SYMSTR,
	TRING_PROBE_OP_ST_COMM,
	TRING_PROBE_OP_ST_DATA,
};

/**
 * struct tring_probe_op - one op of a fetch program (16 bytes)
 * @code: enum tring_probe_opcode.
 * @size: store ops: bytes stored in the record.
 * @reserved: zero.
 * @param: register offset, argument index, stack entry, or offset of a
 *	string in the definition's chars, as @code says.
 * @imm: immediate, address or offset, as @code says.
 */
struct tring_probe_op {
	u8 code;
	u8 size;
	u16 reserved;
	u32 param;
	s64 imm;
};

/**
 * enum tring_probe_print - how a type's value is shown
 * @TRING_PROBE_PRINT_DEC: decimal (u8 to u64, s8 to s64).
 * @TRING_PROBE_PRINT_HEX: hexadecimal, "0x" first (x8 to x64).
 * @TRING_PROBE_PRINT_STRING: a string (string, ustring, symstr).
 * @TRING_PROBE_PRINT_SYMBOL: an address as "symbol+offset" (symbol).
 */
enum tring_probe_print {
	TRING_PROBE_PRINT_DEC,
	TRING_PROBE_PRINT_HEX,
	TRING_PROBE_PRINT_STRING,
	TRING_PROBE_PRINT_SYMBOL,
};

/**
 * struct tring_probe_type - a fetch argument's type
 * @name: as written after the ':' ("u32", "string").
 * @size: bytes in the record: 1, 2, 4 or 8; 4 for a string's
 *	__data_loc word.
 * @is_signed: an integer compared and shown as signed.
 * @print: enum tring_probe_print.
 * @ftype: the field's enum tring_filter_ftype for the event's filter:
 *	TRING_FT_INT, or TRING_FT_DATA_LOC for a string.
 */
struct tring_probe_type {
	const char *name;
	u8 size;
	u8 is_signed;
	u8 print;
	u8 ftype;
};

/**
 * struct tring_probe_arg - one fetch argument, compiled
 * @name: its NAME, or "argN" (N from 1, its place in the line).
 * @type: its type: the ":TYPE" written, else x64 (string for $comm and
 *	an immediate string), as ftrace's on x86-64.
 * @ops: its fetch program, @nr_ops ops, in the definition's block.
 * @offset: byte offset of its field in the event's record (see struct
 *	tring_probe_def), aligned to @size.
 * @size: bytes of the field: @type->size. A string's field is a u32,
 *	length << 16 | offset of the string (with its NUL) in the record,
 *	as a __data_loc field; the string itself lies after the fixed part.
 * @nr_ops: ops in @ops (2 to TRING_PROBE_MAX_OPS; 1 for $comm and an
 *	immediate string).
 * @reg: the byte of struct pt_regs whose value the field stores as it
 *	is (a register, $argN up to the sixth, $retval; its low @size
 *	bytes), or TRING_PROBE_NO_REG: @ops must run.
 */
struct tring_probe_arg {
	const char *name;
	const struct tring_probe_type *type;
	const struct tring_probe_op *ops;
	u16 offset;
	u8 size;
	u8 nr_ops;
	u16 reg;
};

#define TRING_PROBE_NO_REG	U16_MAX

/**
 * struct tring_probe_def - a parsed and compiled probe definition
 * @kind: enum tring_probe_kind.
 * @nr_args: arguments in @args.
 * @nr_ops: ops in @ops, all arguments' together.
 * @head_size: bytes of the probe's own fields at the record's start:
 *	8 for a probe, __probe_ip (u64); 16 for a return probe,
 *	__probe_func then __probe_ret_ip (u64 each); 0 for a removal.
 * @fixed_size: bytes of the record's fixed part: the probe's fields, then
 *	each argument's field; a string's bytes follow it.
 * @direct: every argument has a @reg, and the fields leave no byte
 *	between them: tring_probe_eval() stores them with no program.
 * @maxactive: a kretprobe's MAXACTIVE; 0: the kernel's default.
 * @size: bytes of the block (this struct, @ops, @args, @chars).
 * @group: the group; TRING_PROBE_KGROUP or TRING_PROBE_UGROUP if none
 *	was given, NULL in a removal that gave none (any group).
 * @event: the event's name; ftrace's generated name if none was given
 *	("p_do_sys_open_0"), "" in a removal of a whole group ("-:GRP/").
 * @symbol: a kprobe's symbol, "MOD:SYM" as written; NULL if an address.
 * @path: a uprobe's file, as written.
 * @addr: a kprobe's address when @symbol is NULL.
 * @offset: the offset from @symbol (at most U32_MAX), or a uprobe's
 *	offset in @path.
 * @ref_ctr_offset: a uprobe's reference counter offset, PATH:OFFSET(REF);
 *	0: none.
 * @args: the arguments, in order.
 * @ops: the arguments' programs, one after the other.
 * @chars: the names and strings above, each with its NUL.
 *
 * Made by tring_probe_parse(), immutable, one allocation: sizeof(struct
 * tring_probe_def) (104 bytes on x86-64) + 16 bytes per op + 32 per
 * argument + the strings' bytes with their NULs: "p:grp/ev do_sys_open
 * dfd=%di name=+0(%si):string" takes 260 bytes, 128 arguments of two ops
 * about 9 KiB. Freed by tring_probe_free().
 */
struct tring_probe_def {
	u8 kind;
	u8 nr_args;
	u16 nr_ops;
	u16 head_size;
	u16 fixed_size;
	bool direct;
	unsigned int maxactive;
	size_t size;
	const char *group;
	const char *event;
	const char *symbol;
	const char *path;
	unsigned long addr;
	unsigned long offset;
	unsigned long ref_ctr_offset;
	const struct tring_probe_arg *args;
	const struct tring_probe_op *ops;
	const char *chars;
};

/**
 * struct tring_probe_error - where and why a definition was refused
 * @pos: byte offset in the line (0: its first byte).
 * @msg: what is wrong (a static string).
 */
struct tring_probe_error {
	unsigned int pos;
	const char *msg;
};

struct tring_probe_def *tring_probe_parse(const char *line,
					  enum tring_probe_file file,
					  struct tring_probe_error *err);
void tring_probe_free(struct tring_probe_def *def);
int tring_probe_error_show(char *buf, size_t size, const char *line,
			   const struct tring_probe_error *err);

/* The arguments the x86-64 calling convention passes in registers. */
#define TRING_PROBE_REG_ARGS	6

/*
 * The byte of struct pt_regs holding argument @n (from 0, below
 * TRING_PROBE_REG_ARGS): the same in the kernel (regs_get_kernel_argument())
 * and in user space.
 */
static inline unsigned int tring_probe_arg_reg(unsigned int n)
{
	static const u8 reg_args[TRING_PROBE_REG_ARGS] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};

	return reg_args[n];
}

/**
 * struct tring_probe_ctx - where a probe was hit, for tring_probe_eval()
 * @regs: the registers at the hit: the function's entry, or its return
 *	for a return probe.
 * @ip: __probe_ip: the probed address; a return probe's __probe_func.
 * @ret_ip: a return probe's __probe_ret_ip: where the function returns.
 * @bp_addr: a uprobe's probed address in the task's memory (@+OFFS).
 * @user: a uprobe (or uretprobe): $argN past the sixth, $stackN and
 *	every dereference read user memory.
 */
struct tring_probe_ctx {
	struct pt_regs *regs;
	unsigned long ip;
	unsigned long ret_ip;
	unsigned long bp_addr;
	bool user;
};

unsigned int tring_probe_eval(const struct tring_probe_def *def,
			      const struct tring_probe_ctx *ctx, u8 *rec,
			      unsigned int base, unsigned int cap, u32 *faults);

/**
 * tring_probe_eval_direct - store a direct definition's fields
 * @def: the definition; @def->direct set (struct tring_probe_def).
 * @ctx: the hit.
 * @rec: where its record starts: @def->fixed_size bytes, every one
 *	written.
 *
 * The probe's own fields, then each argument's register (its low bytes).
 * Any context, NMI included. Inline in tring_probe_eval() and in the
 * handlers' path that writes straight into the buffer.
 */
static __always_inline void
tring_probe_eval_direct(const struct tring_probe_def *def,
			const struct tring_probe_ctx *ctx, u8 *rec)
{
	const u8 *regs = (const u8 *)ctx->regs;
	const struct tring_probe_arg *a;
	unsigned long v;
	unsigned int i;

	memcpy(rec, &ctx->ip, sizeof(u64));
	if (def->head_size > sizeof(u64))
		memcpy(rec + sizeof(u64), &ctx->ret_ip, sizeof(u64));
	for (i = 0; i < def->nr_args; i++) {
		a = &def->args[i];
		v = *(const unsigned long *)(regs + a->reg);
		/* Little endian: the low bytes first; constant sizes. */
		switch (a->size) {
		case 1:
			memcpy(rec + a->offset, &v, 1);
			break;
		case 2:
			memcpy(rec + a->offset, &v, 2);
			break;
		case 4:
			memcpy(rec + a->offset, &v, 4);
			break;
		default:
			memcpy(rec + a->offset, &v, 8);
		}
	}
}

/* ---- between tring_probe_parse.c and tring_probe_fetch.c ---- */

/**
 * struct tring_probe_parser - the state of one parse
 * @line: the line.
 * @err: where the first error goes.
 * @def: the definition being filled; in the measuring pass a scratch
 *	struct without @def->args, @def->ops or @def->chars.
 * @fill: the second pass: @def's block is allocated, write into it.
 * @uprobe: the line is uprobe_events'.
 * @ret: a return probe.
 * @fentry: a kprobe on a function's entry (SYM or SYM+0): $argN works.
 * @end: bytes of @line before its comment ('#') or its end.
 * @args_at: offset in @line of the first fetch argument's word.
 * @target: the kprobe's symbol or the uprobe's path, as written (NULL
 *	for a kprobe's address), for the event's generated name.
 * @target_len: bytes of @target.
 * @nr_args: arguments so far.
 * @nr_ops: ops so far, all arguments'.
 * @nr_chars: bytes of @def->chars so far.
 * @rec: bytes of the record so far.
 * @args: @fill: the block's arguments.
 * @dst_ops: @fill: the block's ops.
 * @chars: @fill: the block's chars.
 * @n: ops in @ops.
 * @ops: the program of the argument being parsed.
 *
 * The parse runs twice over the same line: the first pass validates and
 * counts, the second (@fill) writes into a block of the counted size.
 * About 350 bytes, on the writer's stack.
 */
struct tring_probe_parser {
	const char *line;
	struct tring_probe_error *err;
	struct tring_probe_def *def;
	bool fill;
	bool uprobe;
	bool ret;
	bool fentry;
	unsigned int end;
	unsigned int args_at;
	const char *target;
	unsigned int target_len;
	unsigned int nr_args;
	unsigned int nr_ops;
	unsigned int nr_chars;
	unsigned int rec;
	struct tring_probe_arg *args;
	struct tring_probe_op *dst_ops;
	char *chars;
	unsigned int n;
	struct tring_probe_op ops[TRING_PROBE_MAX_OPS];
};

int tring_probe_fail(struct tring_probe_parser *p, const char *at,
		     const char *msg);
u32 tring_probe_chars(struct tring_probe_parser *p, const char *s,
		      unsigned int len);
bool tring_probe_ulong(const char *s, unsigned int len, unsigned int base,
		       unsigned long *val);
bool tring_probe_signed(const char *s, unsigned int len, bool neg,
			long *val);
bool tring_probe_long(const char *s, unsigned int len, long *val);
bool tring_probe_name_ok(const char *s, unsigned int len, bool group);
bool tring_probe_symbol_ok(const char *s, unsigned int len);
int tring_probe_parse_arg(struct tring_probe_parser *p, const char *s,
			  unsigned int len);

/* Whether @len bytes at @s are the C string @word. */
static inline bool tring_probe_is(const char *s, unsigned int len,
				  const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

#endif /* _TRING_PROBE_H */
