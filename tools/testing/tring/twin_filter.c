// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the event filter (kernel/trace/tring_filter.c and
 * tring_filter_match.c, the kernel's own files) in user space: exact results of expressions over
 * integer and string fields of every kind, errors with their positions,
 * the limits, and a fuzzer (random and mutated expressions, compiled and
 * run on random records) for the sanitizer variants to watch.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/err.h>
#include <linux/sched.h>

#include "twin.h"
#include "tring_filter.h"

/* A record with every kind of field, as a tracepoint's raw record. */
struct rec {
	s32 pid;
	u8 flags;
	s8 delta;
	u16 port;
	u64 bytes;
	s64 off;
	char comm[16];
	u32 name_loc;		/* __data_loc char[] name */
	u32 rel_loc;		/* __rel_loc char[] rel: name's bytes too */
	const char *path;	/* a pointer to a string */
	char data[64];		/* name's bytes */
};

#define F(n, t, s, sg) { #n, offsetof(struct rec, n), s, t, sg, 0 }
/* pid is the writer's own (is_current_pid): filters on it get a gate. */
static const struct tring_filter_field fields[] = {
	{ "pid", offsetof(struct rec, pid), 4, TRING_FT_INT, 1, 1 },
	F(flags, TRING_FT_INT, 1, 0),
	F(delta, TRING_FT_INT, 1, 1),
	F(port, TRING_FT_INT, 2, 0),
	F(bytes, TRING_FT_INT, 8, 0),
	F(off, TRING_FT_INT, 8, 1),
	F(comm, TRING_FT_CHARS, 16, 0),
	{ "name", offsetof(struct rec, name_loc), 4, TRING_FT_DATA_LOC, 0, 0 },
	{ "rel", offsetof(struct rec, rel_loc), 4, TRING_FT_REL_LOC, 0, 0 },
	F(path, TRING_FT_STRPTR, 8, 0),
};

static void rec_init(struct rec *r, s32 pid, const char *comm,
		     const char *name, const char *path)
{
	size_t n = strlen(name) + 1;

	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->flags = 0x5a;
	r->delta = -3;
	r->port = 443;
	r->bytes = 1ULL << 40;
	r->off = -(1LL << 40);
	memcpy(r->comm, comm, strnlen(comm, sizeof(r->comm)));
	memcpy(r->data, name, n);
	r->name_loc = (u32)n << 16 | offsetof(struct rec, data);
	r->rel_loc = (u32)n << 16 |
		     (offsetof(struct rec, data) - offsetof(struct rec, rel_loc) - 4);
	r->path = path;
}

/* A filter and what eval() must give for it. */
struct fcase {
	const char *f;
	int want;
};

/* What eval() gives for a text that removes the filter ("0"). */
#define REMOVES	2

/*
 * The writers' test (tring_filter_slot_gated_out()) of @f's gate, as
 * tring_filter_set() puts it in the slot, against current's pid.
 */
static bool gate_rejects(const struct tring_filter *f)
{
	int pid = tring_filter_gate_pid(f);

	return pid && pid != current->pid;
}

/* 1 match, 0 no match, -1 refused, REMOVES: no filter; for @fl. */
static int eval_fields(const char *text, const struct rec *r,
		       const struct tring_filter_field *fl, unsigned int n)
{
	struct tring_filter_error err;
	struct tring_filter *f;
	int ret;

	f = tring_filter_compile(text, fl, n, &err);
	if (IS_ERR(f))
		return -1;
	if (!f)
		return REMOVES;
	ret = tring_filter_match(f, r, sizeof(*r));
	check(!strcmp(tring_filter_text(f), text), "text kept");
	/* The gate never leaves out what the filter keeps. */
	current->pid = r->pid;
	check(!(ret && gate_rejects(f)), "%s: gated out", text);
	tring_filter_free(f);
	return ret;
}

static int eval(const char *text, const struct rec *r)
{
	return eval_fields(text, r, fields, ARRAY_SIZE(fields));
}

static void check_cases(const struct fcase *cases, unsigned int n,
			const struct rec *r)
{
	unsigned int i;
	int got;

	for (i = 0; i < n; i++) {
		got = eval(cases[i].f, r);
		check(got == cases[i].want, "%s: %d, want %d", cases[i].f, got,
		      cases[i].want);
	}
}

