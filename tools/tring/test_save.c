// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit test: what is saved, and counted.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_record.h"

static void tick_basic(unsigned int n)
{
	if (n <= 5) {
		produce(0, 3, 10);
		produce(1, 1, 10);
	} else if (n == 6) {
		partial(0, 5);
		partial(1, 7);
	} else if (n == 7) {
		raise(SIGINT);
	}
}

static void test_basic_discard(void)
{
	uint64_t ev;

	fake_setup(3, 4096, 8, false);
	fk.tick = tick_basic;
	CHECK(record("") == 0);
	CHECK(sum_is("stop", "signal"));
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	CHECK(stream_matches(1));
	CHECK(stream_valid(0, 0, 16, &ev) && ev == 155);
	CHECK(stream_valid(1, 0, 6, &ev) && ev == 57);
	CHECK(out_size("kernel/stream_2") == 0);
	CHECK(sum("cpu0.subbufs") == 16);
	CHECK(sum("cpu0.bytes") == 16 * 4096);
	CHECK(sum("cpu0.events") == 155);
	CHECK(sum("cpu1.subbufs") == 6);
	CHECK(sum("cpu1.events") == 57);
	CHECK(sum("cpu2.subbufs") == 0);
	CHECK(sum("total.subbufs") == 22);
	CHECK(sum("total.bytes") == 22 * 4096);
	CHECK(sum("total.events") == 212);
	CHECK(sum("total.lost") == 0);
	CHECK(sum("total.kernel_events_written") == 212);
	CHECK(sum("cpu0.drained") == 1 && sum("cpu2.drained") == 1);
	CHECK(sum("cpu0.flush_pos") == 16 * 4096);
	CHECK(sum("cpu0.read_pos") == 16 * 4096);
	CHECK(sum("exit_status") == 0);
	CHECK(sum_is("cpus", "0,1,2"));
	CHECK(sum_is("overwrite", "0"));
	CHECK(sum("subbuf_size") == 4096);
	/*
	 * Batches: the whole ring asked for at once, not one by one; a
	 * tick's three sub-buffers come in one batch.
	 */
	CHECK(ring(0)->max_asked == TR_BATCH);
	CHECK(ring(0)->batch_max_seen >= 3);
	CHECK(fk.not_from_map == 0);
	/* The summary on stderr. */
	CHECK(err_has("total"));
	CHECK(err_has("saved 212 events"));
	CHECK(!ring(0)->open && !ring(1)->open);
	CHECK(trace_dir_clean());
}

static void tick_coalesce(unsigned int n)
{
	if (n == 1)
		produce(0, 6, 3);
	else if (n == 2)
		produce(0, 4, 3);	/* seq 6..9: slots 6, 7, 0, 1 */
	else if (n == 3)
		tr_request_stop();
}

static void test_coalesce(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_coalesce;
	CHECK(record("") == 0);
	CHECK(fk.writevs == 2);
	CHECK(fk.wlog[0].cnt == 1 && fk.wlog[0].len == 6 * 4096);
	CHECK(fk.wlog[1].cnt == 2 && fk.wlog[1].len == 4 * 4096);
	CHECK(fk.wlog[0].from_map && fk.wlog[1].from_map);
	CHECK(stream_matches(0));
	CHECK(stream_valid(0, 0, 10, &ev) && ev == 30);
	CHECK(sum("cpu0.events") == 30);
}

static void tick_overwrite(unsigned int n)
{
	if (n == 1) {
		produce(0, 10, 5);	/* 0..5 overwritten, 6..9 left */
	} else if (n == 2) {
		produce(0, 1, 5);
		partial(0, 3);
	} else if (n == 3) {
		tr_request_stop();
	}
}

static void test_overwrite(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 4, true);
	fk.tick = tick_overwrite;
	CHECK(record("") == 0);
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	/* 6, 7, 8, 9, 10 and the flushed 11: read one at a time. */
	CHECK(stream_valid(0, 6, 6, &ev) && ev == 28);
	CHECK(ring(0)->batch_max_seen == 0);
	CHECK(sum("cpu0.subbufs") == 6);
	CHECK(sum("cpu0.events") == 28);
	CHECK(sum("cpu0.overwritten") == 30);
	CHECK(sum("cpu0.lost") == 30);
	CHECK(sum("cpu0.skipped_subbufs") == 6);
	CHECK(sum("cpu0.kernel_events_written") == 58);
	CHECK(sum_is("overwrite", "1"));
	CHECK(fk.not_from_map == 0);
}

