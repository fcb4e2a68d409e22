// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the per-CPU lockless reserve/commit ring buffer.
 *
 * This file is also compiled in user space by tools/testing/tring with
 * shim headers: it uses only what those shims provide.
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

static inline unsigned long tring_ring_bytes(const struct tring_cpu *cb)
{
	return (cb->slot_mask + 1) << cb->subbuf_shift;
}

static inline unsigned long tring_lap(const struct tring_cpu *cb,
				      unsigned long pos)
{
	return pos >> cb->lap_shift;
}

/*
 * slot->map's tag is the lap plus one, modulo 2^39 (the bits above
 * TRING_MAP_TAG_SHIFT): compare tags as a signed difference, so that
 * they keep working after the counter wraps.
 */
static inline long tring_tag_diff(unsigned long e, unsigned long tag)
{
	return (long)(((e >> TRING_MAP_TAG_SHIFT) - tag) << TRING_MAP_TAG_SHIFT) >>
	       TRING_MAP_TAG_SHIFT;
}

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

static void tring_wakeup_fn(struct irq_work *work)
{
	struct tring_cpu *cb = container_of(work, struct tring_cpu, wakeup);

	WRITE_ONCE(cb->reader_waiting, 0);
	wake_up_all(&cb->waitq);
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
static int tring_prepare_switch(struct tring_cpu *cb, unsigned long boundary)
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
static void tring_open(struct tring_cpu *cb, unsigned long boundary, u64 ts)
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
static void tring_close(struct tring_cpu *cb, unsigned long old, u64 ts,
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
static u64 tring_clock_after(struct tring_cpu *cb, u64 *last)
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

/* Consecutive complete sub-buffers from position @pos, up to @limit. */
static unsigned long tring_count_complete(struct tring_cpu *cb,
					  unsigned long pos,
					  unsigned long limit)
{
	struct tring_slot *slot;
	unsigned long n;

	for (n = 0; n < limit && n <= cb->slot_mask; n++) {
		slot = tring_slot_at(cb, pos);
		/* Pairs with the release in tring_deliver_v2(). */
		if (atomic_long_read_acquire(&slot->done) <= tring_lap(cb, pos))
			break;
		pos += cb->subbuf_size;
	}
	return n;
}

/**
 * tring_cpu_ready - count complete sub-buffers waiting for the reader
 * @cb: the CPU ring.
 * @limit: stop counting here.
 *
 * Context: reader side.
 * Return: consecutive complete sub-buffers from the next one to take.
 */
unsigned long tring_cpu_ready(struct tring_cpu *cb, unsigned long limit)
{
	return tring_count_complete(cb, cb->consumed +
				    (cb->held << cb->subbuf_shift), limit);
}
EXPORT_SYMBOL_GPL(tring_cpu_ready);

/**
 * tring_cpu_poll_ready - is there enough for a poller, or will it be woken
 * @cb: the CPU ring.
 *
 * The watermark counts every complete sub-buffer not given back, the
 * ones the reader holds included: in discard mode a writer that cannot
 * open a new sub-buffer because of the reader has every slot but its
 * open one complete and not given back, which is at least the watermark
 * (at most slots - 1), so that state is always readable. No delivery
 * may come until the reader gives sub-buffers back; the reader must not
 * wait for one.
 *
 * Context: reader side, before sleeping on @cb->waitq.
 * Return: true when the watermark is reached (one sub-buffer to take is
 * enough while a flushed sub-buffer is not yet consumed). When false,
 * the next delivery that reaches it wakes @cb->waitq: tring_maybe_wake()
 * counts the same way, from @cb->consumed.
 */
bool tring_cpu_poll_ready(struct tring_cpu *cb)
{
	unsigned long need;

	WRITE_ONCE(cb->reader_waiting, 1);
	/*
	 * Pairs with smp_mb() in tring_maybe_wake(). flush_pos is read
	 * after it too: a flush may run meanwhile (tring_cpu_wait() cannot
	 * be serialized with one), and the flushed sub-buffer is delivered
	 * later if a writer on its CPU was interrupted. Either that delivery
	 * sees reader_waiting and wakes us, or we see it and flush_pos here.
	 */
	smp_mb();
	/* After a flush, one sub-buffer the reader can take is enough. */
	if (cb->consumed < READ_ONCE(cb->flush_pos) && tring_cpu_ready(cb, 1))
		goto ready;
	need = cb->watermark;
	if (tring_count_complete(cb, cb->consumed, need) < need)
		return false;
ready:
	WRITE_ONCE(cb->reader_waiting, 0);
	return true;
}
EXPORT_SYMBOL_GPL(tring_cpu_poll_ready);

/**
 * tring_cpu_wait - sleep until tring_cpu_poll_ready()
 * @cb: the CPU ring.
 *
 * Context: process, reader side.
 * Return: 0, or -ERESTARTSYS on a signal.
 */
int tring_cpu_wait(struct tring_cpu *cb)
{
	return wait_event_interruptible(cb->waitq, tring_cpu_poll_ready(cb));
}
EXPORT_SYMBOL_GPL(tring_cpu_wait);

/**
 * tring_cpu_set_watermark - set the poll watermark
 * @cb: the CPU ring.
 * @wm: complete sub-buffers; clamped to 1 .. slots - 1 (a writer in
 *	discard mode cannot complete the last slot while the others wait,
 *	held or not: see tring_cpu_poll_ready()).
 */
void tring_cpu_set_watermark(struct tring_cpu *cb, unsigned int wm)
{
	WRITE_ONCE(cb->watermark, clamp_t(unsigned long, wm, 1, cb->slot_mask));
}
EXPORT_SYMBOL_GPL(tring_cpu_set_watermark);

static void tring_fill_subbuf(struct tring_cpu *cb, unsigned long phys,
			      unsigned long pos, struct tring_subbuf *sb)
{
	struct tring_packet_header *ph = tring_phys_va(cb, phys);

	sb->offset = phys << cb->subbuf_shift;
	sb->length = ph->content_size / 8;
	sb->seq = pos >> cb->subbuf_shift;
}

static int tring_get_discard(struct tring_cpu *cb, struct tring_subbuf *sb)
{
	unsigned long pos = cb->consumed + (cb->held << cb->subbuf_shift);
	struct tring_slot *slot = tring_slot_at(cb, pos);

	/* Pairs with the release in tring_deliver_v2(). */
	if (atomic_long_read_acquire(&slot->done) <= tring_lap(cb, pos))
		return -EAGAIN;
	tring_fill_subbuf(cb, slot - cb->slots, pos, sb);
	cb->held++;
	return 0;
}

/*
 * Overwrite mode: the sub-buffer at @pos was overwritten; move to the
 * oldest one that may still be intact. Every sub-buffer skipped was
 * claimed by a writer, which counted its events as overwritten.
 */
static void tring_resync(struct tring_cpu *cb, unsigned long pos)
{
	unsigned long w = local_read(&cb->offset);
	unsigned long ring = tring_ring_bytes(cb);
	unsigned long oldest;

	oldest = (w & cb->subbuf_mask) ? (w | cb->subbuf_mask) + 1 : w;
	oldest = oldest > ring ? oldest - ring : 0;
	WRITE_ONCE(cb->consumed, max(pos + cb->subbuf_size, oldest));
}

static int tring_get_overwrite(struct tring_cpu *cb, struct tring_subbuf *sb)
{
	unsigned long pos, lap, done, e, n;
	struct tring_slot *slot;
	int tries;

	if (cb->held)
		return -EBUSY;
	if (cb->retake) {
		cb->retake = false;
		goto hold;
	}
	for (tries = 0; tries < 16; tries++) {
		pos = cb->consumed;
		slot = tring_slot_at(cb, pos);
		lap = tring_lap(cb, pos);
		/* Pairs with the release in tring_deliver_v2(). */
		done = atomic_long_read_acquire(&slot->done);
		if (done <= lap)
			return -EAGAIN;
		e = atomic_long_read(&slot->map);
		if (done != lap + 1 || tring_tag_diff(e, lap + 1)) {
			tring_resync(cb, pos);
			continue;
		}
		n = (e & ~TRING_MAP_PHYS) | TRING_MAP_TAKEN | cb->reader_phys;
		/*
		 * Fully ordered; pairs with the cmpxchg in tring_claim():
		 * either we take the data or a writer claimed the slot for
		 * the next lap first and our cmpxchg fails.
		 */
		if (atomic_long_cmpxchg(&slot->map, e, n) == e) {
			cb->reader_phys = e & TRING_MAP_PHYS;
			goto hold;
		}
	}
	return -EAGAIN;
hold:
	tring_fill_subbuf(cb, cb->reader_phys, cb->consumed, sb);
	cb->held = 1;
	return 0;
}

/**
 * tring_cpu_get - take the next complete sub-buffer
 * @cb: the CPU ring.
 * @sb: where it is in the mapping, its length and sequence number.
 *
 * In discard mode the reader may take several before giving them back;
 * in overwrite mode one, which a spare replaces in the ring.
 *
 * Context: reader side.
 * Return: 0, -EAGAIN if none is complete, -EBUSY if the reader already
 * holds one (overwrite mode).
 */
int tring_cpu_get(struct tring_cpu *cb, struct tring_subbuf *sb)
{
	if (cb->overwrite)
		return tring_get_overwrite(cb, sb);
	return tring_get_discard(cb, sb);
}
EXPORT_SYMBOL_GPL(tring_cpu_get);

/**
 * tring_cpu_put - give back the oldest held sub-buffers
 * @cb: the CPU ring.
 * @seq: sequence number of the oldest held sub-buffer.
 * @count: how many to give back.
 *
 * Context: reader side.
 * Return: 0, or -EINVAL if nothing is held, @seq is not the oldest held
 * or @count is more than is held.
 */
int tring_cpu_put(struct tring_cpu *cb, u64 seq, unsigned long count)
{
	if (!count || count > cb->held)
		return -EINVAL;
	if (seq != cb->consumed >> cb->subbuf_shift)
		return -EINVAL;
	cb->held -= count;
	/*
	 * Pairs with smp_load_acquire() in tring_prepare_switch(): our
	 * reads of these sub-buffers happen before a writer reuses them.
	 */
	smp_store_release(&cb->consumed,
			  cb->consumed + (count << cb->subbuf_shift));
	return 0;
}
EXPORT_SYMBOL_GPL(tring_cpu_put);

/**
 * tring_cpu_unget - undo the last takes the reader could not hand over
 * @cb: the CPU ring.
 * @count: how many of the sub-buffers taken last go back; at most those
 *	held.
 *
 * They are handed out again by the next tring_cpu_get(), as if never
 * taken. In overwrite mode the held sub-buffer is outside the ring (the
 * reader swapped its spare in for it), so it is not given back to the
 * ring: it is marked to be taken again.
 *
 * Context: reader side.
 */
void tring_cpu_unget(struct tring_cpu *cb, unsigned long count)
{
	if (!count)
		return;
	if (cb->overwrite)
		cb->retake = true;
	cb->held -= count;
}
EXPORT_SYMBOL_GPL(tring_cpu_unget);

/**
 * tring_cpu_readable - would the reader find a sub-buffer to take
 * @cb: the CPU ring.
 *
 * Context: reader side.
 * Return: true if a complete sub-buffer is waiting to be taken, or one
 * given back with tring_cpu_unget() in overwrite mode is to be taken
 * again (in overwrite mode, once the reader gives back the one it holds).
 */
bool tring_cpu_readable(struct tring_cpu *cb)
{
	return cb->retake || tring_cpu_ready(cb, 1);
}

/**
 * tring_cpu_reader_reset - a reader went away
 * @cb: the CPU ring.
 *
 * Sub-buffers it held and did not give back are handed to the next
 * reader again.
 *
 * Context: reader side.
 */
void tring_cpu_reader_reset(struct tring_cpu *cb)
{
	tring_cpu_unget(cb, cb->held);
	WRITE_ONCE(cb->reader_waiting, 0);
}

/**
 * tring_cpu_counts - read one CPU's positions and counters
 * @cb: the CPU ring.
 * @c: filled in.
 *
 * Context: reader side; writers keep running.
 */
void tring_cpu_counts(struct tring_cpu *cb, struct tring_counts *c)
{
	unsigned long i, base, d;
	u64 open = 0;

	c->events_written = local_read(&cb->events_delivered);
	for (i = 0; i <= cb->slot_mask; i++) {
		/*
		 * Events committed in the slot's open lap, from an unsigned
		 * difference that is exact across the counter's wrap. A lap
		 * adds below 2^63 (see TRING_COMMIT_EVENT), so the difference
		 * is negative as a long only if a delivery stored the base
		 * after we read it and before the counter.
		 */
		base = READ_ONCE(cb->slots[i].done_commit);
		d = (unsigned long)local_read(&cb->slots[i].commit) - base;
		if ((long)d > 0)
			open += d >> TRING_COMMIT_EVENT_SHIFT;
	}
	c->events_written += open;
	c->write_pos = local_read(&cb->offset);
	c->read_pos = cb->consumed;
	c->subbufs_delivered = local_read(&cb->subbufs_delivered);
	c->subbufs_ready = tring_cpu_ready(cb, cb->slot_mask + 1);
	c->events_discarded = local_read(&cb->discarded);
	c->events_overwritten = local_read(&cb->overwritten);
	c->events_too_big = local_read(&cb->too_big);
}

/**
 * tring_cpu_preload - hand out sub-buffers written outside the ring
 * @cb: a discard-mode ring no writer ever writes to, fresh.
 * @nr: its first @nr physical sub-buffers hold complete packets, in
 *	stream order (at most the ring's slot count).
 * @events: the events in them.
 *
 * Makes them complete sub-buffers a reader takes in order, as if written
 * (a previous boot's trace, tring_persist.c).
 *
 * Context: before any reader or writer can reach @cb.
 */
void tring_cpu_preload(struct tring_cpu *cb, unsigned long nr, u64 events)
{
	unsigned long i;

	for (i = 0; i < nr && i <= cb->slot_mask; i++)
		atomic_long_set(&cb->slots[i].done, 1);
	local_set(&cb->offset, i << cb->subbuf_shift);
	local_set(&cb->subbufs_delivered, i);
	local_set(&cb->events_delivered, events);
}

/**
 * tring_check_attr - validate buffer attributes
 * @attr: the attributes.
 *
 * A ring is at most TRING_MAX_CPU_BYTES per CPU: its pages are counted
 * in the unsigned int vmap() takes.
 *
 * Return: 0 or -EINVAL.
 */
int tring_check_attr(const struct tring_buffer_attr *attr)
{
	if (!is_power_of_2(attr->subbuf_size) ||
	    attr->subbuf_size < PAGE_SIZE ||
	    ilog2(attr->subbuf_size) > TRING_MAX_SUBBUF_SHIFT)
		return -EINVAL;
	if (!is_power_of_2(attr->subbuf_count) || attr->subbuf_count < 2 ||
	    attr->subbuf_count > TRING_MAX_SLOTS)
		return -EINVAL;
	/* Both powers of two: the product cannot overflow before this test. */
	if ((u64)attr->subbuf_size * attr->subbuf_count > TRING_MAX_CPU_BYTES)
		return -EINVAL;
	if (attr->flags & ~TRING_OVERWRITE)
		return -EINVAL;
	if (attr->clock != TRING_CLOCK_MONO && attr->clock != TRING_CLOCK_LOCAL)
		return -EINVAL;
	if (attr->watermark >= attr->subbuf_count)
		return -EINVAL;
	return 0;
}

/*
 * A buffer may not leave less than this share of the machine's RAM
 * available (1 / 2^TRING_MEM_KEEP_SHIFT): tracing must not be what runs
 * the system out of memory.
 */
#define TRING_MEM_KEEP_SHIFT	3

/*
 * Held from the memory check of a new buffer to the end of its
 * allocation, so that two buffers allocated at once (a knob rebuilding
 * the default buffer, an instance being created) cannot both pass the
 * check against the same available memory.
 */
static DEFINE_MUTEX(tring_mem_lock);

/*
 * Refuse, before allocating anything, a buffer whose pages would leave
 * less than an eighth of RAM available (si_mem_available(), which counts
 * free and reclaimable memory). Rings are made for the CPUs online now;
 * a CPU that comes online later gets its ring then (tring_cpu_prepare()).
 */
static int tring_check_memory(const struct tring_buffer_attr *attr)
{
	bool spare = attr->flags & TRING_OVERWRITE;
	unsigned long cpu_pages = (attr->subbuf_count + spare) *
				  (attr->subbuf_size >> PAGE_SHIFT);
	unsigned int cpus = num_online_cpus();
	unsigned long need = cpu_pages * cpus;
	unsigned long keep = totalram_pages() >> TRING_MEM_KEEP_SHIFT;
	long avail = si_mem_available();

	if (avail >= 0 && need + keep <= (unsigned long)avail)
		return 0;
	pr_warn("buffer '%s' refused: %lu KiB per CPU x %u online CPUs = %lu KiB, with %ld KiB available of which %lu KiB (1/%u of RAM) must stay available\n",
		attr->name ?: "", cpu_pages * (PAGE_SIZE / 1024), cpus,
		need * (PAGE_SIZE / 1024), avail * (long)(PAGE_SIZE / 1024),
		keep * (PAGE_SIZE / 1024), 1U << TRING_MEM_KEEP_SHIFT);
	return -ENOMEM;
}

/* The ring's pages, zeroed, into cb->pages; their mapping, or NULL. */
static void *tring_cpu_alloc_pages(struct tring_cpu *cb, int node)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	unsigned long i;
	void *va;

	cb->pages = kvmalloc_node(array_size(cb->nr_pages, sizeof(*cb->pages)),
				  GFP_KERNEL | __GFP_ZERO, node);
	if (!cb->pages)
		return NULL;
	for (i = 0; i < cb->nr_pages; i++) {
		cb->pages[i] = alloc_pages_node(node, gfp, 0);
		if (!cb->pages[i])
			goto free_pages;
	}
	va = vmap(cb->pages, cb->nr_pages, VM_MAP, PAGE_KERNEL);
	if (!va)
		goto free_pages;
	return va;

free_pages:
	while (i--)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
	cb->pages = NULL;
	return NULL;
}

static void tring_cpu_free_pages(struct tring_cpu *cb, void *va)
{
	unsigned long i;

	vunmap(va);
	for (i = 0; i < cb->nr_pages; i++)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
}

/* Everything but the memory, from the buffer's attributes. */
static void tring_cpu_setup(struct tring_cpu *cb, struct tring_buffer *buf,
			    unsigned int cpu)
{
	const struct tring_buffer_attr *attr = &buf->attr;
	unsigned long nslots = attr->subbuf_count;

	cb->buf = buf;
	cb->cpu = cpu;
	cb->subbuf_size = attr->subbuf_size;
	cb->subbuf_mask = attr->subbuf_size - 1;
	cb->subbuf_shift = ilog2(attr->subbuf_size);
	cb->cur_last = TRING_NO_LAST;
	cb->slot_mask = nslots - 1;
	cb->lap_shift = cb->subbuf_shift + ilog2(nslots);
	cb->clock = attr->clock;
	cb->overwrite = attr->flags & TRING_OVERWRITE;
	/* A record must end before its packet does, after any header. */
	cb->max_payload = cb->subbuf_size - TRING_PACKET_HEADER_SIZE -
			  TRING_EVENT_HEADER_EXT_SIZE - 4;
	cb->nr_phys = nslots + cb->overwrite;
	cb->nr_pages = cb->nr_phys << (cb->subbuf_shift - PAGE_SHIFT);
	cb->reader_phys = nslots;
	/*
	 * An eighth by default: the reader is woken with most of the ring
	 * still free, so a reader slow to be scheduled (hackbench's dozens
	 * of runnable tasks per CPU, on 6.12) loses nothing; at half the
	 * ring it lost 5% of the events there.
	 */
	cb->watermark = attr->watermark ?: max(nslots / 8, 1UL);
	init_waitqueue_head(&cb->waitq);
	init_irq_work(&cb->wakeup, tring_wakeup_fn);
}

/*
 * Make @cpu's ring. Called for each CPU online when the buffer is made,
 * and from the CPU-hotplug prepare step of a CPU coming online, before it
 * runs anything; both under the hotplug lock, so never at once for a
 * ring.
 */
static int tring_cpu_init(struct tring_cpu *cb, struct tring_buffer *buf,
			  unsigned int cpu)
{
	int node = cpu_to_node(cpu);
	unsigned long i, nslots;
	void *va;

	tring_cpu_setup(cb, buf, cpu);
	nslots = cb->slot_mask + 1;
	if (buf->mem) {
		/* Zeroed by the provider, slots and sub-buffers. */
		va = buf->mem->cpu_area(buf->mem, cpu, &cb->slots, &cb->pfn);
		if (!va)
			return -ENOMEM;
	} else {
		va = tring_cpu_alloc_pages(cb, node);
		if (!va)
			return -ENOMEM;
		cb->slots = kvmalloc_node(array_size(nslots, sizeof(*cb->slots)),
					  GFP_KERNEL | __GFP_ZERO, node);
		if (!cb->slots)
			goto free_pages;
	}
	for (i = 0; i < nslots; i++)
		atomic_long_set(&cb->slots[i].map, i | TRING_MAP_TAKEN);
	/*
	 * Pairs with smp_load_acquire() in tring_buffer_cpu(): a reader
	 * that sees the ring made sees all of the above.
	 */
	smp_store_release(&cb->va, va);
	return 0;

free_pages:
	tring_cpu_free_pages(cb, va);
	return -ENOMEM;
}

static void tring_cpu_free(struct tring_cpu *cb)
{
	irq_work_sync(&cb->wakeup);
	if (cb->buf->mem)
		return;
	kvfree(cb->slots);
	tring_cpu_free_pages(cb, cb->va);
}

/* Free the rings made; no writer is left. */
static void tring_buffer_free_rings(struct tring_buffer *buf)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct tring_cpu *cb = per_cpu_ptr(buf->cpus, cpu);

		if (cb->va)
			tring_cpu_free(cb);
	}
	free_percpu(buf->cpus);
}

