// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit test: how a run ends: the drain, signals, errors, hangup.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_record.h"

static void tick_delayed(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 4);
		partial(0, 9);
		partial(1, 1);
	} else if (n == 2) {
		ring(0)->commit_delay = 3;
		raise(SIGTERM);
	}
}

/* The flushed packet completes a few polls later: still saved. */
static void test_drain_delayed_commit(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_delayed;
	CHECK(record("") == 0);
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	CHECK(stream_valid(0, 0, 3, &ev) && ev == 17);
	CHECK(stream_valid(1, 0, 1, &ev) && ev == 1);
	CHECK(sum("cpu0.events") == 17 && sum("cpu1.events") == 1);
	CHECK(sum("cpu0.drained") == 1);
}

static void tick_stuck(unsigned int n)
{
	if (n == 1) {
		produce(0, 1, 4);
		partial(0, 2);
		ring(0)->commit_delay = -1;
		tr_request_stop();
	}
}

/* A packet that never completes: give up after 2 s, keep the rest. */
static void test_drain_timeout(void)
{
	uint64_t ev, t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stuck;
	t0 = fk.now;
	CHECK(record("") == 0);
	CHECK(fk.now - t0 >= TR_DRAIN_TIMEOUT_NS);
	CHECK(fk.now - t0 < TR_DRAIN_TIMEOUT_NS + 500000000ULL);
	CHECK(sum_is("drain", "timeout"));
	CHECK(sum("cpu0.drained") == 0);
	CHECK(stream_valid(0, 0, 1, &ev) && ev == 4);
	CHECK(err_has("stayed incomplete"));
}

static void tick_abort(unsigned int n)
{
	if (n == 1) {
		produce(0, 1, 4);
		partial(0, 2);
		ring(0)->commit_delay = -1;
		raise(SIGINT);
	} else if (n == 3) {
		raise(SIGINT);
	}
}

static void test_second_signal_aborts(void)
{
	uint64_t t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_abort;
	t0 = fk.now;
	CHECK(record("") == TR_EXIT_ABORTED);
	CHECK(fk.now - t0 < TR_DRAIN_TIMEOUT_NS);
	CHECK(sum_is("drain", "aborted"));
	CHECK(sum("exit_status") == TR_EXIT_ABORTED);
	CHECK(err_has("aborted"));
	CHECK(sum("cpu0.subbufs") == 1);
}

static void tick_full(unsigned int n)
{
	if (n == 1) {
		produce(0, 8, 8);
		produce(1, 3, 2);	/* under the watermark: left in the ring */
	} else if (n == 2) {
		tr_request_stop();
	}
}

/* ENOSPC in the middle of a batch: cut back to whole packets, report. */
static void test_enospc(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fake_watermark(4);
	fk.tick = tick_full;
	fk.budget_on = true;
	fk.budget = 5 * 4096 + 100;
	CHECK(record("") == TR_EXIT_OUTPUT);
	CHECK(out_size("kernel/stream_0") == 5 * 4096);
	CHECK(stream_valid(0, 0, 5, &ev) && ev == 40);
	CHECK(sum_is("stop", "output_error"));
	CHECK(sum_is("drain", "skipped"));
	CHECK(sum("cpu0.subbufs") == 5);
	CHECK(sum("cpu0.events") == 40);
	CHECK(sum("cpu0.unsaved_subbufs") == 3);
	CHECK(sum("cpu0.unsaved_events") == 24);
	CHECK(sum("exit_status") == TR_EXIT_OUTPUT);
	CHECK(err_has("No space left on device"));
	CHECK(err_has("taken but not saved"));
	/* Given back: the ring does not count them as unread too. */
	CHECK(sum("cpu0.left_bytes") == 0);
	CHECK(sum("cpu1.left_subbufs") == 3);
	CHECK(sum("cpu1.left_bytes") == 3 * 4096);
	CHECK(err_has("cpu1: lost 12288 bytes (3 complete sub-buffers) left unread"));
}

