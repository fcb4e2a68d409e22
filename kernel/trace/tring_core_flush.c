// SPDX-License-Identifier: GPL-2.0
/*
 * tring: closing a CPU's partly filled sub-buffer (a flush), on
 * that CPU, for a reader that wants what was written so far.
 *
 * Part of the ring buffer's core (tring_core.c describes the positions,
 * slots and modes). Also compiled in user space by tools/testing/tring
 * with shim headers: it uses only what those shims provide.
 */
#define pr_fmt(fmt) "tring: " fmt

#include <linux/cpu.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/smp.h>

#include "tring_internal.h"

/* What tring_flush_local() is asked, and what it tells. */
struct tring_flush_work {
	struct tring_cpu *cb;
	bool empty;		/* in: close a packet even with nothing in it */
	u64 ts;			/* out: the clock, read on the ring's CPU */
};

/*
 * Claim the unopened sub-buffer at boundary @old for an empty packet,
 * planned as a writer plans one (tring_plan()). Return: 0 when @old was
 * taken, the sub-buffer opened and closed with no record in it; -EAGAIN
 * to look again; -ENOBUFS when it holds data not yet read (no packet).
 */
static int tring_flush_empty(struct tring_cpu *cb, unsigned long old, u64 ts)
{
	unsigned long next = old + cb->subbuf_size;
	u64 losses;
	int ret;

	ret = tring_prepare_switch(cb, old);
	if (ret)
		return ret == -ENOBUFS && local_read(&cb->offset) != old ?
		       -EAGAIN : ret;
	/* Before the cmpxchg: see tring_close(). */
	losses = tring_cpu_losses(cb);
	if (local_cmpxchg(&cb->offset, old, next) != old)
		return -EAGAIN;
	/* Before the delivery, as in tring_flush_local(). */
	WRITE_ONCE(cb->flush_pos, next);
	tring_open(cb, old, ts);
	tring_close(cb, old + TRING_PACKET_HEADER_SIZE, ts, losses);
	return 0;
}

/*
 * A sub-buffer opened but left with no record (its one record given back
 * by tring_discard(), which its opener finished): it stays open, and the
 * time a flush can promise is its timestamp_begin, not the clock.
 */
static u64 tring_flush_open_ts(struct tring_cpu *cb, unsigned long old,
			       u64 ts)
{
	struct tring_packet_header *ph =
		tring_slot_packet(cb, tring_slot_at(cb, old));

	WRITE_ONCE(cb->flush_pos, old & ~cb->subbuf_mask);
	return min(ts, ph->timestamp_begin);
}

/* Close this CPU's partly filled sub-buffer; runs on the ring's CPU. */
static void tring_flush_local(void *info)
{
	struct tring_flush_work *fw = info;
	struct tring_cpu *cb = fw->cb;
	unsigned long old, rel, next;
	u64 ts, last, losses;
	int ret;

	for (;;) {
		old = local_read(&cb->offset);
		rel = old & cb->subbuf_mask;
		/* Position before clock, as in tring_reserve(). */
		barrier();
		ts = tring_clock_after(cb, &last);
		if (rel == TRING_PACKET_HEADER_SIZE && !fw->empty) {
			fw->ts = tring_flush_open_ts(cb, old, ts);
			return;
		}
		if (!rel) {
			ret = fw->empty ? tring_flush_empty(cb, old, ts) : -ENOBUFS;
			if (ret == -EAGAIN)
				continue;
			/* Nothing since the last boundary, or none possible. */
			if (ret)
				WRITE_ONCE(cb->flush_pos, old);
			break;
		}
		next = (old | cb->subbuf_mask) + 1;
		losses = tring_cpu_losses(cb);
		if (local_cmpxchg(&cb->offset, old, next) == old) {
			/* Before the delivery: see tring_maybe_wake(). */
			WRITE_ONCE(cb->flush_pos, next);
			tring_close(cb, old, ts, losses);
			break;
		}
	}
	/*
	 * The position is at a boundary: the next record opens a packet and
	 * is based on its timestamp_begin, so @last_ts is only the floor of
	 * the clock. Raise it to the flush's time, so that no later event on
	 * this CPU is older (a nested writer that moved it first wins, as
	 * in tring_reserve_slow_v4()).
	 */
	cmpxchg_local(&cb->last_ts, last, ts | (last & TRING_TS_FORCE_EXT));
	fw->ts = ts;
}

/**
 * tring_cpu_flush_ts - close a CPU's partly filled sub-buffer, read its clock
 * @cb: the CPU ring.
 * @empty: close a packet even when nothing was written since the last
 *	one: an empty packet (a header only) that carries the time of the
 *	flush. None is made when the sub-buffer it needs holds data not
 *	yet read (discard mode, buffer full).
 * @ts: if not NULL, set to the ring's clock read on its CPU during the
 *	flush (here if it is offline); every event written on that CPU after
 *	the flush is as late or later. A sub-buffer left open with no record
 *	(its record given back) gives its timestamp_begin instead.
 *
 * Runs the close on the ring's CPU (an IPI: local operations are only
 * atomic against that CPU), or here if that CPU is offline, when nothing
 * can write to the ring. The sub-buffer is delivered as soon as writers
 * interrupted by the IPI have committed; pollers are woken then.
 *
 * Context: process; may sleep.
 * Return: the position up to which every sub-buffer is now closed.
 */
unsigned long tring_cpu_flush_ts(struct tring_cpu *cb, bool empty, u64 *ts)
{
	struct tring_flush_work fw = { .cb = cb, .empty = empty };

	cpus_read_lock();
	if (cpu_online(cb->cpu))
		smp_call_function_single(cb->cpu, tring_flush_local, &fw, 1);
	else
		tring_flush_local(&fw);
	cpus_read_unlock();
	/* A wakeup for the flushed sub-buffer may have been skipped. */
	if (tring_cpu_ready(cb, 1))
		irq_work_queue(&cb->wakeup);
	if (ts)
		*ts = fw.ts;
	return READ_ONCE(cb->flush_pos);
}
EXPORT_SYMBOL_GPL(tring_cpu_flush_ts);

/**
 * tring_cpu_flush - close a CPU's partly filled sub-buffer
 * @cb: the CPU ring.
 *
 * tring_cpu_flush_ts() without an empty packet or the clock.
 *
 * Context: process; may sleep.
 * Return: the position up to which every sub-buffer is now closed.
 */
unsigned long tring_cpu_flush(struct tring_cpu *cb)
{
	return tring_cpu_flush_ts(cb, false, NULL);
}
EXPORT_SYMBOL_GPL(tring_cpu_flush);