/*
 * The CPU-hotplug state (CPUHP_BP_PREPARE_DYN, multi-instance) with one
 * instance per buffer, whose startup makes a CPU's ring. Set up at load
 * by tring_core_init().
 */
static enum cpuhp_state tring_cpuhp_state;

/*
 * CPU @cpu is coming online (or the buffer is being made): make its ring
 * unless it has one from an earlier time online. A CPU without the
 * memory for its ring does not come online, as with ftrace's buffers.
 */
static int tring_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct tring_buffer *buf = hlist_entry(node, struct tring_buffer,
					       cpuhp_node);
	struct tring_cpu *cb = per_cpu_ptr(buf->cpus, cpu);
	int ret;

	if (cb->va)
		return 0;
	ret = tring_cpu_init(cb, buf, cpu);
	if (ret)
		pr_warn("buffer '%s': no memory for CPU %u's ring (%zu KiB)\n",
			buf->name, cpu,
			(buf->attr.subbuf_count + cb->overwrite) *
			(buf->attr.subbuf_size >> 10));
	return ret;
}

/**
 * tring_core_init - set up the CPU-hotplug state that makes the rings
 *
 * Context: module load, before any buffer is made.
 * Return: 0 or a negative errno.
 */
int tring_core_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "trace/tring:prepare",
				      tring_cpu_prepare, NULL);
	if (ret < 0)
		return ret;
	tring_cpuhp_state = ret;
	return 0;
}

