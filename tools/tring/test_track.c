// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit tests: -p, --follow and -- COMMAND (track.c)
 * against fake tracking files; COMMAND is a real process (a script).
 */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_record.h"

static char pid_path[600], follow_path[600], script[600];

/* tracking/pid holding @pids, tracking/follow @follow. */
static void fake_tracking(const char *pids, const char *follow)
{
	fake_setup(1, 4096, 8, false);
	mkdirs("%s/tracking", fk.tring);
	snprintf(pid_path, sizeof(pid_path), "%s/tracking/pid", fk.tring);
	snprintf(follow_path, sizeof(follow_path), "%s/tracking/follow",
		 fk.tring);
	write_file(pid_path, pids);
	write_file(follow_path, follow);
}

/* A script COMMAND: @body after #!/bin/sh. */
static const char *make_script(const char *body)
{
	char text[256];

	snprintf(script, sizeof(script), "%s/cmd.sh", fk.root);
	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	write_file(script, text);
	chmod(script, 0700);
	return script;
}

/* The first line of @path, without its newline. */
static const char *first_line(const char *path)
{
	static char buf[256];

	if (tr_read_small_file(path, buf, sizeof(buf)))
		strcpy(buf, "(none)");
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static char seen_pid[256], seen_follow[8];

/* Look at the tracking files while recording; stop at once. */
static void tick_track(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(seen_pid, first_line(pid_path));
	strcpy(seen_follow, first_line(follow_path));
	tr_request_stop();
}

/* Look, then let COMMAND run to its end (the loop stops by itself). */
static void tick_track_slow(unsigned int n)
{
	struct timespec ms = { 0, 1000 * 1000 };

	if (n == 1) {
		strcpy(seen_pid, first_line(pid_path));
		strcpy(seen_follow, first_line(follow_path));
	}
	nanosleep(&ms, NULL);
}

/* -p and --follow are in force while recording, and restored after. */
static void test_track_pid(void)
{
	char args[128], want[32];

	fake_tracking("1\n", "0\n");
	fk.tick = tick_track;
	snprintf(args, sizeof(args), "-p %d,1 --follow", (int)getpid());
	CHECK(record(args) == 0);
	snprintf(want, sizeof(want), "%d 1", (int)getpid());
	CHECK(!strcmp(seen_pid, want));
	CHECK(!strcmp(seen_follow, "1"));
	CHECK(!strcmp(first_line(pid_path), "1"));
	CHECK(!strcmp(first_line(follow_path), "0"));

	/* A set of processes that all exited since: cleared, with a word. */
	fake_tracking("99999999\n", "1\n");
	fk.tick = tick_track;
	snprintf(args, sizeof(args), "-p %d", (int)getpid());
	CHECK(record(args) == 0);
	CHECK(!strcmp(first_line(pid_path), ""));
	CHECK(!strcmp(first_line(follow_path), "1"));
	CHECK(err_has("no process of the set tracking/pid held before is left"));
}

/* COMMAND's exit status is tring-record's; it is tracked, with follow. */
static void test_track_command(void)
{
	char args[700];

	fake_tracking("", "0\n");
	fk.tick = tick_track_slow;
	snprintf(args, sizeof(args), "-- %s", make_script("exit 3"));
	CHECK(record(args) == 3);
	CHECK(sum("command_exit_status") == 3);
	CHECK(sum("exit_status") == 0);
	CHECK(sum("command_pid") == strtoull(seen_pid, NULL, 10));
	CHECK(!strcmp(seen_follow, "1"));
	CHECK(sum_is("stop", "command"));
	CHECK(!strcmp(first_line(pid_path), ""));
	CHECK(!strcmp(first_line(follow_path), "0"));

	/* Killed by a signal: 128 + N. */
	fake_tracking("", "0\n");
	fk.tick = tick_track_slow;
	snprintf(args, sizeof(args), "-- %s", make_script("kill -9 $$"));
	CHECK(record(args) == 128 + 9);

	/* Not found, not runnable. */
	fake_tracking("", "0\n");
	fk.tick = tick_track_slow;
	CHECK(record("-- /nonexistent/cmd") == TR_EXIT_COMMAND_NOT_FOUND);
	CHECK(err_has("cannot run /nonexistent/cmd"));
	fake_tracking("", "0\n");
	fk.tick = tick_track_slow;
	snprintf(args, sizeof(args), "-- %s", fk.root);
	CHECK(record(args) == TR_EXIT_COMMAND_NOT_RUN);
}

/* Recording stops first: COMMAND gets SIGTERM (128 + 15). */
static void test_track_stop_first(void)
{
	char args[700];

	fake_tracking("", "0\n");
	fk.tick = tick_track;
	snprintf(args, sizeof(args), "-q -- %s", make_script("sleep 30"));
	CHECK(record(args) == 128 + 15);
	CHECK(sum("exit_status") == 0);
	CHECK(sum_is("stop", "signal"));
}

/*
 * tring-record's own failures: 125 with a COMMAND (never run), the
 * usual statuses without; bad -p values; no tracking in the module.
 */
static void test_track_errors(void)
{
	char args[700];

	fake_tracking("", "0\n");
	ring(0)->busy = true;
	snprintf(args, sizeof(args), "-- %s", make_script("exit 0"));
	CHECK(record(args) == TR_EXIT_COMMAND_FAILED);
	CHECK(!strcmp(first_line(pid_path), ""));
	CHECK(!strcmp(first_line(follow_path), "0"));
	CHECK(record("--nosuch -- true") == TR_EXIT_COMMAND_FAILED);
	CHECK(record("-p 0") == TR_EXIT_USAGE);
	CHECK(record("-p 12,x") == TR_EXIT_USAGE);
	CHECK(record("-p 99999999") == TR_EXIT_USAGE);
	CHECK(err_has("no such process"));

	fake_setup(1, 4096, 8, false);
	snprintf(args, sizeof(args), "-p %d", (int)getpid());
	CHECK(record(args) == TR_EXIT_SETUP);
	CHECK(err_has("no process tracking in this tring module"));
	snprintf(args, sizeof(args), "-- %s", script);
	CHECK(record(args) == TR_EXIT_COMMAND_FAILED);
}

static int stop_sig;

/* Look at the tracking files, then stop with stop_sig. */
static void tick_track_sig(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(seen_pid, first_line(pid_path));
	raise(stop_sig);
}

static void tick_hup_ignored(unsigned int n)
{
	if (n == 1)
		raise(SIGHUP);
	else if (n == 3)
		tr_request_stop();
}

/*
 * SIGHUP, SIGQUIT and SIGPIPE stop a recording as SIGINT does: the
 * trace is saved and the tracking set put back (they used to kill it,
 * leaving the set in force for the next run). SIGHUP ignored at start
 * (nohup) stays ignored; SIGINT ignored at start is handled.
 */
static void test_track_stop_signals(void)
{
	static const int sigs[] = { SIGHUP, SIGQUIT, SIGPIPE };
	char args[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		fake_tracking("", "0\n");
		fk.tick = tick_track_sig;
		stop_sig = sigs[i];
		snprintf(args, sizeof(args), "-p %d", (int)getpid());
		CHECK(record(args) == 0);
		CHECK(atoi(seen_pid) == (int)getpid());
		CHECK(sum_is("stop", "signal"));
		CHECK(!strcmp(first_line(pid_path), ""));
	}
	/* Their handlers are gone after the run. */
	CHECK(signal(SIGHUP, SIG_DFL) == SIG_DFL);
	CHECK(signal(SIGXFSZ, SIG_DFL) == SIG_DFL);

	/* Ignored when it started (nohup): SIGHUP stays ignored. */
	fake_tracking("", "0\n");
	signal(SIGHUP, SIG_IGN);
	fk.tick = tick_hup_ignored;
	CHECK(record("") == 0);
	CHECK(fk.waits >= 3);
	CHECK(signal(SIGHUP, SIG_DFL) == SIG_IGN);

	/*
	 * A script's background job starts with SIGINT ignored, and the
	 * script stops it with SIGINT: it stops the recording all the same
	 * (kept ignored, every guest test that stopped one hung).
	 */
	fake_tracking("", "0\n");
	signal(SIGINT, SIG_IGN);
	fk.tick = tick_track_sig;
	stop_sig = SIGINT;
	snprintf(args, sizeof(args), "-p %d", (int)getpid());
	CHECK(record(args) == 0);
	CHECK(sum_is("stop", "signal"));
	CHECK(!strcmp(first_line(pid_path), ""));
	CHECK(signal(SIGINT, SIG_DFL) == SIG_IGN);
}

static void tick_big(unsigned int n)
{
	if (n <= 4)
		produce(0, 4, 10);
	else if (n == 5)
		tr_request_stop();
}

/*
 * A stream file grown past RLIMIT_FSIZE: a failed write (exit status 3,
 * the tracking put back), not a death by SIGXFSZ.
 */
static void test_track_file_size_limit(void)
{
	struct rlimit old, lim;
	char args[128];
	int ret;

	fake_tracking("", "0\n");
	fk.tick = tick_big;
	snprintf(args, sizeof(args), "-w 1 -p %d", (int)getpid());
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 6 * 4096;
	setrlimit(RLIMIT_FSIZE, &lim);
	ret = record(args);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(ret == TR_EXIT_OUTPUT);
	CHECK(err_has("File too large"));
	CHECK(out_size("kernel/stream_0") == 6 * 4096);
	CHECK(!strcmp(first_line(pid_path), ""));
}

/*
 * A second tring-record fails before it changes anything: the tracking
 * set (and the knobs) a running one put in force stay as they are.
 */
static void test_track_second_run(void)
{
	char args[128];
	int fd;

	fake_tracking("1\n", "1\n");
	fd = open(fk.tring, O_RDONLY | O_DIRECTORY);
	CHECK(!flock(fd, LOCK_EX));
	snprintf(args, sizeof(args), "-p %d -b 512", (int)getpid());
	CHECK(record(args) == TR_EXIT_SETUP);
	CHECK(err_has("in use by another tring-record"));
	CHECK(!strstr(fk.events, "knob"));
	CHECK(out_size("") == -1);
	close(fd);
	CHECK(!strcmp(first_line(pid_path), "1"));
	/* A reader that takes no lock holds a stream: nothing is written. */
	fk.events[0] = '\0';
	ring(0)->busy = true;
	CHECK(record(args) == TR_EXIT_SETUP);
	CHECK(err_has("cpu0: the stream is already open (another reader): nothing was changed"));
	CHECK(!strstr(fk.events, "knob"));
	ring(0)->busy = false;

	/* Released at exit: the next run gets it. */
	fk.tick = tick_track;
	CHECK(record(args) == 0);
	CHECK(record("--force") == 0);
}

const struct test track_tests[] = {
	{ "track_second_run", test_track_second_run },
	{ "track_stop_signals", test_track_stop_signals },
	{ "track_file_size_limit", test_track_file_size_limit },
	{ "track_pid", test_track_pid },
	{ "track_command", test_track_command },
	{ "track_stop_first", test_track_stop_first },
	{ "track_errors", test_track_errors },
	{ NULL },
};
