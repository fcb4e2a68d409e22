// SPDX-License-Identifier: GPL-2.0
/*
 * tring-report: what a recorded trace says, for a person.
 *
 *   tring-report stacks DIR [-e EVENT] [-n N] [--folded] [--binaries BDIR]
 *   tring-report html DIR [-o FILE] [-n N]
 *
 * "stacks" counts the call stacks the events of DIR carry (the contexts
 * callstack-kernel and callstack-user) and prints the hottest, named
 * with DIR/kallsyms and DIR/maps; --folded writes one line per stack,
 * "frame;frame;...;frame COUNT", outermost frame first, the form that
 * flame-graph tools take. The trace is decoded by babeltrace2. Memory is
 * bounded: a fixed table of distinct stacks (stacks past it are counted
 * together), whatever the trace's length.
 *
 * "html" is tring-report-html, a Python program (babeltrace2's bindings
 * and matplotlib) installed beside: PREFIX/lib/tring/, found from this
 * executable's own path (or the source tree's tools/tring/ for a build
 * tree's build/tools/tring-report), or $TRING_REPORT_HTML.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* Distinct stacks kept. */
#define RP_STACKS	2048
#define RP_EXIT_USAGE	1
#define RP_EXIT_FAIL	2

/**
 * struct rp_stack - one distinct stack and how often it came
 * @count: events.
 * @pid: the process (its pid context), for the user frames' names.
 * @nk: kernel frames, innermost first, in @f[0..nk).
 * @nu: user frames, innermost first, in @f[nk..nk+nu).
 * @f: the frames.
 */
struct rp_stack {
	uint64_t count;
	pid_t pid;
	uint16_t nk;
	uint16_t nu;
	uint64_t f[2 * RP_MAX_FRAMES];
};

struct rp_run {
	const char *dir;
	const char *event;
	unsigned int top;
	bool folded;
	struct rp_syms syms;
	struct rp_stack *tab;
	unsigned int n;
	uint64_t events;	/* events with a stack (of -e's event) */
	uint64_t other;		/* past the table */
};

static const char usage_text[] =
"Usage: tring-report stacks DIR [-e EVENT] [-n N] [--folded] [--binaries BDIR]\n"
"       tring-report html DIR [-o FILE] [-n N]\n"
"\n"
"html: one self-contained HTML page about the recording DIR (default\n"
"report.html): what ran on each CPU over time, the busiest tasks, system\n"
"calls by count and latency, events per second, losses per CPU, the\n"
"recording's settings, and a flame graph when the events carry stacks\n"
"(tring-report html --help: its options).\n"
"\n"
"stacks:\n"
"Count the call stacks a tring trace carries (tring-record --callstack, or\n"
"-C callstack-kernel,callstack-user) and print the hottest, named with the\n"
"kallsyms and maps files tring-record wrote beside the trace.\n"
"\n"
"  -e, --event EVENT   only the stacks of this event (its name, as\n"
"                      babeltrace2 prints it: sched_switch, sys_openat)\n"
"  -n, --top N         print the N hottest stacks (default 10)\n"
"  --folded            one line per stack, \"frame;...;frame COUNT\",\n"
"                      outermost first (user frames, then kernel's), for\n"
"                      flame-graph tools (flamegraph.pl, inferno, speedscope)\n"
"  --binaries BDIR     look for a binary the maps name by a path this\n"
"                      machine does not have in BDIR, by its base name\n"
"  -h, --help          this text\n"
"\n"
"The trace is decoded with babeltrace2. A stack the kernel cut at its\n"
"depth (stack_depth=) ends with [truncated]; an address no symbol holds\n"
"is printed as a number, or as FILE+0xOFFSET.\n"
"Exit status: 0, 1 for a usage error, 2 when the trace cannot be read.\n";

/* Parse "NAME = [ [0] = 0x..., ... ]" at @key within [@p, @end). */
static int parse_frames(const char *p, const char *end, const char *key,
			uint64_t *out, unsigned int max)
{
	const char *q = strstr(p, key);
	unsigned int n = 0;
	char *e;

	if (!q || q >= end)
		return -1;
	p = q + strlen(key);
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p != '[')
			break;
		q = strstr(p, "] = ");
		if (!q || q >= end)
			break;
		if (n < max)
			out[n++] = strtoull(q + 4, &e, 0);
		else
			strtoull(q + 4, &e, 0);
		p = e;
		if (*p == ',')
			p++;
	}
	return n;
}

