// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit tests: -e (events.c) and --list (list.c) against a fake
 * events/ tree and a fake tracefs available_events.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_record.h"

/* events/<group>/<event>/{enable,format} with enable reading @on. */
static void fake_event(const char *group, const char *name, int on)
{
	char path[600];

	mkdirs("%s/events/%s/%s", fk.tring, group, name);
	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", fk.tring, group,
		 name);
	write_file(path, on ? "1\n" : "0\n");
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", fk.tring, group,
		 name);
	write_file(path, "name: x\nID: 5\nformat:\n"
		   "\tfield:s32 tid;\toffset:0;\tsize:4;\tsigned:1;\n"
		   "\tfield:string comm;\toffset:4;\tsize:0;\tsigned:0;\n");
}

/* 1 or 0 as the event's enable reads; -1 when it does not exist. */
static int enabled(const char *group, const char *name)
{
	char path[600], buf[8];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", fk.tring, group,
		 name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && buf[0] == '1';
}

/* A kernel with tring's events, two of them on, and three tracefs events. */
static void fake_events(void)
{
	char path[600];

	fake_setup(1, 4096, 8, false);
	fake_event("sched", "sched_switch", 0);
	fake_event("sched", "sched_waking", 0);
	fake_event("net", "net_dev_queue", 1);
	fake_event("tring", "marker", 1);
	fake_event("syscalls", "syscall_entry", 0);
	mkdirs("%s/tracing/events/kmem/kmalloc", fk.dbg);
	snprintf(path, sizeof(path), "%s/tracing/available_events", fk.dbg);
	write_file(path, "sched:sched_switch\nkmem:kmalloc\nkmem:kfree\nirq:softirq_entry\n");
	snprintf(path, sizeof(path), "%s/tracing/events/kmem/kmalloc/format",
		 fk.dbg);
	write_file(path, "name: kmalloc\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\n"
		   "\tfield:size_t bytes_req;\toffset:16;\tsize:8;\n");
}

static int states[6];

static void tick_look(unsigned int n)
{
	if (n != 1)
		return;
	states[0] = enabled("sched", "sched_switch");
	states[1] = enabled("sched", "sched_waking");
	states[2] = enabled("net", "net_dev_queue");
	states[3] = enabled("kmem", "kmalloc");
	states[4] = enabled("kmem", "kfree");
	states[5] = enabled("tring", "marker");
	tr_request_stop();
}

/*
 * Exactly the events chosen are on while recording (a group, a
 * GROUP:EVENT offered from tracefs, a name); the others are switched
 * off; everything is as it was afterwards.
 */
static void test_events_select_restore(void)
{
	fake_events();
	fk.tick = tick_look;
	CHECK(record("-e sched -e kmem:kmalloc -e marker") == 0);
	CHECK(states[0] == 1 && states[1] == 1);
	CHECK(states[2] == 0);		/* on before, not chosen */
	CHECK(states[3] == 1);		/* offered, then enabled */
	CHECK(states[4] == -1);		/* not asked for: not offered */
	CHECK(states[5] == 1);		/* on before and chosen */
	CHECK(enabled("sched", "sched_switch") == 0);
	CHECK(enabled("sched", "sched_waking") == 0);
	CHECK(enabled("net", "net_dev_queue") == 1);
	CHECK(enabled("kmem", "kmalloc") == 0);
	CHECK(enabled("tring", "marker") == 1);
	CHECK(err_has("4 events selected"));
	/* What the buffer held (events not chosen) is dropped first. */
	CHECK(strstr(fk.events, "knob buffer_size_kb=1024\n"));

	/* Globs in either part, and all. */
	fake_events();
	fk.tick = tick_look;
	CHECK(record("-e s*:*_waking") == 0);
	CHECK(states[0] == 0 && states[1] == 1 && states[5] == 0);
	/* A group tring does not list yet: offered whole. */
	fake_events();
	fk.tick = tick_look;
	CHECK(record("-e kmem") == 0);
	CHECK(states[0] == 0 && states[3] == 1 && states[4] == 1);
	fake_events();
	fk.tick = tick_look;
	CHECK(record("-e all") == 0);
	CHECK(states[0] == 1 && states[2] == 1 && states[3] == 1 &&
	      states[4] == 1);
	CHECK(enabled("kmem", "kfree") == 0);
}