static void t_integers(void)
{
	static const struct fcase cases[] = {
		{ "pid == 42", 1 }, { "pid != 42", 0 }, { "pid < 43", 1 },
		{ "pid <= 42", 1 }, { "pid > 42", 0 }, { "pid >= 42", 1 },
		{ "pid == -1", 0 }, { "pid > -5", 1 }, { "flags & 0x40", 1 },
		{ "flags & 0x21", 0 }, { "flags == 0x5a", 1 },
		{ "delta == -3", 1 }, { "delta < 0", 1 }, { "delta >= -128", 1 },
		{ "port == 443", 1 }, { "port > 65534", 0 },
		{ "bytes == 1099511627776", 1 }, { "bytes > 0xffffffff", 1 },
		{ "off < 0", 1 }, { "off == -1099511627776", 1 },
		{ "bytes == 0xffffffffffffffff", 0 },
		{ "off > -9223372036854775808", 1 },
		{ "common_pid == 1", -1 },
	};
	struct rec r;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	check_cases(cases, ARRAY_SIZE(cases), &r);
}

static void t_strings(void)
{
	static const struct fcase cases[] = {
		{ "comm == bash", -1 }, { "comm == \"bash\"", 1 },
		{ "comm == 'bas'", 0 }, { "comm != 'bash'", 0 },
		{ "comm ~ \"ba*\"", 1 }, { "comm ~ '*sh'", 1 },
		{ "comm ~ 'b?sh'", 1 }, { "comm ~ 'b[a-c]sh'", 1 },
		{ "comm ~ 'b[!a]sh'", 0 }, { "comm ~ '*'", 1 }, { "comm ~ ''", 0 },
		{ "comm ~ 'bash?'", 0 }, { "name == 'eth0'", 1 },
		{ "name ~ 'eth[0-9]'", 1 }, { "rel == 'eth0'", 1 },
		{ "rel != 'eth0'", 0 }, { "name ~ \"eth\\\\[0\"", 0 },
		{ "name == 'eth'", 0 }, { "path == '/etc/passwd'", 1 },
		{ "path ~ '/etc/*'", 1 }, { "path ~ '*/shadow'", 0 },
		{ "comm ~ \"[]b]ash\"", 1 }, { "comm == \"a\\\"b\"", -1 },
		{ "comm ~ \"[b\"", 0 }, { "comm < bash", -1 },
		{ "comm & 1", -1 }, { "pid ~ 4*", -1 },
	};
	struct rec r;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	check_cases(cases, ARRAY_SIZE(cases), &r);
	/* A full char[16], no NUL; a NULL pointer is "". */
	rec_init(&r, 1, "0123456789abcdef", "x", NULL);
	memcpy(r.comm, "0123456789abcdef", 16);
	check(eval("comm == '0123456789abcdef'", &r) == 1, "full comm");
	check(eval("path == ''", &r) == 1, "NULL path is empty");
	/* A __data_loc string outside the record is no string. */
	r.name_loc = 60u << 16 | 100;
	check(eval("name == 'x'", &r) == 0 && eval("name == ''", &r) == 1,
	      "data_loc outside the record");
}

static void t_logic(void)
{
	static const struct fcase cases[] = {
		{ "pid == 42 && comm == 'bash'", 1 },
		{ "pid == 41 && comm == 'bash'", 0 },
		{ "pid == 41 || comm == 'bash'", 1 },
		{ "pid == 41 || pid == 40 || pid == 42", 1 },
		/* && binds tighter than || */
		{ "pid == 42 || pid == 1 && comm == 'zsh'", 1 },
		{ "(pid == 42 || pid == 1) && comm == 'zsh'", 0 },
		{ "!(pid == 42)", 0 }, { "!pid == 42", 0 }, { "!!(pid == 42)", 1 },
		{ "!(pid == 1 || comm != 'bash') && port == 443", 1 },
		{ "((((pid == 42))))", 1 },
		{ "  pid==42&&comm=='bash'  ", 1 },
		/* C's bases, as ftrace reads them: 052 is 42, 09 is no number */
		{ "pid == 052", 1 }, { "pid == 0x2a", 1 }, { "pid == 09", -1 },
	};
	struct rec r;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	check_cases(cases, ARRAY_SIZE(cases), &r);
}