static void tick_errors(unsigned int n)
{
	if (n == 1) {
		produce(0, 4, 2);
		produce(1, 4, 2);
		ring(0)->eagain_once = 1;
		ring(1)->get_err = EIO;
	} else if (n == 2) {
		produce(0, 4, 2);
	} else if (n == 3) {
		tr_request_stop();
	}
}

/* A spurious EAGAIN is nothing; a failing stream is dropped, not fatal. */
static void test_get_errors(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_errors;
	CHECK(record("") == TR_EXIT_STREAM);
	CHECK(stream_valid(0, 0, 8, &ev) && ev == 16);
	CHECK(sum("cpu1.failed") == 1);
	CHECK(sum("cpu0.failed") == 0);
	CHECK(sum("cpu0.drained") == 1);
	CHECK(err_has("cpu1: TRING_IOC_GET failed: Input/output error"));
}

static void tick_trickle(unsigned int n)
{
	produce(0, 1, 1 + n % 3);
}

static void test_duration(void)
{
	uint64_t t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_trickle;
	t0 = fk.now;
	CHECK(record("-d 2.5") == 0);
	CHECK(sum_is("stop", "duration"));
	CHECK(sum("duration_ns") >= 2500000000ULL);
	CHECK(fk.now - t0 >= 2500000000ULL && fk.now - t0 < 2600000000ULL);
	CHECK(stream_matches(0));
	CHECK(sum("cpu0.events") == ring(0)->events_written);
	CHECK(record("--force -d 0") == TR_EXIT_USAGE);
	CHECK(record("--force -d x") == TR_EXIT_USAGE);
}

static void tick_hangup(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 5);
		produce(1, 3, 5);
		partial(1, 4);
		ring(1)->dead = true;
	} else if (n == 3) {
		produce(0, 6, 5);
	} else if (n == 6) {
		partial(0, 1);
		ring(0)->dead = true;
	}
}

/*
 * Streams that hang up (the kernel says POLLHUP once a destroyed buffer
 * has no complete sub-buffer left) are read to the end and no longer
 * polled; when all have, recording ends on its own, without spinning.
 */
static void test_hangup(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_hangup;
	CHECK(record("") == 0);
	CHECK(fk.waits < 20);
	CHECK(sum_is("stop", "hangup"));
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_valid(0, 0, 9, &ev) && ev == 41);
	CHECK(stream_valid(1, 0, 4, &ev) && ev == 19);
	CHECK(stream_matches(0) && stream_matches(1));

	/* A dead stream whose last packet never completes: sleep, not spin. */
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stuck;
	ring(0)->dead = true;
	CHECK(record("--force") == 0);
	CHECK(sum_is("drain", "timeout"));
	CHECK(fk.waits < 40);
}

static char instance_dir[600];

/* What tring_buffer_destroy() does to an instance under its readers. */
static void destroy_instance(void)
{
	char cmd[700];
	unsigned int k;

	for (k = 0; k < fk.nrings; k++)
		ring(k)->dead = true;
	/* Its debugfs directory goes; open streams keep the buffer. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", instance_dir);
	CHECK(system(cmd) == 0);
}

static void tick_destroy(unsigned int n)
{
	if (n == 1) {
		produce(0, 5, 4);	/* over the watermark (4): read */
		produce(1, 2, 6);	/* under it: left in the ring */
	} else if (n == 2) {
		produce(0, 1, 3);
		partial(0, 2);
		partial(1, 5);
		destroy_instance();
	}
}

/*
 * The buffer behind a recorded instance is destroyed (issue 13): the
 * kernel says TRING_STATUS_DEAD, poll() gives POLLIN while a complete
 * sub-buffer is left, even under the watermark, then POLLHUP.
 * tring-record saves everything, the partly filled sub-buffers too, says
 * why it stops, and exits 0 by itself.
 */
