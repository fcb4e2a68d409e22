// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: command line.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record.h"

enum {
	OPT_OVERWRITE = 0x100,
	OPT_DISCARD,
	OPT_CLOCK,
	OPT_INSTANCE,
	OPT_DEBUGFS,
	OPT_NO_STATEDUMP,
	OPT_FILTER,
	OPT_FOLLOW,
	OPT_SESSION,
	OPT_LIVE,
	OPT_SUMMARY,
	OPT_NICE,
	OPT_RESET,
	OPT_MAX_SIZE,
	OPT_ROTATE,
	OPT_PROBE,
	OPT_FUNCTION,
	OPT_CALLSTACK,
};

static const struct option long_options[] = {
	{ "output",	 required_argument, NULL, 'o' },
	{ "force",	 no_argument,	    NULL, 'f' },
	{ "duration",	 required_argument, NULL, 'd' },
	{ "cpus",	 required_argument, NULL, 'c' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "subbuf-size", required_argument, NULL, 's' },
	{ "overwrite",	 no_argument,	    NULL, OPT_OVERWRITE },
	{ "discard",	 no_argument,	    NULL, OPT_DISCARD },
	{ "clock",	 required_argument, NULL, OPT_CLOCK },
	{ "watermark",	 required_argument, NULL, 'w' },
	{ "instance",	 required_argument, NULL, OPT_INSTANCE },
	{ "debugfs",	 required_argument, NULL, OPT_DEBUGFS },
	{ "no-statedump", no_argument,	    NULL, OPT_NO_STATEDUMP },
	{ "event",	 required_argument, NULL, 'e' },
	{ "filter",	 required_argument, NULL, OPT_FILTER },
	{ "probe",	 required_argument, NULL, OPT_PROBE },
	{ "function",	 required_argument, NULL, OPT_FUNCTION },
	{ "context",	 required_argument, NULL, 'C' },
	{ "callstack",	 required_argument, NULL, OPT_CALLSTACK },
	{ "list",	 no_argument,	    NULL, 'l' },
	{ "pid",	 required_argument, NULL, 'p' },
	{ "follow",	 no_argument,	    NULL, OPT_FOLLOW },
	{ "session",	 required_argument, NULL, OPT_SESSION },
	{ "live",	 optional_argument, NULL, OPT_LIVE },
	{ "summary",	 required_argument, NULL, OPT_SUMMARY },
	{ "nice",	 required_argument, NULL, OPT_NICE },
	{ "reset",	 no_argument,	    NULL, OPT_RESET },
	{ "max-size",	 required_argument, NULL, OPT_MAX_SIZE },
	{ "rotate",	 required_argument, NULL, OPT_ROTATE },
	{ "quiet",	 no_argument,	    NULL, 'q' },
	{ "help",	 no_argument,	    NULL, 'h' },
	{ NULL,		 0,		    NULL, 0 },
};

/* "+": options end at COMMAND, whose own options are its. */
#define SHORT_OPTS	"+o:fd:c:b:s:w:e:p:C:lqh"

/* The long option @name (up to '=' or its end) names, as getopt reads it. */
static const struct option *find_long(const char *name)
{
	size_t len = strcspn(name, "=");
	const struct option *o, *prefix = NULL;

	for (o = long_options; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (!o->name[len])
			return o;
		if (!prefix)
			prefix = o;
	}
	return prefix;
}

/* Does the option @arg take the next argument as its value? */
static bool takes_next(const char *arg)
{
	const struct option *o;
	const char *p, *q;

	if (arg[1] == '-') {
		o = find_long(arg + 2);
		return o && o->has_arg == required_argument &&
		       !strchr(arg, '=');
	}
	for (p = arg + 1; *p; p++) {
		q = strchr(SHORT_OPTS + 1, *p);
		if (q && q[1] == ':')
			return !p[1];
	}
	return false;
}

static bool is_list(const char *arg)
{
	const struct option *o;
	const char *p, *q;

	if (arg[1] == '-') {
		o = find_long(arg + 2);
		return o && o->val == 'l';
	}
	for (p = arg + 1; *p; p++) {
		if (*p == 'l')
			return true;
		q = strchr(SHORT_OPTS + 1, *p);
		if (q && q[1] == ':')
			return false;
	}
	return false;
}