/*
 * Blanks as ftrace takes them: the kernel's isspace() ("\v" and "\f"
 * too) between tokens and around the text; "0" or nothing, blanks
 * around it, removes the filter (ftrace's strstrip() of the text before
 * comparing it with "0": " 0" once was refused). No blank inside a
 * token: "- 3" is no number, as kstrtoll() reads it.
 */
static void t_blanks(void)
{
	static const struct fcase cases[] = {
		{ "0", REMOVES }, { " 0", REMOVES }, { "0\n", REMOVES },
		{ "\t 0 \n", REMOVES }, { "\v0\f\r\n", REMOVES },
		{ "", REMOVES }, { " \n", REMOVES },
		{ "00", -1 }, { "0 0", -1 }, { "0x0", -1 }, { "!0", -1 },
		{ "\vpid == 42\f", 1 }, { "pid\v==\f42", 1 },
		{ "\npid == 42\n&&\ncomm == 'bash'\n", 1 },
		{ "  pid == 42", 1 }, { "pid == 42 \t\n\n", 1 },
		{ "delta == -3", 1 }, { "delta == - 3", -1 },
		{ "pid == 42 & & pid == 42", -1 }, { "pid = = 42", -1 },
		{ "comm == ' bash'", 0 }, { "comm == 'bash '", 0 },
	};
	struct rec r;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	check_cases(cases, ARRAY_SIZE(cases), &r);
}

/*
 * "\" as ftrace has it: a string constant is the bytes between its
 * quotes, "\" included (it ends at the first matching quote: no escape);
 * == compares them as they are; a glob (~) takes "\x" as the character
 * x, and a "\" at its end as the end of the string (lib/glob.c). A glob
 * starting with "!" matches what the rest does not
 * (filter_parse_regex()).
 */
static void t_escapes(void)
{
	static const struct { const char *comm, *f; int want; } cases[] = {
		{ "a*b", "comm ~ 'a\\*b'", 1 }, { "axb", "comm ~ 'a\\*b'", 0 },
		{ "a*b", "comm == 'a*b'", 1 }, { "a*b", "comm == 'a\\*b'", 0 },
		{ "a\\*b", "comm == 'a\\*b'", 1 },
		{ "a\\*b", "comm ~ 'a\\\\*'", 1 }, { "a*b", "comm ~ 'a\\\\*'", 0 },
		{ "a?", "comm ~ 'a\\?'", 1 }, { "ab", "comm ~ 'a\\?'", 0 },
		{ "a[1]", "comm ~ 'a\\[1]'", 1 }, { "a1", "comm ~ 'a\\[1]'", 0 },
		{ "a\\", "comm == \"a\\\"", 1 }, { "a", "comm ~ 'a\\'", 1 },
		{ "ab", "comm ~ 'a\\'", 0 }, { "ab", "comm ~ '*\\'", 1 },
		{ "a\\", "comm ~ 'a\\'", 0 }, { "", "comm ~ '\\'", 1 },
		{ "a\"b", "comm == 'a\"b'", 1 }, { "a'b", "comm == \"a'b\"", 1 },
		{ "a\\\"b", "comm == \"a\\\"b\"", -1 },
		{ "bash", "comm ~ '!z*'", 1 }, { "bash", "comm ~ '!b*'", 0 },
		{ "bash", "comm ~ '!bash'", 0 }, { "!x", "comm ~ '!!x'", 0 },
		{ "!bash", "comm ~ '!bash'", 1 }, { "", "comm ~ '!'", 0 },
		{ "bash", "comm == '!bash'", 0 }, { "bash", "comm != '!bash'", 1 },
		{ "\xe9t\xe9", "comm ~ '[a-\xff]t*'", 1 },
		{ "\xe9t\xe9", "comm ~ '*[!\x80-\xff]'", 0 },
	};
	struct rec r;
	unsigned int i;
	int got;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rec_init(&r, 1, cases[i].comm, "x", NULL);
		got = eval(cases[i].f, &r);
		check(got == cases[i].want, "comm '%s', %s: %d, want %d",
		      cases[i].comm, cases[i].f, got, cases[i].want);
	}
}