/* The event's name: the word before the first ": { ". */
static bool event_is(const char *line, const char *name)
{
	const char *colon = strstr(line, ": { "), *w;
	size_t len;

	if (!colon)
		return false;
	for (w = colon; w > line && w[-1] != ' '; w--)
		;
	len = colon - w;
	return strlen(name) == len && !strncmp(w, name, len);
}

/* The stream event context: the second "{ ... }" of the line. */
static const char *context_of(const char *line, const char **end)
{
	const char *p = strstr(line, ": { ");

	if (!p)
		return NULL;
	p = strstr(p, "}, { ");
	if (!p)
		return NULL;
	p += 3;
	*end = strchr(p, '}');
	return *end ? p : NULL;
}

/* The table's entry for @st, added if new; NULL when the table is full. */
static struct rp_stack *lookup(struct rp_run *r, const struct rp_stack *st)
{
	size_t len = (st->nk + st->nu) * sizeof(uint64_t);
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		struct rp_stack *t = &r->tab[i];

		if (t->pid == st->pid && t->nk == st->nk && t->nu == st->nu &&
		    !memcmp(t->f, st->f, len))
			return t;
	}
	if (r->n == RP_STACKS)
		return NULL;
	r->tab[r->n] = *st;
	r->tab[r->n].count = 0;
	return &r->tab[r->n++];
}

/* One line of babeltrace2's output. */
static void take_line(struct rp_run *r, const char *line)
{
	static struct rp_stack st;
	const char *ctx, *end, *pid;
	struct rp_stack *t;
	int nk, nu;

	if (r->event && !event_is(line, r->event))
		return;
	ctx = context_of(line, &end);
	if (!ctx)
		return;
	nk = parse_frames(ctx, end, "callstack_kernel = [", st.f,
			  RP_MAX_FRAMES);
	nu = parse_frames(ctx, end, "callstack_user = [", st.f + (nk > 0 ? nk : 0),
			  RP_MAX_FRAMES);
	if (nk < 0 && nu < 0)
		return;
	st.nk = nk > 0 ? nk : 0;
	st.nu = nu > 0 ? nu : 0;
	pid = strstr(ctx, "{ pid = ");
	if (!pid || pid > end)
		pid = strstr(ctx, ", pid = ");
	st.pid = pid && pid < end ? atoi(pid + 8) : 0;
	r->events++;
	t = lookup(r, &st);
	if (t)
		t->count++;
	else
		r->other++;
}

