// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: unit tests of the ring buffer core, one TAP line per case.
 *
 * The main thread writes as CPU 0 without registering (an "offline" CPU,
 * so flushes run in the caller); cases that need an IPI start a thread
 * registered as another CPU. Nested writers are signal handlers raised
 * on the writing thread (twin_raise()). Exact timestamps come from a
 * manual clock installed with twin_set_clock_hook().
 *
 * Geometry used throughout: 4 KiB sub-buffers, a 64-byte packet header,
 * 4-byte compact and 16-byte extended event headers. A record of payload
 * len takes 4 + round_up(len, 4) bytes; a sub-buffer whose position is
 * rel can take a record of size n without being closed when
 * rel + n < subbuf_size (one word always stays free, so a sub-buffer is
 * only ever completed by a close).
 */
#include "twin_unit.h"

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} cases[] = {
		{ t_attr, "attributes are validated, fields derived" },
		{ t_alloc_failures, "every allocation failure is clean" },
		{ t_header_fields, "packet header fields exact" },
		{ t_many_packets, "3000 events over many packets, exact" },
		{ t_payload_lengths, "payload lengths 0..max_payload exact" },
		{ t_pad_bytes, "payload pad bytes zeroed at reserve" },
		{ t_wide_ids, "ids >= TRING_ID_WIDE get wide headers" },
		{ t_timestamps, "timestamps exact, extended on large deltas" },
		{ t_clock_backwards, "clock going back: stream time held" },
		{ t_clock_backwards_after_discard,
		  "clock going back after a given-back reservation" },
		{ t_clock_backwards_nested,
		  "clock going back after an NMI between reserve and last_ts" },
		{ t_discard_mode_full, "discard mode: losses exact, in band" },
		{ t_overwrite_stalled, "overwrite mode: overwritten exact" },
		{ t_overwrite_held_untouched,
		  "overwrite mode: held sub-buffer never written" },
		{ t_too_big, "too big: -E2BIG counted; max_payload fits" },
		{ t_too_big_consistent,
		  "a payload size's fate does not depend on the position" },
		{ t_discard_last, "tring_discard of the last gives space back" },
		{ t_discard_not_last, "tring_discard not last: padding/nop" },
		{ t_flush, "flush: partial sub-buffer, flush_pos" },
		{ t_flush_empty, "flush: empty packets, the clock, full" },
		{ t_flush_ipi, "flush by IPI into a writer mid-reservation" },
		{ t_flush_offline, "flush of an offline CPU" },
		{ t_get_put_errors, "get/put errors, both modes" },
		{ t_reader_reset, "reader reset hands held sub-buffers again" },
		{ t_unget, "unget hands the last taken sub-buffers again" },
		{ t_poll_ready, "poll readiness and watermark" },
		{ t_poll_wakeup, "irq_work wakes a waiting reader" },
		{ t_poll_held_full,
		  "poll ready while the reader holds what blocks the writer" },
		{ t_poll_held_wakeup,
		  "a reader holding a sub-buffer is woken when the writer blocks" },
		{ t_wait_flush_race,
		  "tring_cpu_wait() woken by a flush delivered late" },
		{ t_nesting_deep, "5 contexts nested between reserve/commit" },
		{ t_nested_in_open, "nested writer/flush inside a switch" },
		{ t_cache, "the fast path's sub-buffer cache: late store, nesting" },
		{ t_cache_busy, "writers nested in a cache update leave it alone" },
		{ t_stale_claim,
		  "overwrite: a claimer interrupted for a lap never writes into the reader's sub-buffer" },
		{ t_discarded_monotonic,
		  "events_discarded never goes back in stream order" },
		{ t_claim_window,
		  "overwrite: nested writer inside a claim, counts exact" },
		{ t_counts_and_cpus, "per-CPU rings and tring_cpu_counts" },
		{ t_rings_online_only,
		  "rings for online CPUs; a CPU's ring made when it comes online" },
		{ t_memory_guard,
		  "a buffer leaving under 1/8 of RAM available is refused" },
		{ t_event_count_wrap,
		  "event counts exact across a commit counter's wrap" },
	};
	unsigned int i;
	long base;

	tap_plan_begin("twin_unit");
	twin_levels_install();
	base = twin_outstanding_allocs();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		check_eq(twin_load(&twin_warnings), 0);
		check(twin_outstanding_allocs() == base, "leaked %ld "
		      "allocations", twin_outstanding_allocs() - base);
		tap_result(cases[i].name);
	}
	return tap_finish();
}