/*
 * ftrace's own fields, in every event's filter: CPU, cpu and common_cpu
 * (the CPU the event runs on, as an int) and COMM and comm (the running
 * task's comm), each unless the event has a field of that name, which
 * wins (ftrace looks the event's fields up first).
 */
static void t_specials(void)
{
	static const struct fcase cases[] = {
		{ "CPU == 3", 1 }, { "cpu == 3", 1 }, { "common_cpu == 3", 1 },
		{ "CPU != 3", 0 }, { "CPU >= 3 && CPU < 4", 1 },
		{ "CPU > 3 || CPU <= 2", 0 }, { "CPU == -1", 0 },
		{ "CPU > -1", 1 }, { "CPU == 2147483648", -1 },
		{ "CPU & 1", -1 }, { "CPU == '3'", -1 }, { "cpu ~ '3'", -1 },
		{ "COMM == 'worker/3'", 1 }, { "COMM ~ 'work*'", 1 },
		{ "COMM != 'worker/3'", 0 }, { "COMM == 'bash'", 0 },
		{ "COMM == 3", -1 }, { "COMM < 'x'", -1 },
		/* The record's own comm wins over the task's. */
		{ "comm == 'bash'", 1 }, { "comm == 'worker/3'", 0 },
		{ "Cpu == 3", -1 }, { "Comm == 'bash'", -1 },
		{ "common_comm == 'bash'", -1 },
	};
	static const struct tring_filter_field pid_cpu[] = {
		F(pid, TRING_FT_INT, 4, 1),
		{ "cpu", offsetof(struct rec, flags), 1, TRING_FT_INT, 0, 0 },
	};
	struct tring_filter_error err;
	struct tring_filter *f;
	struct rec r;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	twin_set_cpu(3);
	strcpy(current->comm, "worker/3");
	check_cases(cases, ARRAY_SIZE(cases), &r);
	/* Without a comm field, comm is the task's; a cpu field wins. */
	check(eval_fields("comm == 'worker/3' && CPU == 3 && cpu == 0x5a", &r,
			  pid_cpu, ARRAY_SIZE(pid_cpu)) == 1, "own cpu, task comm");
	/* Read when the event runs, not when the filter is compiled. */
	f = tring_filter_compile("CPU == 3 && COMM == 'worker/3'", fields,
				 ARRAY_SIZE(fields), &err);
	if (check(!IS_ERR_OR_NULL(f), "compiled")) {
		check(tring_filter_match(f, &r, sizeof(r)), "on CPU 3");
		twin_set_cpu(5);
		check(!tring_filter_match(f, &r, sizeof(r)), "on CPU 5");
		twin_set_cpu(3);
		strcpy(current->comm, "0123456789abcde");
		check(!tring_filter_match(f, &r, sizeof(r)), "renamed");
		tring_filter_free(f);
	}
	check(eval("COMM == '0123456789abcde'", &r) == 1, "15-byte comm");
	check(eval("COMM == '0123456789abcdef'", &r) == 0, "16 bytes");
	twin_set_cpu(0);
	memset(current->comm, 0, sizeof(current->comm));
}

/* Refused, at this position, with a message. */
static void t_errors(void)
{
	static const struct { const char *f; unsigned int pos; } cases[] = {
		{ "pid", 3 }, { "pid ==", 6 }, { "pid == x", 7 },
		{ "nosuch == 1", 0 }, { "pid == 1 &&", 11 },
		{ "(pid == 1", 9 }, { "pid == 1)", 8 }, { "pid = 1", 4 },
		{ "flags == 256", 9 }, { "flags == -1", 9 }, { "delta == 128", 9 },
		{ "delta == -129", 9 }, { "pid == 2147483648", 7 },
		{ "bytes == 18446744073709551616", 9 },
		{ "pid == 12x", 7 }, { "comm == \"bash", 8 },
		{ "pid == 1 || || pid == 2", 12 }, { "&& pid == 1", 0 },
		{ "pid == 0x", 7 }, { "comm ==", 7 }, { "comm == bash", 8 },
	};
	struct tring_filter_error err;
	struct tring_filter *f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = tring_filter_compile(cases[i].f, fields, ARRAY_SIZE(fields),
					 &err);
		if (!check(IS_ERR(f) && PTR_ERR(f) == -EINVAL,
			   "'%s' accepted", cases[i].f)) {
			if (!IS_ERR(f))
				tring_filter_free(f);
			continue;
		}
		check(err.msg && err.pos == cases[i].pos,
		      "'%s': error at %u (%s), want %u", cases[i].f, err.pos,
		      err.msg ?: "no message", cases[i].pos);
	}
}