/**
 * tring_core_exit - remove the CPU-hotplug state
 *
 * Context: module unload or failed load, once every buffer is freed.
 */
void tring_core_exit(void)
{
	cpuhp_remove_multi_state(tring_cpuhp_state);
}

/**
 * tring_buffer_alloc_in - allocate a buffer, its rings in given memory
 * @attr: the attributes.
 * @mem: where the rings go (a persistent region), or NULL for pages of
 *	their own (tring_buffer_alloc()). Its geometry must be @attr's; it
 *	must outlive the buffer.
 *
 * Context: process; may sleep; takes the CPU-hotplug lock.
 * Return: the buffer, or an ERR_PTR(): -EINVAL for bad attributes,
 * -ENOMEM.
 */
struct tring_buffer *tring_buffer_alloc_in(const struct tring_buffer_attr *attr,
					   struct tring_ring_mem *mem)
{
	struct tring_buffer *buf;
	int ret;

	ret = tring_check_attr(attr);
	if (ret)
		return ERR_PTR(ret);
	mutex_lock(&tring_mem_lock);
	ret = mem ? 0 : tring_check_memory(attr);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		goto unlock;
	buf->attr = *attr;
	buf->mem = mem;
	strscpy(buf->name, attr->name ?: "", sizeof(buf->name));
	buf->attr.name = buf->name;
	buf->cpus = alloc_percpu(struct tring_cpu);
	if (!buf->cpus)
		goto free_buf;
	/* Makes the online CPUs' rings; on failure, adds no instance. */
	ret = cpuhp_state_add_instance(tring_cpuhp_state, &buf->cpuhp_node);
	if (ret)
		goto free_rings;
	mutex_unlock(&tring_mem_lock);
	return buf;

free_rings:
	tring_buffer_free_rings(buf);
free_buf:
	kfree(buf);
unlock:
	mutex_unlock(&tring_mem_lock);
	return ERR_PTR(ret);
}