/* A spec that names nothing, or a failed start: nothing stays changed. */
static void test_events_errors(void)
{
	fake_events();
	CHECK(record("-e sched -e nosuch") == TR_EXIT_USAGE);
	CHECK(err_has("-e nosuch: no such event"));
	CHECK(enabled("sched", "sched_switch") == 0);
	CHECK(enabled("net", "net_dev_queue") == 1);

	fake_events();
	ring(0)->busy = true;
	CHECK(record("-e sched_switch") == TR_EXIT_SETUP);
	CHECK(enabled("sched", "sched_switch") == 0);
	CHECK(enabled("net", "net_dev_queue") == 1);
	CHECK(enabled("tring", "marker") == 1);

	fake_events();
	mkdirs("%s/instances/foo", fk.tring);
	CHECK(record("-e sched --instance foo") == TR_EXIT_USAGE);
	CHECK(err_has("-e chooses the default buffer's events"));
}

/* What an event's filter file reads, first line. */
static const char *filter_of(const char *group, const char *name)
{
	static char buf[256];
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/filter", fk.tring, group,
		 name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		strcpy(buf, "(none)");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static char seen_filter[256];

static void tick_filter(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(seen_filter, filter_of("kmem", "kmalloc"));
	tr_request_stop();
}

/*
 * --filter goes to the filter file of each event its -e chose, and the
 * filter found there comes back at exit; a refused one, or one for an
 * event without a filter file, stops the start with exit status 1.
 */
static void test_events_filter(void)
{
	char path[600];

	fake_events();
	fk.tick = tick_filter;
	CHECK(record("-e kmem:kmalloc --filter bytes_req>100") == 0);
	CHECK(!strcmp(seen_filter, "bytes_req>100"));
	CHECK(!strcmp(filter_of("kmem", "kmalloc"), "none"));

	/* One in force before: back afterwards. */
	fake_events();
	fake_event("kmem", "kmalloc", 0);
	snprintf(path, sizeof(path), "%s/events/kmem/kmalloc/filter", fk.tring);
	write_file(path, "bytes_req==1\n");
	fk.tick = tick_filter;
	CHECK(record("-e kmem:* --filter bytes_req<9") == 0);
	CHECK(!strcmp(seen_filter, "bytes_req<9"));
	CHECK(!strcmp(filter_of("kmem", "kmalloc"), "bytes_req==1"));

	fake_events();
	CHECK(record("-e kmem:kmalloc --filter nosuch==1") == TR_EXIT_USAGE);
	CHECK(err_has("error at 0: no such field"));
	CHECK(enabled("kmem", "kmalloc") == 0);
	CHECK(enabled("net", "net_dev_queue") == 1);

	fake_events();
	CHECK(record("-e sched_switch --filter prev_tid==1") == TR_EXIT_USAGE);
	CHECK(err_has("sched:sched_switch has no filter file"));
	CHECK(enabled("sched", "sched_switch") == 0);

	CHECK(record("--filter x==1 -e sched") == TR_EXIT_USAGE);
	CHECK(record("-e sched --filter a==1 --filter b==2") == TR_EXIT_USAGE);
}

/* --list [GLOB]: the events and their fields, tring's and tracefs's. */
static void test_events_list(void)
{
	char args[600], out[4096];

	fake_events();
	snprintf(args, sizeof(args), "--debugfs %s --list *:k*", fk.dbg);
	CHECK(run_stdout(args, out, sizeof(out)) == 0);
	CHECK(strstr(out, "kmem:kmalloc  (generic, offered by -e)\n\tsize_t bytes_req\n"));
	CHECK(strstr(out, "kmem:kfree"));
	CHECK(!strstr(out, "sched"));

	snprintf(args, sizeof(args), "--debugfs %s -l sched_switch", fk.dbg);
	CHECK(run_stdout(args, out, sizeof(out)) == 0);
	CHECK(!strcmp(out, "sched:sched_switch\n\ts32 tid\n\tstring comm\n"));
}

/* <tring>/@rel holding @text. */
static void tring_write(const char *rel, const char *text)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", fk.tring, rel);
	write_file(path, text);
}