/* Feed babeltrace2's text of DIR to take_line(). */
static int read_trace(struct rp_run *r)
{
	char *line = NULL;
	size_t cap = 0;
	int fd[2], status;
	pid_t pid;
	FILE *f;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp("babeltrace2", "babeltrace2", r->dir, (char *)NULL);
		fprintf(stderr, "tring-report: cannot run babeltrace2: %s\n",
			strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		take_line(r, line);
	free(line);
	fclose(f);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -EIO;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct rp_stack *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* Frame @i of @st, innermost first over kernel then user frames. */
static void frame_name(const struct rp_run *r, const struct rp_stack *st,
		       unsigned int i, bool off, char *out, size_t size)
{
	if (i < st->nk)
		rp_kernel_name(&r->syms, st->f[i], off, out, size);
	else
		rp_user_name(&r->syms, st->pid, st->f[i], off, out, size);
}

static void print_folded(const struct rp_run *r)
{
	char name[RP_NAME];
	unsigned int i, j, n;

	for (i = 0; i < r->n; i++) {
		const struct rp_stack *st = &r->tab[i];

		n = st->nk + st->nu;
		/* Outermost first: the user frames, then the kernel's. */
		for (j = n; j-- > 0;) {
			frame_name(r, st, j, false, name, sizeof(name));
			printf("%s%s", name, j ? ";" : "");
		}
		printf(" %" PRIu64 "\n", st->count);
	}
}

static void print_top(const struct rp_run *r)
{
	char name[RP_NAME];
	unsigned int i, j;

	printf("%" PRIu64 " events with a stack%s%s, %u distinct stacks%s\n",
	       r->events, r->event ? " of " : "", r->event ?: "", r->n,
	       r->other ? " (and more, counted as other)" : "");
	for (i = 0; i < r->n && i < r->top; i++) {
		const struct rp_stack *st = &r->tab[i];

		printf("\n%" PRIu64 " events (%.1f%%)", st->count,
		       100.0 * st->count / r->events);
		if (st->pid > 0)
			printf(", pid %d", (int)st->pid);
		printf(":\n");
		for (j = 0; j < st->nk + st->nu; j++) {
			frame_name(r, st, j, true, name, sizeof(name));
			printf("  %s %s\n", j < st->nk ? "k" : "u", name);
		}
	}
	if (r->other)
		printf("\n%" PRIu64 " events of other stacks\n", r->other);
}

/* tring-report stacks's options into @r; 0, 1 (usage) or -1 (--help). */
static int parse_stacks(struct rp_run *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 'n' },
		{ "folded", no_argument, NULL, 'F' },
		{ "binaries", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	r->top = 10;
	while ((c = getopt_long(argc, argv, "e:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			r->event = optarg;
			break;
		case 'n':
			r->top = strtoul(optarg, &end, 10);
			if (*end || !*optarg)
				return RP_EXIT_USAGE;
			break;
		case 'F':
			r->folded = true;
			break;
		case 'B':
			r->syms.binaries = optarg;
			break;
		case 'h':
			return -1;
		default:
			return RP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return RP_EXIT_USAGE;
	r->dir = argv[optind];
	r->syms.dir = r->dir;
	return 0;
}

static int stacks(int argc, char **argv)
{
	static struct rp_run run;
	struct rp_run *r = &run;
	int ret;

	ret = parse_stacks(r, argc, argv);
	if (ret) {
		fputs(usage_text, ret < 0 ? stdout : stderr);
		return ret < 0 ? 0 : RP_EXIT_USAGE;
	}
	r->tab = calloc(RP_STACKS, sizeof(*r->tab));
	if (!r->tab || rp_syms_load(&r->syms)) {
		fprintf(stderr, "tring-report: out of memory\n");
		return RP_EXIT_FAIL;
	}
	ret = read_trace(r);
	if (ret) {
		fprintf(stderr, "tring-report: babeltrace2 could not read %s\n",
			r->dir);
		return RP_EXIT_FAIL;
	}
	qsort(r->tab, r->n, sizeof(*r->tab), by_count);
	if (r->folded)
		print_folded(r);
	else
		print_top(r);
	rp_syms_free(&r->syms);
	free(r->tab);
	return fflush(stdout) ? RP_EXIT_FAIL : 0;
}

/* Run tring-report-html with "html"'s arguments; returns on failure. */
static int html(char **argv)
{
	static const char * const rel[] = {
		"../lib/tring/tring-report-html",	/* PREFIX/bin */
		"../../tools/tring/tring-report-html",	/* build/tools */
	};
	const char *env = getenv("TRING_REPORT_HTML");
	char self[PATH_MAX], path[PATH_MAX + 64], *slash;
	ssize_t n;
	size_t i;

	argv[0] = "tring-report-html";
	if (env && *env) {
		execv(env, argv);
		fprintf(stderr, "tring-report: %s: %s\n", env, strerror(errno));
		return RP_EXIT_FAIL;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return RP_EXIT_FAIL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self, rel[i]);
		if (!access(path, X_OK))
			execv(path, argv);
	}
	fprintf(stderr, "tring-report: tring-report-html is not installed beside %s (make install puts it in PREFIX/lib/tring)\n",
		self);
	return RP_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "html"))
		return html(argv + 1);
	if (argc < 2 || strcmp(argv[1], "stacks")) {
		fputs(usage_text, stderr);
		return RP_EXIT_USAGE;
	}
	return stacks(argc - 1, argv + 1);
}