/* Past each limit: refused; at it: accepted. */
static void t_limits(void)
{
	char text[TRING_FILTER_MAX_LEN + 64];
	struct rec r;
	unsigned int i;

	rec_init(&r, 42, "bash", "eth0", "/etc/passwd");
	strcpy(text, "pid == 42");
	for (i = 1; i < TRING_FILTER_MAX_PREDS; i++)
		strcat(text, " || pid == 1");
	check(eval(text, &r) == 1, "%u comparisons", TRING_FILTER_MAX_PREDS);
	strcat(text, " || pid == 1");
	check(eval(text, &r) == -1, "one comparison too many");
	text[0] = '\0';
	for (i = 0; i < TRING_FILTER_MAX_DEPTH; i++)
		strcat(text, "(");
	strcat(text, "pid == 42");
	for (i = 0; i < TRING_FILTER_MAX_DEPTH; i++)
		strcat(text, ")");
	check(eval(text, &r) == 1, "nested %u deep", TRING_FILTER_MAX_DEPTH);
	memmove(text + 1, text, strlen(text) + 1);
	text[0] = '!';
	check(eval(text, &r) == -1, "nested one too deep");
	memset(text, ' ', sizeof(text));
	memcpy(text + TRING_FILTER_MAX_LEN - 9, "pid == 42", 9);
	text[TRING_FILTER_MAX_LEN] = '\0';
	check(eval(text, &r) == 1, "%u bytes", TRING_FILTER_MAX_LEN);
	text[TRING_FILTER_MAX_LEN] = ' ';
	text[TRING_FILTER_MAX_LEN + 1] = '\0';
	check(eval(text, &r) == -1, "one byte too long");
	memset(text, 'a', TRING_FILTER_MAX_STR + 8);
	memcpy(text, "comm ~ '", 8);
	strcpy(text + TRING_FILTER_MAX_STR + 7, "'");
	check(eval(text, &r) == 0, "longest string");
	strcpy(text + TRING_FILTER_MAX_STR + 7, "a'");
	check(eval(text, &r) == -1, "string one byte too long");
}

static const char *const pieces[] = {
	"pid", "flags", "delta", "port", "bytes", "off", "comm", "name", "rel",
	"path", "CPU", "COMM", "common_cpu",
	"==", "!=", "<", "<=", ">", ">=", "&", "~", "&&", "||", "!", "(", ")",
	"0", "-1", "42", "0x", "0xff", "18446744073709551615", "-", "\"",
	"'", "\\", "*", "?", "[", "]", "[!a-z]", "b*sh", " ", "\t", "x",
};

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

/* Random pieces, or a valid filter with a few bytes changed. */
static void fuzz_text(char *t, size_t size)
{
	static const char *const valid[] = {
		"pid == 42 && comm ~ \"ba*\"", "(flags & 1) || !(name == 'eth0')",
		"path ~ '/etc/[a-p]*d' || off < -5 && port != 80",
	};
	unsigned int i, n;

	t[0] = '\0';
	if (rnd(2)) {
		for (n = rnd(40), i = 0; i < n; i++)
			if (strlen(t) + 32 < size)
				strcat(t, pieces[rnd(ARRAY_SIZE(pieces))]);
		return;
	}
	strcpy(t, valid[rnd(ARRAY_SIZE(valid))]);
	for (n = 1 + rnd(4), i = 0; i < n; i++)
		t[rnd(strlen(t))] = (char)(1 + rnd(255));
}

/*
 * The gate (struct tring_filter_gate): set exactly when the filter
 * requires "pid == N" of the writer's own pid, and then it leaves out
 * every other pid and only those. A pid no task has is INT_MAX in the
 * slot, and a gate on pid 0 is left to the filter (0: no gate).
 */
