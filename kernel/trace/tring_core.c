// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the per-CPU lockless reserve/commit ring buffer, its write side
 * (the inline fast path is in <linux/tring.h>). The rest of the core:
 * tring_core_flush.c (closing a partly filled sub-buffer),
 * tring_core_read.c (the reader's side), tring_core_alloc.c (buffers,
 * rings, CPU hotplug).
 *
 * These files are also compiled in user space by tools/testing/tring
 * with shim headers: they use only what those shims provide.
 *
 * Positions are byte offsets in a CPU's stream since the buffer was
 * created. They grow, with one exception: a reservation given back
 * (tring_discard()) moves the reserve position back by that one record,
 * never past the start of its sub-buffer. The sub-buffer holding
 * position p is ring slot (p / subbuf_size) % slots, in lap p /
 * ring_bytes. Writers own the positions from the reserve position on;
 * the reader owns everything before its consumed position.
 * Each slot's commit counter tells when every byte reserved in it has
 * been committed; the writer whose commit completes the slot delivers
 * it, publishing it to the reader with a release store of slot->done.
 *
 * In overwrite mode each slot also names the physical sub-buffer it uses
 * (slot->map). A writer claims a slot for a new lap before any byte of
 * that lap is reserved; the reader takes a complete sub-buffer by
 * swapping its spare into the slot. Both use cmpxchg on slot->map, so
 * exactly one of them gets the old data: the reader reads it, or the
 * writer overwrites it and counts its events as lost.
 */
#define pr_fmt(fmt) "tring: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "tring_internal.h"

/**
 * tring_cpu_losses - events a CPU's writers could not write
 * @cb: the CPU ring.
 *
 * The packet header's events_discarded. Events overwritten later, in
 * overwrite mode, are not in it: whole packets go, which the packet
 * sequence numbers show where it happened, and the exact count is in
 * @cb->overwritten.
 *
 * Return: events dropped because the buffer was full, or too big.
 */
u64 tring_cpu_losses(struct tring_cpu *cb)
{
	return (u64)local_read(&cb->discarded) + local_read(&cb->too_big);
}

/* A sub-buffer was delivered: wake a waiting reader at the watermark. */
static void tring_maybe_wake(struct tring_cpu *cb)
{
	long ready;

	/*
	 * Order the release of slot->done before reading reader_waiting;
	 * pairs with smp_mb() in tring_cpu_poll_ready(): either the poller
	 * sees the new sub-buffer or we see the poller waiting.
	 */
	smp_mb();
	if (!READ_ONCE(cb->reader_waiting))
		return;
	ready = local_read(&cb->subbufs_delivered) -
		(READ_ONCE(cb->consumed) >> cb->subbuf_shift);
	if (ready >= (long)READ_ONCE(cb->watermark) ||
	    READ_ONCE(cb->consumed) < READ_ONCE(cb->flush_pos))
		irq_work_queue(&cb->wakeup);
}

/**
 * tring_deliver_v2 - hand a completed sub-buffer to the reader
 * @cb: the CPU ring.
 * @slot: the slot whose last reserved byte was just committed.
 * @commit: the slot's commit counter after that commit.
 *
 * Called by whichever writer completed the slot, in any context.
 */
void tring_deliver_v2(struct tring_cpu *cb, struct tring_slot *slot,
		      unsigned long commit)
{
	struct tring_packet_header *ph = tring_slot_packet(cb, slot);
	/*
	 * Since the slot's previous lap completed, each event of this lap
	 * added TRING_COMMIT_EVENT and the lap's bytes added the sub-buffer
	 * size, below it. An unsigned difference is exact even if the
	 * counter wrapped.
	 */
	unsigned long events = (commit - slot->done_commit) >>
			       TRING_COMMIT_EVENT_SHIFT;

	WRITE_ONCE(slot->done_commit, commit);
	ph->events_count = events;
	local_add(events, &cb->events_delivered);
	local_inc(&cb->subbufs_delivered);
	/*
	 * Publish the packet. Every byte of it was written on this CPU
	 * before this point: a writer nested in us finished before we
	 * resumed, and the writers we interrupted have no uncommitted
	 * bytes here, or the slot would not be complete. Pairs with
	 * atomic_long_read_acquire() in tring_cpu_get() and
	 * tring_cpu_ready().
	 */
	atomic_long_set_release(&slot->done, atomic_long_read(&slot->done) + 1);
	tring_maybe_wake(cb);
}
EXPORT_SYMBOL_GPL(tring_deliver_v2);

