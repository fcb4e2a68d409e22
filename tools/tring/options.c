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

static const char usage_head[] =
"NAME\n"
"	tring-record - save tring per-CPU trace buffers as CTF streams\n"
"\n"
"SYNOPSIS\n"
"	tring-record [-o DIR] [-d SECONDS] [-c CPUS] [-e EVENT]... [OPTION]...\n"
"	tring-record [OPTION]... [-p PID[,PID...]] [--follow]\n"
"	tring-record [OPTION]... -- COMMAND [ARG]...\n"
"	tring-record -o net://HOST[:PORT[:PORT]] [--live[=US]] [OPTION]...\n"
"	tring-record -l [GLOB]\n""	tring-record --reset\n"
"\n"
"DESCRIPTION\n"
"	Opens the stream of every CPU of a tring buffer, sleeps until the\n"
"	kernel has complete sub-buffers and writes them, unchanged and\n"
"	straight from the kernel's read-only mapping, to\n"
"	DIR/kernel/stream_<cpu>. Each sub-buffer is a CTF 1.8 packet; the\n"
"	buffer's CTF metadata is copied to DIR/kernel/metadata, so\n"
"	DIR/kernel is a CTF trace, laid out as in an LTTng session\n"
"	directory; babeltrace2 DIR finds it there.\n"
"\n"
"	Once the streams are open, and before anything is read, the\n"
"	kernel is asked for a statedump (\"1\" written to\n"
"	<debugfs>/tring/statedump): lttng_statedump_start, one event per\n"
"	thread, IRQ action and block device, lttng_statedump_end, written\n"
"	into the default buffer, so the trace names every thread that\n"
"	existed before it began; with --cpus, from a CPU recorded. Not\n"
"	with --instance or --no-statedump. A module without that file,\n"
"	or a failed write, is a warning; the recording goes on.\n"
"\n"
"	Recording stops on SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT or\n"
"	SIGPIPE, or when the duration ends. Every CPU's partly filled\n"
"	sub-buffer is then flushed and\n"
"	read, so nothing recorded before the stop is lost; a packet still\n"
"	incomplete after 2 seconds is given up with a warning. A second\n"
"	signal aborts this drain; a third kills tring-record. A file grown\n"
"	past the file size limit (SIGXFSZ) is a failed write. SIGHUP\n"
"	ignored when tring-record starts (nohup) stays ignored.\n"
"\n"
"	Given a COMMAND (after --, or after the last option),\n"
"	tring-record starts it once recording runs, records it and every\n"
"	process it starts (and no other: it is tracked, with --follow),\n"
"	and stops when it exits; its exit status is then tring-record's\n"
"	(see EXIT STATUS). If recording stops first (a signal,\n"
"	--duration), COMMAND is sent SIGTERM, and SIGKILL 2 s later.\n"
"\n"
"	When the buffer is destroyed while it is recorded (an instance\n"
"	removed by the kernel code that owns it), every stream hangs up\n"
"	once its complete sub-buffers are taken: tring-record then says\n"
"	so, saves what is left in the same way, and stops by itself.\n"
"\n"
"	On a terminal a status line shows events per second, data written\n"
"	and events lost so far. At the end a per-CPU summary goes to\n"
"	standard error and, as key=value lines, to DIR/.tring-record.summary\n"
"	(beside the trace's directory, not in it, and hidden).\n"
"\n"
"OPTIONS\n"
"	-o, --output DIR\n"
"		Write the trace to DIR/kernel (DIR created, with its\n"
"		parents, if missing). Default: tring-YYYYMMDD-HHMMSS in the\n"
"		current directory. A non-empty DIR is refused without\n"
"		--force.\n"
"	-o, --output net://HOST[:CONTROL_PORT[:DATA_PORT]]\n"
"		Stream the trace to LTTng's relay daemon (lttng-relayd)\n"
"		on HOST instead of writing files, as LTTng's own consumer\n"
"		does (net6:// for IPv6 only, [ADDR] for an IPv6 address;\n"
"		ports 5342 and 5343 by default). HOST is an address or a\n"
"		name of /etc/hosts (no DNS: give a relay not listed there\n"
"		by its address). The relay files it under\n"
"		its output directory as HOSTNAME/SESSION/kernel, this\n"
"		machine's host name first, where it puts LTTng's traces,\n"
"		and babeltrace2 reads it there as a local recording. No\n"
"		file is written here: the summary goes to standard error\n"
"		(and to --summary FILE). Packets go to the relay as they are complete, their\n"
"		padding left for the relay to write. Events described\n"
"		after the start (a module loaded) are declared at the\n"
"		end, and with --live every 2 s at most. At the end it\n"
"		waits (10 s at most) until the relay has written all.\n"
"		Each exchange with the relay is given 10 s in all; at the\n"
"		start a signal ends a wait for it, while recording a\n"
"		second one does.\n"
"	--session NAME\n"
"		The session's name on the relay (default\n"
"		tring-YYYYMMDD-HHMMSS); its directory there is\n"
"		NAME-YYYYMMDD-HHMMSS, as LTTng names a named session's.\n"
"	--live[=MICROSECONDS]\n"
"		A live session (default timer 1000000, one second, as\n"
"		lttng create --live): each CPU's partly filled sub-buffer\n"
"		is flushed and sent at every tick, an idle CPU's stream\n"
"		is moved forward in time (an empty packet first, then\n"
"		beacons), so that\n"
"		babeltrace2 net://RELAYHOST/host/HOSTNAME/SESSION shows\n"
"		events about a tick after they are written. Each tick\n"
"		costs every busy CPU a sub-buffer. At the end the session\n"
"		stays open a tick more (a second at least), so that viewers\n"
"		read the last packets.\n"
"	--rotate SIZE|SECONDS\n"
"		Write the trace as numbered chunks, DIR/chunk_<N>/kernel\n"
"		(N from 0), each a whole CTF trace (its metadata, a stream\n"
"		file per CPU of whole packets): a new chunk begins before a\n"
"		batch of packets that would take the one written past SIZE\n"
"		(64M: K, M or G needed), or once it is SECONDS old (60,\n"
"		60s; at the first packet after that), as lttng rotate and\n"
"		perf record --switch-output do. babeltrace2 DIR/chunk_3\n"
"		reads a chunk, babeltrace2 DIR all of them as one trace.\n"
"		With net://, SIZE only: it is each CPU stream's\n"
"		tracefile_size, the relay splitting the files.\n"
"	--max-size SIZE\n"
"		Without --rotate, stop once SIZE is saved (KiB, or K, M, G),\n"
"		as -d does: the drain still saves what the rings hold. With\n"
"		--rotate, keep the last chunks: as a chunk begins, the\n"
"		oldest ones are removed while they and a full new chunk\n"
"		would not fit in SIZE (with --rotate SECONDS, while those\n"
"		kept pass SIZE). With net:// and --rotate SIZE, the\n"
"		relay's tracefile_count, SIZE / --rotate SIZE.\n"
"	--summary FILE\n"
"		Write the summary's key=value lines to FILE instead of\n"
"		DIR/.tring-record.summary (with net://, where none is\n"
"		written otherwise).\n"
"	-f, --force\n"
"		Record into a non-empty DIR: kernel/stream_*,\n"
"		kernel/metadata and .tring-record.summary left by an\n"
"		earlier run are removed, and so are the stream_* and\n"
"		metadata of a trace an older tring-record wrote to DIR\n"
"		itself, and the chunk_<N> directories of --rotate; other\n"
"		files are left alone.\n"
"	-d, --duration SECONDS\n"
"		Stop after SECONDS (decimals allowed).\n"
"	-e, --event EVENT\n"
"		Record this event (repeatable): a name (sched_switch,\n"
"		sys_openat; every system call: syscall_entry), GROUP:EVENT\n"
"		as perf and trace-cmd spell it\n"
"		(sched:sched_switch), a group (sched, or sched:*), a glob\n"
"		(sys_*, block:*), or all. Exactly the events chosen are on\n"
"		while recording, and the buffer starts empty (rebuilt: what\n"
"		it held is dropped); the enable state found is restored at\n"
"		exit, also after Ctrl-C or a failed start. A kernel event tring\n"
"		does not list yet (a core kernel event, see \"Generic\n"
"		events\" in tring.rst) is offered from tracefs's\n"
"		available_events. Without -e, whatever is enabled is\n"
"		recorded. The default buffer only.\n"
"	--probe DEF\n"
"		Make a dynamic probe for this recording (repeatable) and\n"
"		record its event as if by -e: DEF is a line of\n"
"		kprobe_events or uprobe_events, in ftrace's syntax\n"
"		('p:mygrp/open do_sys_openat2 dfd=%di:s32',\n"
"		'r:mygrp/ret vfs_read ret=$retval:s64'). A uprobe's target\n"
"		may name a function, PATH:SYMBOL[+OFFS], found in the\n"
"		file's symbol table, or be PATH:0xOFFSET. Removed at exit,\n"
"		also after Ctrl-C or a failed start. A --filter right\n"
"		after it applies to its event.\n"
"	--function GLOB\n"
"		Record the entry of every kernel function GLOB matches\n"
"		(repeatable; !GLOB leaves functions out): the event\n"
"		ftrace:function {ip, parent_ip}, names in the trace. The\n"
"		set of functions found is written back at exit.\n"
"	--filter EXPR\n"
"		Record only the events of the -e or --probe just before it that EXPR\n"
"		selects, in ftrace's filter syntax (pid == 42 && comm ~\n"
"		\"ba*\"); written to each event's filter file, restored at\n"
"		exit. The kernel drops the others before the buffer. The\n"
"		fields are those --list shows, and common_pid; syscall_entry\n"
"		and tring:marker have no filter.\n"
"	-p, --pid PID[,PID...]\n"
"		Record only these processes (repeatable): every thread of\n"
"		each; a thread's number stands for its process. The kernel\n"
"		drops other processes' events before the buffer\n"
"		(<debugfs>/tring/tracking/pid; scheduler events are kept\n"
"		when either task they name is tracked; the statedump\n"
"		still lists every thread). Restored at exit.\n"
"	--follow\n"
"		Also record the children the tracked processes start from\n"
"		now on, and theirs (tracking/follow; always on with a\n"
"		COMMAND).\n"
"	-l, --list [GLOB]\n"
"		List the events -e can choose (those matching GLOB, in\n"
"		-e's spelling), each with its fields and their types, and\n"
"		exit.\n"
"	-c, --cpus LIST\n"
"		Record only these CPUs, e.g. 0,2-3. Default: every CPU the\n"
"		buffer has a stream for. A CPU not online since the\n"
"		buffer was made has no ring yet: it is looked for once a\n"
"		second and recorded from when it comes online.\n"
"	-b, --buffer-size SIZE\n"
"		Set the per-CPU ring size (knob buffer_size_kb): KiB, or\n"
"		with a K, M or G suffix (4M is 4096).\n"
"	-s, --subbuf-size SIZE\n"
"		Set the sub-buffer size, a power of two (knob\n"
"		buffer_subbuf_size_kb): KiB, or with K or M (1M).\n"
"	--overwrite, --discard\n"
"		Flight-recorder mode (the oldest unread data is\n"
"		overwritten) or drop new events when the ring is full\n"
"		(knob overwrite).\n"
"	--clock mono|local\n"
"		Timestamp source (knob trace_clock).\n"
"	-w, --watermark N\n"
"		Wake up once N sub-buffers of a CPU are complete (default:\n"
"		the kernel's, an eighth of the ring, at least 1).\n"
"	--nice N\n"
"		Record at nice value N, -20 to 19 (default -10, or the\n"
"		one tring-record was started with if that is lower): a\n"
"		reader that many busy tasks keep from its CPU loses\n"
"		events. A COMMAND runs at the value tring-record was\n"
"		started with.\n"
"	--instance NAME\n"
"		Record the buffer instances/NAME instead of the default one\n"
"		(no statedump: the kernel writes it into the default buffer\n"
"		only).\n"
"	--no-statedump\n"
"		Do not ask the kernel for a statedump at the start.\n"
"	--debugfs PATH\n"
"		Where debugfs is mounted (default /sys/kernel/debug, or the\n"
"		TRING_DEBUGFS environment variable).\n"
"	--reset\n"
"		Put the module back as it was loaded, as trace-cmd reset\n"
"		does for ftrace, and exit: tracking/pid cleared and follow\n"
"		off; every event of the default buffer disabled, tring's\n"
"		and the generic ones, and every filter removed; the knobs\n"
"		buffer_subbuf_size_kb, buffer_size_kb and overwrite at the\n"
"		values of the module's parameters (subbuf_size,\n"
"		subbuf_count, overwrite in /sys/module/tring/parameters),\n"
"		trace_clock mono. Generic events offered stay offered\n"
"		(disabled): the module cannot withdraw them. Instances are\n"
"		left alone. A recording warns at the start about a\n"
"		tracking set, filters or generic events enabled that an\n"
"		earlier run may have left.\n"
"	-q, --quiet\n"
"		No status line and no summary on standard error; warnings\n"
"		and errors are still shown.\n"
"	-h, --help\n"
"		Show this text.\n"
"\n"
"	A second tring-record fails before it changes anything: each run\n"
"	holds an flock() on <debugfs>/tring (and the instance's directory).\n"
"\n"
"	Knobs are written before the streams are opened (the kernel\n"
"	refuses while a stream is open) and only when they change:\n"
"	writing one rebuilds the buffer and drops what it holds.\n"
"\n"
"FILES\n"
"	Every file is made with mode 0600, never through a symbolic link\n"
"	(one found with its name is removed); run through sudo, the files\n"
"	and the directories made go to SUDO_UID:SUDO_GID.\n"
"\n"
"	DIR/kernel/stream_<cpu>\n"
"		the CPU's packets, whole sub-buffers, in order\n"
"	DIR/kernel/metadata\n"
"		copy of the buffer's CTF metadata\n""	DIR/chunk_<N>/kernel/\n"
"		with --rotate: chunk N, stream_<cpu> and metadata\n"
"	DIR/.tring-record.summary\n"
"		key=value lines: the settings (subbuf_size, overwrite,\n"
"		clock, nice, cpus recorded, cpus_without_ring: never online\n"
"		while recording...), what it cost (duration_ns, user_ns,\n"
"		sys_ns, syscalls), with a COMMAND its command_pid and\n"
"		command_exit_status, how it ended (exit_status and):\n";