static void tick_many(unsigned int n)
{
	if (n <= 20)
		produce(n % 2, 5, 7);
	else if (n == 21)
		tr_request_stop();
}

/* Short writes and EINTR from writev(): the output is still exact. */
static void test_short_writes(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 16, false);
	fk.tick = tick_many;
	fk.short_max = 1000;
	fk.eintr_every = 3;
	CHECK(record("") == 0);
	CHECK(stream_matches(0) && stream_matches(1));
	CHECK(stream_valid(0, 0, 50, &ev) && ev == 350);
	CHECK(stream_valid(1, 0, 50, &ev) && ev == 350);
	CHECK(sum("total.events") == 700);
}

static void tick_status(unsigned int n)
{
	if (n == 1)
		ring(0)->discarded = 7;
	if (n <= 4) {
		produce(0, 4, 100);
		fk.now += 600000000ULL;
	} else {
		tr_request_stop();
	}
}

static void test_status_line(void)
{
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_status;
	fk.tty = true;
	CHECK(record("") == 0);
	CHECK(err_has("events/s"));
	CHECK(err_has("MB written"));
	CHECK(err_has("MB/s"));
	CHECK(err_has("7 events lost"));
	CHECK(sum("total.discarded") == 7);
	CHECK(sum("total.lost") == 7);

	/* Quiet: neither status line nor summary, but the summary file. */
	CHECK(record("--force -q") == 0);
	CHECK(!err_has("events/s") && !err_has("saved"));
	CHECK(sum("cpu0.events") == 1600);
	CHECK(sum("cpu0.lost_at_start") == 7);

	/* Not a terminal: no status line. */
	fk.tty = false;
	CHECK(record("--force") == 0);
	CHECK(!err_has("events/s") && err_has("saved"));
}

static void tick_long(unsigned int n)
{
	produce(0, 3, 20);
	produce(1, 2, 20);
	/* 20 ms a poll: the status line runs too. */
	fk.now += 20000000ULL;
	/* Heap in use; always 0 under valgrind, which has its own malloc. */
	if (n == 200)
		fk.mem_a = mallinfo2().uordblks + 1;
	if (n == 19000)
		fk.mem_b = mallinfo2().uordblks + 1;
	if (n == 20000)
		tr_request_stop();
}

/* Nothing grows with the length of the trace. */
static void test_constant_memory(void)
{
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_long;
	fk.tty = true;
	fk.no_log = true;
	CHECK(record("") == 0);
	CHECK(fk.mem_a && fk.mem_a == fk.mem_b);
	CHECK(sum("cpu0.subbufs") == 60000);
	CHECK(sum("cpu1.subbufs") == 40000);
	CHECK(sum("total.events") == 2000000);
	CHECK(out_size("kernel/stream_0") == 60000LL * 4096);
}

static void tick_losses(unsigned int n)
{
	if (n == 1) {
		produce(0, 12, 3);	/* 8 fit, 4 packets dropped */
		ring(0)->too_big = 2;
	} else {
		tr_request_stop();
	}
}

/* Discard mode, full ring: the kernel's counters end up in the summary. */
static void test_losses(void)
{
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_losses;
	CHECK(record("") == 0);
	CHECK(sum("cpu0.subbufs") == 8);
	CHECK(sum("cpu0.events") == 24);
	CHECK(sum("cpu0.discarded") == 12);
	CHECK(sum("cpu0.too_big") == 2);
	CHECK(sum("cpu0.overwritten") == 0);
	CHECK(sum("cpu0.lost") == 14);
	CHECK(sum("total.lost") == 14);
	CHECK(stream_matches(0));
}

const struct test save_tests[] = {
	{ "basic_discard", test_basic_discard },
	{ "coalesce", test_coalesce },
	{ "overwrite", test_overwrite },
	{ "short_writes", test_short_writes },
	{ "status_line", test_status_line },
	{ "constant_memory", test_constant_memory },
	{ "losses", test_losses },
	{ NULL, NULL },
};