static void test_instance_destroyed(void)
{
	static const char meta[] = "/* CTF 1.8 */\n";
	char path[700];
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fake_watermark(4);
	snprintf(instance_dir, sizeof(instance_dir), "%s/instances/gone",
		 fk.tring);
	fake_tree(instance_dir, 2, false);
	snprintf(path, sizeof(path), "%s/metadata", instance_dir);
	write_file(path, meta);
	fk.tick = tick_destroy;
	CHECK(record("-q --instance gone") == TR_EXIT_OK);
	CHECK(tr_stop_requests == 0);
	CHECK(fk.waits < 10);
	CHECK(err_has("buffer instance 'gone' was destroyed while recording"));
	CHECK(sum_is("stop", "hangup"));
	CHECK(sum_is("drain", "complete"));
	CHECK(sum("exit_status") == TR_EXIT_OK);
	CHECK(stream_matches(0) && stream_matches(1));
	CHECK(stream_valid(0, 0, 7, &ev) && ev == 25);
	CHECK(stream_valid(1, 0, 3, &ev) && ev == 17);
	CHECK(sum("total.events") == 42);
	CHECK(sum("total.lost") == 0);
	CHECK(sum("total.left_bytes") == 0);
	CHECK(sum("cpu0.drained") == 1 && sum("cpu1.drained") == 1);
	CHECK(sum("cpu0.failed") == 0 && sum("cpu1.failed") == 0);
	/* The metadata copied at the start stays. */
	CHECK(out_size("kernel/metadata") == (long long)strlen(meta));
	CHECK(trace_dir_clean());
}

static void tick_two_failures(unsigned int n)
{
	if (n == 1) {
		produce(0, 4, 1);
		ring(0)->get_err = EIO;
		produce(1, 8, 8);
	}
}

/* Stream 1 fails first, then as tick_abort(). */
static void tick_fail_then_abort(unsigned int n)
{
	if (n == 1) {
		produce(1, 4, 1);
		ring(1)->get_err = EIO;
	}
	tick_abort(n);
}

/* A stuck drain (as tick_stuck()) whose wait then fails. */
static void tick_drain_wait_fails(unsigned int n)
{
	tick_stuck(n);
	if (n == 2)
		fk.wait_err = ENOMEM;
}

/* Several things go wrong: the documented precedence, 3 then 4 then 5. */
static void test_exit_precedence(void)
{
	/* A stream fails, then the output: 3. */
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_two_failures;
	fk.budget_on = true;
	fk.budget = 2 * 4096;
	CHECK(record("") == TR_EXIT_OUTPUT);
	CHECK(sum("cpu0.failed") == 1);
	CHECK(sum_is("stop", "output_error"));
	CHECK(sum("exit_status") == TR_EXIT_OUTPUT);

	/* A stream fails, then a second signal aborts the drain: 4. */
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_fail_then_abort;
	CHECK(record("") == TR_EXIT_STREAM);
	CHECK(sum("cpu1.failed") == 1);
	CHECK(sum_is("drain", "aborted"));
	CHECK(sum("exit_status") == TR_EXIT_STREAM);
}

/* Waiting fails, in the loop or in the drain: 4, and the run ends. */
static void test_wait_errors(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 8, false);
	fk.wait_err = EINVAL;
	CHECK(record("") == TR_EXIT_STREAM);
	CHECK(err_has("waiting for data failed: Invalid argument"));
	CHECK(sum_is("stop", "stream_error"));
	CHECK(sum_is("drain", "skipped"));
	CHECK(fk.waits == 1);

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_drain_wait_fails;
	CHECK(record("") == TR_EXIT_STREAM);
	CHECK(err_has("waiting for data failed: Cannot allocate memory"));
	CHECK(sum_is("stop", "signal"));
	CHECK(sum_is("drain", "skipped"));
	CHECK(sum("exit_status") == TR_EXIT_STREAM);
	CHECK(stream_valid(0, 0, 1, &ev) && ev == 4);
	CHECK(fk.waits == 2);
}

/*
 * A stop asked for while tring-record sets up ends the recording as it
 * begins, without a sleep: what the buffer holds is saved.
 */