/**
 * tring_buffer_alloc - allocate a buffer with a ring for every online CPU
 * @attr: the attributes.
 *
 * Each ring's sub-buffers are allocated page by page on the CPU's node,
 * zeroed, and mapped contiguously with vmap(). A buffer whose pages would
 * leave less than an eighth of RAM available is refused (with a kernel
 * message naming the sizes) before anything is allocated. A CPU that
 * comes online later gets its ring before it runs anything.
 *
 * Context: process; may sleep; takes the CPU-hotplug lock.
 * Return: the buffer, or an ERR_PTR(): -EINVAL for bad attributes,
 * -ENOMEM.
 */
struct tring_buffer *tring_buffer_alloc(const struct tring_buffer_attr *attr)
{
	return tring_buffer_alloc_in(attr, NULL);
}

/**
 * tring_buffer_free - free a buffer
 * @buf: the buffer; no new writer may start on it.
 *
 * Writers run with preemption disabled: after synchronize_rcu() every
 * writer that could still see @buf has finished. Pages still mapped by
 * user space stay until unmapped.
 *
 * Context: process; may sleep.
 */
void tring_buffer_free(struct tring_buffer *buf)
{
	cpuhp_state_remove_instance_nocalls(tring_cpuhp_state,
					    &buf->cpuhp_node);
	synchronize_rcu();
	tring_buffer_free_rings(buf);
	kfree(buf);
}