/**
 * tr_names_command - does the command line name a COMMAND?
 * @argc: argument count.
 * @argv: arguments.
 *
 * Read as getopt reads it, also when it holds a bad option (taken as
 * one without a value): a "--" that ends the options, or an argument
 * after them, with something after it; never with --list (its argument
 * is a GLOB). A usage error then exits 125 with a COMMAND, 1 without,
 * whether or not "--" appears as some option's value.
 *
 * Return: true if it does.
 */
bool tr_names_command(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc;
		if (argv[i][0] != '-' || !argv[i][1])
			return true;
		if (is_list(argv[i]))
			return false;
		if (takes_next(argv[i]))
			i++;
	}
	return false;
}

/* A whole decimal number in [min, max], or -1. */
static long parse_long(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	return v;
}

static int parse_cpu_number(const char **s, unsigned int *cpu)
{
	char *end;
	unsigned long v;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	v = strtoul(*s, &end, 10);
	if (errno || v >= TR_MAX_CPUS)
		return -1;
	*cpu = v;
	*s = end;
	return 0;
}

/**
 * tr_parse_cpulist - parse a list like "0,2-3" into a bitmap
 * @s: the list.
 * @bitmap: TR_MAX_CPUS bits, set for each CPU listed (not cleared first).
 *
 * Return: 0, or -1 if the list is malformed or names a CPU beyond
 * TR_MAX_CPUS.
 */
int tr_parse_cpulist(const char *s, unsigned char *bitmap)
{
	unsigned int first, last, cpu;

	if (!*s)
		return -1;
	for (;;) {
		if (parse_cpu_number(&s, &first))
			return -1;
		last = first;
		if (*s == '-') {
			s++;
			if (parse_cpu_number(&s, &last) || last < first)
				return -1;
		}
		for (cpu = first; cpu <= last; cpu++)
			tr_cpu_set(bitmap, cpu);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

static int bad_value(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "tring-record: invalid %s '%s': %s\n", opt, val, why);
	return TR_EXIT_USAGE;
}

/*
 * A size in KiB: a number, or one with a K, M or G suffix (KiB, MiB,
 * GiB; "KB", "MiB" and the like too), in [min, max] KiB; -1 if not.
 */
long tr_parse_size_kb(const char *s, long min, long max)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		const char *u = strchr("kKmMgG", *end);

		if (!u || (strcmp(end + 1, "") && strcmp(end + 1, "B") &&
			   strcmp(end + 1, "iB")))
			return -1;
		shift = (u - "kKmMgG") / 2 * 10;
	}
	if (v > (unsigned long long)max >> shift)
		return -1;
	v <<= shift;
	return v < (unsigned long long)min ? -1 : (long)v;
}

/* parse_long() cannot: -1 is a nice value. */
static int parse_nice(struct tr_opts *o, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < -20 || v > 19)
		return bad_value("nice value", arg, "expected -20 to 19");
	o->nice = (int)v;
	o->nice_given = true;
	return 0;
}

static int parse_duration(struct tr_opts *o, const char *s)
{
	char *end;

	errno = 0;
	o->duration = strtod(s, &end);
	/* Also catches NaN, which compares false. */
	if (errno || end == s || *end || !(o->duration > 0) ||
	    o->duration > 1e9)
		return bad_value("duration", s, "expected seconds > 0");
	return 0;
}