static void tring_commit_bytes(struct tring_cpu *cb, struct tring_slot *slot,
			       unsigned long bytes)
{
	unsigned long v = local_add_return(bytes, &slot->commit);

	if (!(v & cb->subbuf_mask))
		tring_deliver_v2(cb, slot, v);
}

/*
 * Overwrite mode: take ring slot @slot for lap @lap before any byte of
 * that lap is reserved. Nested writers may claim the same lap first (the
 * claim is idempotent); a writer whose view of the position is stale may
 * find a later lap claimed and must look again.
 */
static int tring_claim(struct tring_cpu *cb, struct tring_slot *slot,
		       unsigned long lap)
{
	unsigned long tag = lap + 1, e, old, n, lost;
	struct tring_packet_header *ph;

	e = atomic_long_read(&slot->map);
	for (;;) {
		if (!tring_tag_diff(e, tag))
			return 0;
		if (tring_tag_diff(e, tag) > 0)
			return -EAGAIN;
		n = (e & TRING_MAP_PHYS) | (tag << TRING_MAP_TAG_SHIFT);
		/*
		 * Count what we overwrite before the cmpxchg, while @e still
		 * maps that sub-buffer: once we have claimed the slot, a
		 * writer nested in us may fill and deliver the new lap, which
		 * rewrites events_count. Nothing can change it before: that
		 * takes a claim, which would make our cmpxchg fail.
		 */
		ph = tring_phys_va(cb, e & TRING_MAP_PHYS);
		lost = e & TRING_MAP_TAKEN ? 0 : ph->events_count;
		/*
		 * Fully ordered; pairs with the cmpxchg in
		 * tring_get_overwrite(). If the reader swapped its spare in
		 * first we see TAKEN and its spare, and the reader's reads
		 * of its previous sub-buffer happened before our writes to
		 * it. Otherwise the reader's cmpxchg fails on the new tag.
		 */
		old = atomic_long_cmpxchg(&slot->map, e, n);
		if (old == e)
			break;
		e = old;
	}
	local_add(lost, &cb->overwritten);
	return 0;
}

/*
 * Can the sub-buffer starting at @boundary be opened? 0 if so (claimed
 * in overwrite mode), -EAGAIN if the caller's position is stale,
 * -ENOBUFS if it holds data not yet committed or not yet read.
 */
int tring_prepare_switch(struct tring_cpu *cb, unsigned long boundary)
{
	struct tring_slot *slot = tring_slot_at(cb, boundary);
	unsigned long lap = tring_lap(cb, boundary);
	unsigned long done = atomic_long_read(&slot->done);
	unsigned long consumed;

	if (done > lap)
		return -EAGAIN;
	if (done < lap)
		return -ENOBUFS;
	if (cb->overwrite)
		return tring_claim(cb, slot, lap);
	/*
	 * Pairs with smp_store_release() in tring_cpu_put(): the reader's
	 * accesses to the sub-buffer happen before our writes to it.
	 */
	consumed = smp_load_acquire(&cb->consumed);
	if (boundary + cb->subbuf_size - consumed > tring_ring_bytes(cb))
		return -ENOBUFS;
	return 0;
}

/* Open the sub-buffer at @boundary: write the header's opening fields. */
void tring_open(struct tring_cpu *cb, unsigned long boundary, u64 ts)
{
	struct tring_slot *slot = tring_slot_at(cb, boundary);
	struct tring_packet_header *ph = tring_slot_packet(cb, slot);

	ph->magic = TRING_PACKET_MAGIC;
	ph->stream_id = 0;
	ph->timestamp_begin = ts;
	ph->packet_size = (u64)cb->subbuf_size * 8;
	ph->packet_seq_num = boundary >> cb->subbuf_shift;
	ph->cpu_id = cb->cpu;
	tring_commit_bytes(cb, slot, TRING_PACKET_HEADER_SIZE);
}

/*
 * Close the sub-buffer holding position @old, whose bytes from @old on
 * now belong to the caller: zero them, write the header's closing
 * fields and commit them as padding. @losses was sampled before the
 * caller's cmpxchg took @old: the closer of the next sub-buffer samples
 * after that cmpxchg, so the values only grow in stream order even when
 * closers run nested in each other.
 */
void tring_close(struct tring_cpu *cb, unsigned long old, u64 ts,
		 u64 losses)
{
	struct tring_slot *slot = tring_slot_at(cb, old);
	struct tring_packet_header *ph = tring_slot_packet(cb, slot);
	unsigned long rel = old & cb->subbuf_mask;

	memset((void *)ph + rel, 0, cb->subbuf_size - rel);
	ph->timestamp_end = ts;
	ph->content_size = (u64)rel * 8;
	ph->events_discarded = losses;
	tring_commit_bytes(cb, slot, cb->subbuf_size - rel);
}