static const char usage_tail[] =
"\n"
"ENVIRONMENT\n"
"	TRING_DEBUGFS      debugfs mount point, as --debugfs (which wins)\n""	TRING_RELAY_TIMEOUT  seconds for each exchange with the relay (10)\n""	TRING_SYSFS        where sysfs is mounted, for --reset (/sys)\n"
"\n"
"EXAMPLES\n"
"	tring-record -o /tmp/trace            until Ctrl-C\n"
"	tring-record -o /tmp/trace -d 10 -c 0-3 -b 4096 -s 256\n"
"	babeltrace2 /tmp/trace                read it\n"
"	tring-record -o /tmp/t -e sched -e 'sys_*' -- make -j4\n"
"	tring-record -o /tmp/t -p 1234 --follow -d 30\n"
"	tring-record -o net://collector --live --session web1\n"
"	babeltrace2 net://collector/host/$(hostname)/web1   watch it\n"
"\n"
"	On the relay host: lttng-relayd -o /srv/traces (ports 5342, 5343\n"
"	and, for live viewers, 5344).\n"
"\n"
"EXIT STATUS\n"
"	0  recorded (a drain that timed out is only a warning), also\n"
"	   when the buffer was destroyed: all it held is saved\n"
"	1  bad option, or DIR not empty\n"
"	2  cannot start: not root, debugfs not mounted, tring not loaded,\n"
"	   no such instance or CPU, buffer busy; the relay unreachable,\n"
"	   refusing or speaking another protocol\n"
"	3  writing the output failed (e.g. disk full), or the\n"
"	   connection to the relay was lost; what was saved (or reached\n"
"	   the relay) is valid and the summary says what was lost\n"
"	4  a stream failed while recording\n"
"	5  the drain was aborted by a second signal\n"
"\n"
"	When several apply, 3 comes before 4, and 4 before 5.\n"
"\n"
"	With a COMMAND: COMMAND's exit status (128 + N if signal N\n"
"	killed it) when the recording succeeded, else\n"
"	125  tring-record failed (any of 1 to 5 above; the summary's\n"
"	     exit_status= says which), COMMAND ran or not; also a bad\n"
"	     option of a command line that names a COMMAND (after --,\n"
"	     or after the options, as getopt reads them)\n"
"	126  COMMAND was found but could not be run\n"
"	127  COMMAND was not found\n";

void tr_usage(FILE *f)
{
	fputs(usage_head, f);
	tr_usage_summary(f);
	fputs(usage_tail, f);
}

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
#define SHORT_OPTS	"+o:fd:c:b:s:w:e:p:lqh"

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