/* The first line of <tring>/@rel. */
static const char *tring_line(const char *rel)
{
	static char buf[256];
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", fk.tring, rel);
	if (tr_read_small_file(path, buf, sizeof(buf)))
		strcpy(buf, "(none)");
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * What an earlier run left (a tracking set, filters on events it will
 * record, generic events enabled) is said at the start of a plain run:
 * it records less.
 */
static void test_events_leftovers(void)
{
	fake_events();
	mkdirs("%s/tracking", fk.tring);
	tring_write("tracking/pid", "4321\n");
	tring_write("tracking/follow", "0\n");
	/* A filter on an event that is on; one on an event off is moot. */
	tring_write("events/sched/sched_switch/enable", "1\n");
	tring_write("events/sched/sched_switch/filter", "prev_pid == 1\n");
	tring_write("events/sched/sched_waking/filter", "next_pid == 2\n");
	tring_write("events/generic_stats", "offered: 3\nenabled: 2\n");
	fk.tick = tick_stop;
	CHECK(record("") == 0);
	CHECK(err_has("tracking/pid holds 4321: only those processes are recorded"));
	CHECK(err_has("1 event has a filter in force (sched:sched_switch)"));
	CHECK(err_has("2 generic events are enabled"));
	/* Nothing to say when nothing is left. */
	fake_events();
	fk.tick = tick_stop;
	CHECK(record("") == 0);
	CHECK(!err_has("left by an earlier run"));
}

/*
 * --reset: tracking cleared, every event off and every filter gone, the
 * knobs at the module's load-time values; nothing recorded.
 */
static void test_events_reset(void)
{
	char sys[400];

	fake_events();
	mkdirs("%s/tracking", fk.tring);
	tring_write("tracking/pid", "4321\n");
	tring_write("tracking/follow", "1\n");
	tring_write("events/enable", "X\n");
	tring_write("events/generic_enable", "1\n");
	tring_write("events/generic_events", "kmem:kmalloc\n");
	tring_write("events/sched/sched_switch/filter", "prev_pid == 1\n");
	tring_write("buffer_size_kb", "256\n");
	tring_write("overwrite", "1\n");
	tring_write("trace_clock", "mono [local]\n");
	tring_write("kprobe_events", "p:a/b f\np:a/c g\n");
	snprintf(sys, sizeof(sys), "%s/sys", fk.root);
	mkdirs("%s/module/tring/parameters", sys);
	snprintf(sys, sizeof(sys), "%s/sys/module/tring/parameters/subbuf_size",
		 fk.root);
	write_file(sys, "65536\n");
	snprintf(sys, sizeof(sys), "%s/sys/module/tring/parameters/subbuf_count",
		 fk.root);
	write_file(sys, "64\n");
	snprintf(sys, sizeof(sys), "%s/sys/module/tring/parameters/overwrite",
		 fk.root);
	write_file(sys, "N\n");
	snprintf(sys, sizeof(sys), "%s/sys", fk.root);
	setenv("TRING_SYSFS", sys, 1);
	CHECK(record("--reset") == 0);
	unsetenv("TRING_SYSFS");
	CHECK(!strcmp(tring_line("tracking/pid"), ""));
	CHECK(!strcmp(tring_line("tracking/follow"), "0"));
	CHECK(!strcmp(tring_line("events/enable"), "0"));
	CHECK(!strcmp(tring_line("events/generic_enable"), "0"));
	CHECK(enabled("net", "net_dev_queue") == 0 && enabled("tring", "marker") == 0);
	CHECK(!strcmp(tring_line("events/sched/sched_switch/filter"), "none"));
	CHECK(!strcmp(tring_line("buffer_size_kb"), "4096"));
	CHECK(!strcmp(tring_line("buffer_subbuf_size_kb"), "64"));
	CHECK(!strcmp(tring_line("overwrite"), "0"));
	CHECK(!strcmp(tring_line("trace_clock"), "[mono] local"));
	CHECK(err_has("2 enable files were on") && err_has("1 filters removed"));
	CHECK(err_has("cannot withdraw them"));
	CHECK(err_has("kprobe_events: 2 probes removed"));
	CHECK(!strcmp(tring_line("kprobe_events"), ""));
	CHECK(out_size("") == -1 && !strstr(fk.events, "open"));

	/* Without the module's parameters: the knobs stay, exit 2. */
	fake_events();
	setenv("TRING_SYSFS", "/nonexistent", 1);
	CHECK(record("--reset") == TR_EXIT_SETUP);
	unsetenv("TRING_SYSFS");
	CHECK(err_has("the knobs are left as they are"));
	CHECK(record("--reset -- true") == TR_EXIT_COMMAND_FAILED);
}

const struct test events_tests[] = {
	{ "events_leftovers", test_events_leftovers },
	{ "events_reset", test_events_reset },
	{ "events_select_restore", test_events_select_restore },
	{ "events_errors", test_events_errors },
	{ "events_list", test_events_list },
	{ "events_filter", test_events_filter },
	{ NULL },
};