/* Read the clock for a writer that has just read position @old. */
u64 tring_clock_after(struct tring_cpu *cb, u64 *last)
{
	u64 ts = tring_clock_read(cb), floor;

	*last = READ_ONCE(cb->last_ts);
	floor = *last & ~TRING_TS_FORCE_EXT;
	/* Keep the stream's time from going back if the clock does. */
	return (s64)(ts - floor) < 0 ? floor : ts;
}

/*
 * Records are only 4-byte aligned: write the extended header's 64-bit
 * timestamp with memcpy(), not through struct tring_event_header_ext
 * (8-byte aligned), which would be an unaligned access on half the
 * records.
 */
static void tring_write_header(void *rec, unsigned int hlen,
			       unsigned int id, u64 ts)
{
	u32 *w = rec;

	if (hlen == TRING_EVENT_HEADER_SIZE) {
		*w = tring_header_word(id, ts);
		return;
	}
	if (hlen == TRING_EVENT_HEADER_WIDE_SIZE) {
		w[0] = tring_header_word(TRING_ID_WIDE, ts);
		w[1] = id;
		return;
	}
	w[0] = tring_header_word(TRING_ID_EXTENDED, 0);
	w[1] = id;
	memcpy(&w[2], &ts, sizeof(ts));
}

/*
 * Point the fast path's cache (struct tring_cpu.cur_last) at the
 * sub-buffer @packet, in ring slot @slot, that holds position @pos, where
 * the caller has just reserved a record: that slot's map cannot change
 * before the record is committed.
 *
 * The update is exclusive: it takes the cache by moving cur_last to
 * TRING_BUSY_LAST with a local cmpxchg, and a writer nested in it neither
 * uses the cache (no record ends that early) nor updates it. Without
 * that, a nested writer could store a whole entry between our stores and
 * leave its valid position paired with our address. Entries only move
 * forward: a caller that finds a newer entry (stored by a writer nested
 * in it since its reservation) leaves it, and so does one whose cmpxchg
 * loses to such a writer. Sub-buffers never come back (a give-back
 * moves the reserve position back only within its sub-buffer), so the
 * cmpxchg has no ABA. A caller interrupted after its cmpxchg may still
 * store a sub-buffer the stream has since left; no record can be reserved
 * there again, so that entry is only useless until the next slow path
 * stores the current one.
 */
static void tring_cache_set(struct tring_cpu *cb, unsigned long pos,
			    struct tring_slot *slot, void *packet)
{
	unsigned long start = pos & ~cb->subbuf_mask;
	unsigned long last = start + cb->subbuf_mask;
	unsigned long v = READ_ONCE(cb->cur_last);

	/*
	 * Current or newer, or TRING_BUSY_LAST: a writer we interrupted is
	 * updating it. (TRING_NO_LAST is below every sub-buffer's last.)
	 */
	if (v >= last || v == TRING_BUSY_LAST)
		return;
	if (cmpxchg_local(&cb->cur_last, v, TRING_BUSY_LAST) != v)
		return;
	/*
	 * These stores cannot move above the cmpxchg: they depend on the
	 * branch on its result.
	 */
	WRITE_ONCE(cb->cur_addr, (unsigned long)packet - start);
	WRITE_ONCE(cb->cur_slot, slot);
	/*
	 * Compiler barrier: every reader of the cache runs on this CPU,
	 * nested in us or after us. The address and slot are stored before
	 * the position that makes them valid: a writer nested before that
	 * store finds TRING_BUSY_LAST, whatever order it reads the three in.
	 */
	barrier();
	WRITE_ONCE(cb->cur_last, last);
}

/* The header a record of @id takes when its time allows. */
static unsigned int tring_short_hlen(unsigned int id)
{
	return id < TRING_ID_WIDE ? TRING_EVENT_HEADER_SIZE :
				    TRING_EVENT_HEADER_WIDE_SIZE;
}

/*
 * The largest payload room a record of @id may take. A record can always
 * be written with its short header (the first record of a sub-buffer
 * always is), so it may carry what the extended header would have taken.
 * That is also exactly what tring_reserve() accepts inline when the
 * record fits: a size is accepted or refused wherever the writer is.
 */
static unsigned long tring_max_room(const struct tring_cpu *cb,
				    unsigned int id)
{
	return cb->max_payload + TRING_EVENT_HEADER_EXT_SIZE -
	       tring_short_hlen(id);
}

/*
 * What one attempt at a slow-path reservation needs, planned from one
 * reading of the reserve position and then of the clock. It takes
 * effect only if the reserve position is still @old at the cmpxchg.
 */