static void test_signal_during_setup(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	produce(0, 3, 5);
	partial(1, 2);
	fk.signal_at_open = true;
	CHECK(record("") == TR_EXIT_OK);
	CHECK(fk.waits == 0);
	CHECK(sum_is("stop", "signal"));
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0) && stream_matches(1));
	CHECK(stream_valid(0, 0, 3, &ev) && ev == 15);
	CHECK(stream_valid(1, 0, 1, &ev) && ev == 2);
}

static void tick_loss_after_stop(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 4);
		/* Refused while the third packet was open: its header says 5. */
		ring(0)->discarded += 5;
		partial(0, 3);
		ring(0)->discard_after_flush = 6;
		tr_request_stop();
	}
}

/*
 * Events the buffer refuses after the final flush are the kernel's
 * (discarded, lost) but not the trace's: discarded_in_trace is the last
 * saved packet's count, the number a trace reader reports.
 */
static void test_loss_after_stop(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_loss_after_stop;
	CHECK(record("") == 0);
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_valid(0, 0, 3, &ev) && ev == 11);
	CHECK(sum("cpu0.discarded") == 11);
	CHECK(sum("cpu0.lost") == 11);
	CHECK(sum("cpu0.discarded_in_trace") == 5);
	CHECK(sum("total.discarded_in_trace") == 5);
}

static void tick_online_at_stop(unsigned int n)
{
	if (n == 1) {
		ring(1)->no_ring = false;
		produce(1, 1, 7);
		tr_request_stop();
	}
}

static void tick_online_late(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 5);
	} else if (n == 3) {
		/* CPU 2 comes online: its ring is made, events follow. */
		ring(2)->no_ring = false;
		produce(2, 3, 4);
	} else if (n == 6) {
		produce(2, 2, 3);
		partial(2, 2);
	}
}

/*
 * A CPU without a ring when recording starts (offline since the buffer
 * was made) is recorded from when it comes online, its partial packet
 * too; one that never does has no file and is listed as such.
 */
static void test_cpu_online_late(void)
{
	uint64_t ev;

	fake_setup(4, 4096, 8, false);
	ring(2)->no_ring = true;
	ring(3)->no_ring = true;
	fk.tick = tick_online_late;
	CHECK(record("-d 5") == 0);
	CHECK(sum_is("cpus", "0,1,2"));
	CHECK(sum_is("cpus_without_ring", "3"));
	CHECK(stream_valid(2, 0, 6, &ev) && ev == 20);
	CHECK(sum("cpu2.events") == 20);
	CHECK(sum("total.events") == 30);
	CHECK(stream_matches(0) && stream_matches(2));
	CHECK(out_size("kernel/stream_3") == -1);
	CHECK(strstr(fk.err, "cpu2 came online: recording it") != NULL);

	/* Online only just before the stop: the drain takes it. */
	fake_setup(2, 4096, 8, false);
	ring(1)->no_ring = true;
	produce(0, 1, 5);
	fk.tick = tick_online_at_stop;
	CHECK(record("") == 0);
	CHECK(sum_is("cpus", "0,1"));
	CHECK(sum_is("cpus_without_ring", ""));
	CHECK(sum("cpu1.events") == 7);
	CHECK(stream_matches(1));

	/* No CPU has a ring: nothing to record. */
	fake_setup(1, 4096, 8, false);
	ring(0)->no_ring = true;
	CHECK(record("") == TR_EXIT_SETUP);
}

const struct test stop_tests[] = {
	{ "cpu_online_late", test_cpu_online_late },
	{ "loss_after_stop", test_loss_after_stop },
	{ "drain_delayed_commit", test_drain_delayed_commit },
	{ "drain_timeout", test_drain_timeout },
	{ "second_signal_aborts", test_second_signal_aborts },
	{ "enospc", test_enospc },
	{ "get_errors", test_get_errors },
	{ "duration", test_duration },
	{ "hangup", test_hangup },
	{ "instance_destroyed", test_instance_destroyed },
	{ "exit_precedence", test_exit_precedence },
	{ "wait_errors", test_wait_errors },
	{ "signal_during_setup", test_signal_during_setup },
	{ NULL, NULL },
};