/* The buffer's options: sizes, mode, clock, watermark; others are usage errors. */
static int parse_buffer_opt(struct tr_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'b':
		o->buffer_kb = tr_parse_size_kb(arg, 1, 4L << 20);
		if (o->buffer_kb < 0)
			return bad_value("buffer size", arg,
					 "expected KiB from 1 to 4194304, or a size with K, M or G");
		return 0;
	case 's':
		o->subbuf_kb = tr_parse_size_kb(arg, 1, 16384);
		if (o->subbuf_kb < 0 || (o->subbuf_kb & (o->subbuf_kb - 1)))
			return bad_value("sub-buffer size", arg,
					 "expected KiB (or K, M), a power of two up to 16M");
		return 0;
	case OPT_OVERWRITE:
		o->overwrite = 1;
		return 0;
	case OPT_DISCARD:
		o->overwrite = 0;
		return 0;
	case OPT_CLOCK:
		if (strcmp(arg, "mono") && strcmp(arg, "local"))
			return bad_value("clock", arg, "expected mono or local");
		o->clock = arg;
		return 0;
	case 'w':
		o->watermark = parse_long(arg, 1, INT32_MAX);
		if ((long)o->watermark < 0)
			return bad_value("watermark", arg,
					 "expected a number of sub-buffers >= 1");
		return 0;
	}
	return TR_EXIT_USAGE;
}

/* -p PID[,PID...]: each a live process (EPERM: it exists). */
static int parse_pids(struct tr_opts *o, const char *arg)
{
	const char *s = arg;
	char *end;
	long v;

	do {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT32_MAX ||
		    (*end && *end != ','))
			return bad_value("pid", arg, "expected PID[,PID...]");
		if (kill(v, 0) && errno == ESRCH)
			return bad_value("pid", arg, "no such process");
		if (o->npids == TR_MAX_PIDS)
			return bad_value("pid", arg, "more than 256 processes");
		o->pids[o->npids++] = v;
		s = end + 1;
	} while (*end);
	return 0;
}

/* The events' options: -e, --filter, --list, -p, --follow; others go on. */
static int parse_event_opt(struct tr_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'p':
		return parse_pids(o, arg);
	case OPT_FOLLOW:
		o->follow = true;
		return 0;
	case 'e':
		if (!*arg || strlen(arg) > 200)
			return bad_value("event", arg, "empty or too long");
		if (o->nspecs == TR_MAX_SPECS)
			return bad_value("event", arg, "more than 64 -e options");
		o->specs[o->nspecs++] = arg;
		return 0;
	case OPT_PROBE:
		return tr_parse_probe(o, arg);
	case OPT_FUNCTION:
		return tr_parse_function(o, arg);
	case 'C':
		return tr_parse_context(o, arg);
	case OPT_CALLSTACK:
		return tr_parse_callstack(o, arg);
	case OPT_FILTER:
		if (!o->nspecs || o->filters[o->nspecs - 1])
			return bad_value("filter", arg,
					 "needs an -e or --probe before it, one filter each");
		if (!*arg || strlen(arg) > 1024)
			return bad_value("filter", arg, "empty or over 1024 bytes");
		o->filters[o->nspecs - 1] = arg;
		return 0;
	case 'l':
		o->list = true;
		return 0;
	}
	return parse_buffer_opt(o, c, arg);
}

/* Long recordings and the module: --max-size, --rotate, --reset. */
static int parse_run_opt(struct tr_opts *o, int c, const char *arg)
{
	long v;

	switch (c) {
	case OPT_RESET:
		o->reset = true;
		return 0;
	case OPT_MAX_SIZE:
		v = tr_parse_size_kb(arg, 1, LONG_MAX >> 10);
		if (v < 0)
			return bad_value("maximum size", arg,
					 "expected KiB, or a size with K, M or G");
		o->max_size = (uint64_t)v << 10;
		return 0;
	case OPT_ROTATE:
		return tr_parse_rotate(o, arg);
	}
	return parse_event_opt(o, c, arg);
}

/* Streaming and the summary: --session, --live, --summary. */
static int parse_net_opt(struct tr_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_SESSION:
		if (!*arg || strlen(arg) > 200 || strchr(arg, '/') ||
		    arg[0] == '.')
			return bad_value("session", arg,
					 "not a session name (1 to 200 characters, no '/', not starting with '.')");
		o->session = arg;
		return 0;
	case OPT_SUMMARY:
		if (!*arg)
			return bad_value("summary file", arg, "empty");
		o->summary = arg;
		return 0;
	case OPT_LIVE:
		o->live_us = arg ? parse_long(arg, 1, UINT32_MAX) :
			     TR_RELAY_LIVE_US;
		if (o->live_us < 0)
			return bad_value("live timer", arg,
					 "expected microseconds > 0");
		return 0;
	}
	return parse_run_opt(o, c, arg);
}