struct tring_plan {
	unsigned long old;	/* the reserve position read */
	unsigned long begin;	/* where the record starts */
	unsigned long boundary;	/* the sub-buffer it opens, if @open */
	u64 ts;			/* the record's timestamp */
	u64 last;		/* cb->last_ts as read, to update it */
	u64 losses;		/* events_discarded of the packet it closes */
	unsigned int hlen;	/* bytes of the record's header */
	bool open;		/* it opens the sub-buffer at @boundary */
};

/* Where a record of @room payload bytes goes, reserved at @p->old. */
static void tring_plan_place(const struct tring_cpu *cb, unsigned int id,
			     unsigned long room, struct tring_plan *p)
{
	unsigned long rel = p->old & cb->subbuf_mask;

	p->hlen = tring_short_hlen(id);
	if ((p->ts - p->last) >> TRING_TS_BITS)
		p->hlen = TRING_EVENT_HEADER_EXT_SIZE;
	p->open = !rel || rel + p->hlen + room >= cb->subbuf_size;
	p->begin = p->old;
	if (!p->open)
		return;
	p->boundary = rel ? (p->old | cb->subbuf_mask) + 1 : p->old;
	p->begin = p->boundary + TRING_PACKET_HEADER_SIZE;
	/* timestamp_begin is the base of the first record. */
	p->hlen = tring_short_hlen(id);
}

/*
 * Plan one attempt. Return: 0; -EAGAIN if the position read is stale
 * already (plan again); -ENOBUFS if the sub-buffer the record must open
 * holds data not yet committed or not yet read (the event is lost).
 */
static int tring_plan(struct tring_cpu *cb, unsigned int id,
		      unsigned long room, struct tring_plan *p)
{
	int ret;

	p->old = local_read(&cb->offset);
	/* Position before clock, as in tring_reserve(). */
	barrier();
	p->ts = tring_clock_after(cb, &p->last);
	tring_plan_place(cb, id, room, p);
	if (!p->open)
		return 0;
	ret = tring_prepare_switch(cb, p->boundary);
	/* Full as seen from a position a nested writer has moved since? */
	if (ret == -ENOBUFS && local_read(&cb->offset) != p->old)
		return -EAGAIN;
	if (ret)
		return ret;
	/* Before the cmpxchg: see tring_close(). */
	p->losses = tring_cpu_losses(cb);
	return 0;
}

/* The plan took effect: close the sub-buffer it leaves, open the new one. */
static void tring_switch(struct tring_cpu *cb, const struct tring_plan *p)
{
	if (!p->open)
		return;
	if (p->old & cb->subbuf_mask)
		tring_close(cb, p->old, p->ts, p->losses);
	tring_open(cb, p->boundary, p->ts);
}

/*
 * Reserve a record of @id with @room bytes after its header: plan, take
 * the position, switch sub-buffers, and write the header. The fast
 * path's cache is pointed at the record's sub-buffer if @cache.
 * Return: the record's position, its header's bytes in @hlen; or, with
 * preemption enabled again, -ENOBUFS or -E2BIG, the loss counted.
 */
static long tring_reserve_room(struct tring_cpu *cb, unsigned int id,
			       unsigned long room, bool cache,
			       unsigned int *hlen)
{
	struct tring_slot *slot;
	struct tring_plan p;
	void *packet;
	int ret;

	if (unlikely(room > tring_max_room(cb, id))) {
		local_inc(&cb->too_big);
		preempt_enable_notrace();
		return -E2BIG;
	}
	for (;;) {
		ret = tring_plan(cb, id, room, &p);
		if (!ret && local_cmpxchg(&cb->offset, p.old,
					  p.begin + p.hlen + room) == p.old)
			break;
		if (ret == -ENOBUFS) {
			local_inc(&cb->discarded);
			preempt_enable_notrace();
			return ret;
		}
	}
	/* As in tring_reserve(): never over what a nested writer wrote. */
	cmpxchg_local(&cb->last_ts, p.last, p.ts);
	tring_switch(cb, &p);
	slot = tring_slot_at(cb, p.begin);
	packet = tring_slot_packet(cb, slot);
	tring_write_header(packet + (p.begin & cb->subbuf_mask), p.hlen, id,
			   p.ts);
	if (cache)
		tring_cache_set(cb, p.begin, slot, packet);
	*hlen = p.hlen;
	return p.begin;
}