static void t_gate(void)
{
	static const struct {
		const char *f;
		int slot;
	} cases[] = {
		{ "pid == 42", 42 },
		{ "pid == 42 && port == 443", 42 },
		{ "port == 443 && (flags & 1 && pid == 42)", 42 },
		{ "(pid == 7 || pid == 7) && flags & 1", 7 },
		{ "pid == 2147483647", INT_MAX },
		{ "pid == -1", INT_MAX },
		{ "pid == 0", 0 },
		{ "pid == 7 || pid == 8", 0 },
		{ "pid == 7 || port == 1", 0 },
		{ "!(pid == 7)", 0 },
		{ "!!(pid == 7)", 0 },
		{ "pid != 7", 0 },
		{ "pid >= 7", 0 },
		{ "delta == 7", 0 },
		{ "port == 443", 0 },
	};
	struct tring_filter_error err;
	struct tring_filter *f;
	unsigned int i;
	int slot;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = tring_filter_compile(cases[i].f, fields,
					 ARRAY_SIZE(fields), &err);
		if (!check(!IS_ERR_OR_NULL(f), "%s: compiled", cases[i].f))
			continue;
		slot = tring_filter_gate_pid(f);
		check(slot == cases[i].slot, "%s: gate %d, want %d",
		      cases[i].f, slot, cases[i].slot);
		current->pid = slot;
		check(!gate_rejects(f), "%s: its pid passes", cases[i].f);
		current->pid = slot ^ 1;
		check(gate_rejects(f) == (slot != 0), "%s: another pid",
		      cases[i].f);
		tring_filter_free(f);
	}
}

static void t_fuzz(void)
{
	static const char *const strs[] = { "", "bash", "b", "eth0",
					    "[x]*?\\", "ba*sh" };
	unsigned int i, accepted = 0, refused = 0;
	struct tring_filter_error err;
	struct tring_filter *f;
	char text[512];
	struct rec r;

	srandom(1);
	for (i = 0; i < 20000; i++) {
		fuzz_text(text, sizeof(text));
		f = tring_filter_compile(text, fields, ARRAY_SIZE(fields), &err);
		if (IS_ERR(f)) {
			refused++;
			check(PTR_ERR(f) == -EINVAL && err.msg &&
			      err.pos <= strlen(text), "'%s': bad error", text);
			continue;
		}
		accepted++;
		if (!f)
			continue;
		rec_init(&r, (s32)random(), strs[rnd(ARRAY_SIZE(strs))],
			 strs[rnd(ARRAY_SIZE(strs))],
			 rnd(4) ? strs[rnd(ARRAY_SIZE(strs))] : NULL);
		r.flags = random();
		/* The gate never leaves out what the filter keeps. */
		if (rnd(2))
			r.pid = 42;
		current->pid = r.pid;
		check(!(tring_filter_match(f, &r, sizeof(r)) &&
			gate_rejects(f)), "'%s': gated out", text);
		tring_filter_free(f);
	}
	tap_diag("fuzz: %u filters accepted, %u refused", accepted, refused);
	check(accepted > 100 && refused > 100, "both kinds fuzzed");
}

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} cases[] = {
		{ t_integers, "integer fields of every size and sign" },
		{ t_strings, "char[], __data_loc and pointer strings, globs" },
		{ t_logic, "&&, ||, !, parentheses and precedence" },
		{ t_blanks, "blanks as ftrace takes them; \" 0\" removes" },
		{ t_escapes, "\\ in strings and globs, a glob's !, as ftrace's" },
		{ t_specials, "CPU, cpu, common_cpu, COMM, comm" },
		{ t_errors, "bad filters refused at the right position" },
		{ t_limits, "length, comparisons, nesting, string limits" },
		{ t_gate, "the pid gate: set when the filter requires the pid" },
		{ t_fuzz, "20000 fuzzed filters: refused or run, cleanly" },
	};
	unsigned int i;
	long base;

	tap_plan_begin("twin_filter");
	base = twin_outstanding_allocs();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		check(twin_outstanding_allocs() == base, "leaked %ld allocations",
		      twin_outstanding_allocs() - base);
		tap_result(cases[i].name);
	}
	return tap_finish();
}