static int parse_one(struct tr_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'o':
		if (!*arg)
			return bad_value("output", arg, "empty");
		o->output = arg;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'd':
		return parse_duration(o, arg);
	case 'c':
		o->cpus_given = true;
		if (tr_parse_cpulist(arg, o->cpus))
			return bad_value("CPU list", arg,
					 "expected e.g. 0,2-3");
		return 0;
	case OPT_INSTANCE:
		if (!*arg || strchr(arg, '/') || !strcmp(arg, ".") ||
		    !strcmp(arg, ".."))
			return bad_value("instance", arg, "not a buffer name");
		o->instance = arg;
		return 0;
	case OPT_DEBUGFS:
		o->debugfs = arg;
		o->debugfs_given = true;
		return 0;
	case OPT_NO_STATEDUMP:
		o->no_statedump = true;
		return 0;
	case OPT_NICE:
		return parse_nice(o, arg);
	case 'q':
		o->quiet = true;
		return 0;
	}
	return parse_net_opt(o, c, arg);
}

static void set_defaults(struct tr_opts *o)
{
	const char *env = getenv("TRING_DEBUGFS");
	time_t now = time(NULL);
	struct tm tm;

	memset(o, 0, sizeof(*o));
	o->buffer_kb = -1;
	o->subbuf_kb = -1;
	o->overwrite = -1;
	o->debugfs = "/sys/kernel/debug";
	if (env && *env) {
		o->debugfs = env;
		o->debugfs_given = true;
	}
	localtime_r(&now, &tm);
	strftime(o->default_output, sizeof(o->default_output),
		 "tring-%Y%m%d-%H%M%S", &tm);
}

/* Options that do not go together; 0, or -1 after saying why. */
static int check_combinations(struct tr_opts *o)
{
	static struct tr_relay url;

	if (o->reset && (o->command || o->list)) {
		fprintf(stderr, "tring-record: --reset does nothing else (no COMMAND, no --list)\n");
		return -1;
	}
	if (!o->output)
		o->output = o->default_output;
	o->net = tr_relay_is_url(o->output);
	if (o->net && o->rotate_ns) {
		fprintf(stderr, "tring-record: with net://, --rotate takes a SIZE (the relay's tracefile_size), not SECONDS\n");
		return -1;
	}
	/* A bad URL is a usage error, said before anything is looked at. */
	if (o->net && tr_relay_parse_url(&url, o->output))
		return -1;
	if ((o->session || o->live_us) && !o->net) {
		fprintf(stderr, "tring-record: --session and --live need -o net://HOST\n");
		return -1;
	}
	return 0;
}

/**
 * tr_parse_options - parse the command line
 * @o: filled in.
 * @argc: argument count.
 * @argv: arguments.
 *
 * Return: 0 to go on, -1 when --help was shown (exit 0), or an exit
 * status after printing what is wrong.
 */
int tr_parse_options(struct tr_opts *o, int argc, char **argv)
{
	int c, ret;

	set_defaults(o);
	/* 0, not 1: starts getopt afresh (the unit test parses many times). */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, SHORT_OPTS, long_options,
				NULL)) != -1) {
		if (c == 'h') {
			tr_usage(stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			goto usage;
		ret = parse_one(o, c, optarg);
		if (ret)
			return ret;
	}
	/* --list [GLOB] */
	if (o->list && optind == argc - 1)
		o->list_glob = argv[optind++];
	if (optind < argc && !o->list) {
		o->command = argv + optind;
		optind = argc;
	}
	if (optind < argc) {
		fprintf(stderr, "tring-record: unexpected argument '%s'\n",
			argv[optind]);
		goto usage;
	}
	if (check_combinations(o))
		goto usage;
	return 0;
usage:
	fprintf(stderr, "Try 'tring-record --help'.\n");
	return TR_EXIT_USAGE;
}