/**
 * tring_reserve_hdr - reserve a record and write its header, out of line
 * @cb: this CPU's ring; preemption is disabled.
 * @id: event id.
 * @room: bytes after the header (contexts and payload), a multiple of 4.
 * @hlen: set to the header's bytes.
 *
 * What tring_reserve_slow_v4() does, without contexts and without the
 * fast path's cache: for the writers of a buffer with contexts, every
 * one of whose records comes here.
 *
 * Return: the record's stream position; or, with preemption enabled
 * again, -ENOBUFS or -E2BIG (the loss counted).
 */
long tring_reserve_hdr(struct tring_cpu *cb, unsigned int id,
		       unsigned long room, unsigned int *hlen)
{
	return tring_reserve_room(cb, id, room, false, hlen);
}

/**
 * tring_reserve_slow_v4 - the out-of-line part of tring_reserve()
 * @cb: this CPU's ring; preemption is disabled.
 * @id: event id.
 * @len: payload bytes.
 *
 * Handles what the inline path does not: opening a new sub-buffer,
 * closing the full one, extended headers, losses, and the records of a
 * buffer with contexts (tring_ctx_reserve_slow() writes them after the
 * header). Each attempt is planned (tring_plan()), then takes effect
 * with one local cmpxchg of the reserve position, and only then does
 * its work on the sub-buffers. Writes the record's header; the caller
 * fills in its struct tring_res.
 *
 * Return: the record's stream position with its header's size in the
 * TRING_POS_HLEN bits and its contexts' from bit TRING_POS_CTX_SHIFT on
 * (see <linux/tring.h>); or, with preemption enabled again, -ENOBUFS or
 * -E2BIG as tring_reserve().
 */
long tring_reserve_slow_v4(struct tring_cpu *cb, unsigned int id,
			   unsigned int len)
{
	/*
	 * Pairs with rcu_assign_pointer() in tring_ctx_inst_set(): a set
	 * found is seen whole. Preemption is off: it stays until we return.
	 */
	const struct tring_ctx_set *set = rcu_dereference_sched(cb->buf->ctx);
	unsigned int hlen;
	long pos;

	if (unlikely(set))
		return tring_ctx_reserve_slow(cb, set, id, len);
	pos = tring_reserve_room(cb, id, tring_payload_room(len), true, &hlen);
	return pos < 0 ? pos : tring_pos_pack(pos, hlen, 0);
}
EXPORT_SYMBOL_GPL(tring_reserve_slow_v4);

/**
 * tring_discard - end a reservation without publishing its event
 * @res: the reservation from tring_reserve().
 *
 * If the reservation is still the last one on this CPU its space is
 * given back. Otherwise the record becomes a padding record that readers
 * skip (it is not counted as an event).
 *
 * Context: the context that made the reservation.
 * Return: true if the space was given back.
 */
bool tring_discard(struct tring_res *res)
{
	struct tring_cpu *cb = res->cb;
	/* Whole again: tring_reserve_slow_v4() leaves other bits on top. */
	unsigned long pos = tring_pos_full(cb, res->pos & TRING_POS_LOW_MASK);
	unsigned long end = pos + res->len;
	u32 *word = res->rec;
	unsigned int hlen = TRING_EVENT_HEADER_SIZE;
	unsigned int room, id;
	u64 last;

	/*
	 * The next record's predecessor is unknown here: make it carry a
	 * full timestamp, keeping the stream's time (not 0: the clock may
	 * go back, and that time is what a new record is held to). Set
	 * before the cmpxchg, so a writer nested between the two sees it.
	 */
	do {
		last = READ_ONCE(cb->last_ts);
	} while (cmpxchg_local(&cb->last_ts, last,
			       last | TRING_TS_FORCE_EXT) != last);
	if (local_cmpxchg(&cb->offset, end, pos) == end) {
		preempt_enable_notrace();
		return true;
	}

	if (tring_header_id(*word) == TRING_ID_EXTENDED)
		hlen = TRING_EVENT_HEADER_EXT_SIZE;
	else if (tring_header_id(*word) == TRING_ID_WIDE)
		hlen = TRING_EVENT_HEADER_WIDE_SIZE;
	room = res->len - hlen;
	id = room ? TRING_ID_PADDING : TRING_ID_NOP;
	if (hlen == TRING_EVENT_HEADER_SIZE)
		*word = tring_header_word(id, *word >> TRING_ID_BITS);
	else
		word[1] = id;	/* the wide or extended header's id */
	if (room) {
		*(u32 *)res->data = room - 4;
		memset(res->data + 4, 0, room - 4);
	}
	tring_commit_bytes(cb, res->slot, res->len);
	preempt_enable_notrace();
	return false;
}
EXPORT_SYMBOL_GPL(tring_discard);
