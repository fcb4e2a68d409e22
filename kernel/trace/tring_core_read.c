// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the reader's side of a CPU ring: complete sub-buffers
 * counted, taken and given back, the poll watermark, the counters.
 *
 * Part of the ring buffer's core (tring_core.c describes the positions,
 * slots and modes). Also compiled in user space by tools/testing/tring
 * with shim headers: it uses only what those shims provide.
 */
#define pr_fmt(fmt) "tring: " fmt

#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/wait.h>

#include "tring_internal.h"

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
