// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: unit cases of the ring buffer core: discard and overwrite
 * modes, sizes, giving back, flushing.
 * twin_unit.c runs them; twin_unit.h has what they share.
 */
#include "twin_unit.h"

void t_discard_mode_full(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), ok = 0, fail = 0, i;
	struct tring_counts c;
	int ret;

	nlens = 0;
	set_len(2, 60);
	check_eq(per, 62);
	for (i = 0; i < 300; i++) {
		ret = wr_seq(buf, 2, 60, i);
		if (ret == 0)
			ok++;
		else if (check(ret == -ENOBUFS, "write: %d", ret))
			fail++;
	}
	check_eq(ok, 4 * per);
	check_eq(fail, 300 - 4 * per);
	check_eq(local_read(&cb->discarded), fail);
	check_eq(tring_cpu_losses(cb), fail);
	check_eq(tring_cpu_ready(cb, 8), 3);
	tring_cpu_counts(cb, &c);
	check_eq(c.events_written, ok);
	check_eq(c.events_discarded, fail);
	check_eq(c.subbufs_delivered, 3);
	check_eq(c.subbufs_ready, 3);
	check_eq(c.write_pos, 3 * SB + HDR + per * 64);

	rd_reset();
	check_eq(rd_all(cb), 3);
	for (i = 0; i < 3; i++)
		check_eq(R.pk[i].discarded, 0);
	/* Room again: the full sub-buffer closes with the count in band. */
	for (i = 0; i < 10; i++)
		check_eq(wr_seq(buf, 2, 60, 300 + i), 0);
	tring_cpu_flush(cb);
	check_eq(rd_all(cb), 2);
	check_eq(R.npk, 5);
	check_packet_order(true);
	check_eq(R.pk[3].discarded, fail);
	check_eq(R.pk[4].discarded, fail);
	check_eq(R.pk[3].nev, per);
	check_eq(R.pk[4].nev, 10);
	/* written == read + discarded, and exactly the first ok ones */
	check_eq(310, R.nev + local_read(&cb->discarded));
	for (i = 0; i < (unsigned long)R.nev; i++)
		check_eq(ev_seq(i), i < ok ? i : 300 + i - ok);
	tring_buffer_free(buf);
}

void t_overwrite_stalled(void)
{
	struct tring_buffer *buf = mk(4, TRING_OVERWRITE);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), n = 1000, i;
	unsigned long packets = (n + per - 1) / per, lost;
	struct tring_counts c;

	nlens = 0;
	set_len(2, 60);
	for (i = 0; i < n; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
	tring_cpu_flush(cb);
	lost = (packets - 4) * per;
	check_eq(local_read(&cb->overwritten), lost);
	rd_reset();
	check_eq(rd_all(cb), 4);
	check_eq(R.pk[0].seq, packets - 4);	/* the gap */
	check_packet_order(true);
	check_eq(R.nev + local_read(&cb->overwritten), n);
	for (i = 0; i < (unsigned long)R.nev; i++)
		check_eq(ev_seq(i), lost + i);
	/* Overwritten events are not in band: only dropped/too big are. */
	for (i = 0; i < 4; i++)
		check_eq(R.pk[i].discarded, 0);
	check_eq(tring_cpu_losses(cb), 0);
	tring_cpu_counts(cb, &c);
	check_eq(c.events_written, n);
	check_eq(c.events_overwritten, lost);
	check_eq(c.subbufs_delivered, packets);
	check_eq(c.subbufs_ready, 0);
	check_eq(c.read_pos, packets * SB);
	tring_buffer_free(buf);
}

void t_overwrite_held_untouched(void)
{
	struct tring_buffer *buf = mk(4, TRING_OVERWRITE);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), n = 0, i;
	struct tring_subbuf sb, sb2;
	unsigned int h1, h2;

	nlens = 0;
	set_len(2, 60);
	for (i = 0; i < 200; i++)
		check_eq(wr_seq(buf, 2, 60, n++), 0);
	check_eq(tring_cpu_get(cb, &sb), 0);
	check_eq(sb.seq, 0);
	/* The reader holds physical 0; its spare (4) took its place. */
	check_eq(sb.offset, 0);
	check_eq(atomic_long_read(&cb->slots[0].map) & TRING_MAP_PHYS, 4);
	h1 = twin_hash(twin_subbuf_va(cb, &sb), SB, TWIN_HASH_SEED);
	check_eq(tring_cpu_get(cb, &sb2), -EBUSY);
	for (i = 0; i < 5000; i++)
		check_eq(wr_seq(buf, 2, 60, n++), 0);
	h2 = twin_hash(twin_subbuf_va(cb, &sb), SB, TWIN_HASH_SEED);
	check(h1 == h2, "held sub-buffer changed while writers wrote");
	rd_reset();
	rd_packet(cb, &sb);
	check_eq(R.nev, per);
	check_eq(tring_cpu_put(cb, sb.seq, 1), 0);
	tring_cpu_flush(cb);
	rd_all(cb);
	check_packet_order(false);
	check_eq(R.nev + local_read(&cb->overwritten), n);
	for (i = 1; i < (unsigned long)R.nev; i++)
		check(ev_seq(i) > ev_seq(i - 1), "event order");
	check_eq(ev_seq(R.nev - 1), n - 1);
	tring_buffer_free(buf);
}

void t_too_big(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned int max = cb->max_payload;
	static unsigned char big[8192];
	struct tring_res res = { };

	nlens = 0;
	set_len(2, 4);
	set_len(3, max);
	set_len(WIDE_ID, max + 8);
	check_eq(wr(buf, 2, 4, 0), 0);
	/* Sizes no sub-buffer can hold, whatever the header. */
	check_eq(trace_write_inline(buf, 2, big, SB - HDR - 4 + 1), -E2BIG);
	check_eq(tring_reserve(buf, 2, 0xffffffffU, &res), -E2BIG);
	check_eq(trace_write_inline(buf, WIDE_ID, big, max + 9), -E2BIG);
	check_eq(trace_write_inline(buf, 2, big, 2 * SB), -E2BIG);
	check_eq(local_read(&cb->too_big), 4);
	check_eq(tring_cpu_losses(cb), 4);
	/*
	 * The largest payloads fit: compact right after an 8-byte record
	 * (64 + 8 + 4 + max = 4088), wide alone (64 + 8 + max + 8 = 4092).
	 */
	check_eq(wr(buf, 3, max, 1), 0);
	check_eq(wr(buf, WIDE_ID, max + 8, 2), 0);
	check_eq(wr(buf, 2, 4, 3), 0);
	tring_cpu_flush(cb);
	rd_reset();
	check_eq(rd_all(cb), 3);
	check_eq(R.nev, 4);
	check_ev(0, 2, 4, 0);
	check_ev(1, 3, max, 1);
	check_ev(2, WIDE_ID, max + 8, 2);
	check_ev(3, 2, 4, 3);
	check_eq(R.pk[0].content, (HDR + 8 + 4 + max) * 8);
	check_eq(R.pk[1].content, (HDR + 8 + max + 8) * 8);
	check_eq(R.pk[2].content, (HDR + 8) * 8);
	check_eq(R.pk[0].discarded, 4);
	check_eq(local_read(&cb->discarded), 0);
	tring_buffer_free(buf);
}

/*
 * Whether a payload size is accepted must not depend on where the writer
 * happens to be in its sub-buffer: try each size just above max_payload
 * with a compact and a wide id where the inline fast path handles it (a
 * small record before it, room left) and where the slow path does (a
 * fresh sub-buffer).
 */
void t_too_big_consistent(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned int max = cb->max_payload, len;
	static unsigned char big[8192];
	static const unsigned int ids[] = { 3, WIDE_ID };
	unsigned int k;
	int fast, slow;

	nlens = 0;
	set_len(2, 0);
	for (k = 0; k < ARRAY_SIZE(ids); k++) {
		for (len = max + 1; len <= max + 12; len += 1) {
			set_len(ids[k], len);
			tring_cpu_flush(cb);
			check_eq(trace_write_inline(buf, 2, big, 0), 0);
			fast = trace_write_inline(buf, ids[k], big, len);
			tring_cpu_flush(cb);
			slow = trace_write_inline(buf, ids[k], big, len);
			check(fast == slow, "id %u payload %u (max_payload "
			      "%u): %d after a small record, %d at a "
			      "sub-buffer start", ids[k], len, max, fast,
			      slow);
			/* Compact ids carry 12 bytes more, wide ones 8. */
			check_eq(slow, len <= max + (ids[k] < TRING_ID_WIDE ?
						    12 : 8) ? 0 : -E2BIG);
			tring_cpu_flush(cb);
			rd_reset();
			rd_take(cb, 8);
			check_eq(R.nev, 1 + !fast + !slow);
		}
	}
	tring_buffer_free(buf);
}

void t_discard_last(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_res res = { };
	unsigned long pos, content;

	nlens = 0;
	set_len(2, 8);
	set_len(3, 10);
	/* The first record of a fresh sub-buffer, given back. */
	check_eq(tring_reserve(buf, 3, 10, &res), 0);
	check_eq(res.pos, HDR);
	check(tring_discard(&res), "discard of the only reservation kept it");
	check_eq(local_read(&cb->offset), HDR);
	check_eq(tring_cpu_flush(cb), 0);	/* nothing written: stays open */
	check_eq(tring_cpu_ready(cb, 1), 0);

	check_eq(wr(buf, 2, 8, 0), 0);
	check_eq(tring_reserve(buf, 3, 10, &res), 0);
	pos = res.pos;
	check(tring_discard(&res), "discard of the last reservation kept it");
	check_eq(local_read(&cb->offset), pos);
	check_eq(tring_reserve(buf, 2, 8, &res), 0);
	check_eq(res.pos, pos);			/* the same place again */
	pattern(res.data, 8, 1);
	tring_commit(&res);
	/* Both records follow a give-back: both carry full timestamps. */
	content = HDR + 2 * (TRING_EVENT_HEADER_EXT_SIZE + 8);
	check_eq(tring_cpu_flush(cb), SB);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 2);
	check_eq(R.pk[0].count, 2);
	check_eq(R.pk[0].npad + R.pk[0].nnop, 0);
	check_ev(0, 2, 8, 0);
	check_ev(1, 2, 8, 1);
	check_eq(R.ev[0].ext, 1);
	check_eq(R.ev[1].ext, 1);
	check_eq(R.pk[0].content, content * 8);
	tring_buffer_free(buf);
}

static void nest_write_b(int level)
{
	check_eq(wr(nest_buf, 6, 8, 7), 0);
}

void t_discard_not_last(void)
{
	static const struct {
		u32 id;
		unsigned int len;
		u32 pad_id;
	} C[] = {
		{ 5, 12, TRING_ID_PADDING },
		{ 5, 0, TRING_ID_NOP },
		{ WIDE_ID, 20, TRING_ID_PADDING },
		{ WIDE_ID, 0, TRING_ID_NOP },
	};
	unsigned int c;

	for (c = 0; c < 4; c++) {
		struct tring_buffer *buf = mk(4, 0);
		struct tring_cpu *cb = twin_cb(buf, 0);
		const unsigned char *pkt;
		struct tring_subbuf sb;
		struct tring_res res = { };
		struct tring_dec d = { 0 };
		struct tring_dec_event e = { 0 };
		unsigned long hlen;
		u32 sz;

		dirty(buf);
		nest_buf = buf;
		nlens = 0;
		set_len(C[c].id, C[c].len);
		set_len(6, 8);
		set_len(2, 200);
		twin_irq_fn[1] = nest_write_b;
		check_eq(tring_reserve(buf, C[c].id, C[c].len, &res), 0);
		pattern(res.data, C[c].len, 5);
		twin_raise(1);		/* B lands after A */
		check(!tring_discard(&res), "case %u: A given back though B "
		      "follows it", c);
		twin_irq_fn[1] = NULL;
		tring_cpu_flush(cb);
		check_eq(tring_cpu_get(cb, &sb), 0);
		pkt = twin_subbuf_va(cb, &sb);
		hlen = C[c].id >= TRING_ID_WIDE ?
		       TRING_EVENT_HEADER_WIDE_SIZE : TRING_EVENT_HEADER_SIZE;
		check_eq(sb.length, HDR + hlen + tring_payload_room(C[c].len) +
			 rec_size(8));
		tring_dec_init(&d, pkt, SB);
		check_eq(tring_dec_next(&d, len_fn, NULL, &e), 1);
		check(e.id == C[c].pad_id, "case %u: A became id %u", c, e.id);
		check_eq(e.extended, 0);
		check_eq(e.hlen, hlen);
		if (C[c].len) {
			memcpy(&sz, e.payload, 4);
			check_eq(sz, tring_payload_room(C[c].len) - 4);
			check_eq(e.len, tring_payload_room(C[c].len));
			for (u32 j = 0; j < sz; j++)
				check(!e.payload[4 + j],
				      "case %u: padding byte %u not zero", c, j);
		}
		rd_reset();
		rd_packet(cb, &sb);
		check_eq(R.nev, 1);
		check_ev(0, 6, 8, 7);
		check_eq(R.pk[0].count, 1);
		check_eq(R.pk[0].npad + R.pk[0].nnop, 1);
		check_eq(tring_cpu_put(cb, sb.seq, 1), 0);
		tring_buffer_free(buf);
	}
}

void t_flush(void)
{
	struct tring_buffer *buf = twin_buffer(SB, 4, 0, TRING_CLOCK_MONO, 2);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_res res = { };
	struct tring_subbuf sb;

	nlens = 0;
	set_len(2, 8);
	check_eq(tring_cpu_flush(cb), 0);	/* nothing ever written */
	check_eq(tring_cpu_ready(cb, 4), 0);
	check(!tring_cpu_poll_ready(cb), "poll ready on an empty ring");
	check_eq(wr(buf, 2, 8, 0), 0);
	check_eq(wr(buf, 2, 8, 1), 0);
	check_eq(wr(buf, 2, 8, 2), 0);
	check_eq(tring_cpu_flush(cb), SB);
	check_eq(cb->flush_pos, SB);
	check_eq(tring_cpu_ready(cb, 4), 1);
	/* Below the watermark, but a flushed sub-buffer is enough. */
	check(tring_cpu_poll_ready(cb), "flushed sub-buffer: poll not ready");
	check_eq(tring_cpu_flush(cb), SB);	/* nothing new: same position */
	check_eq(tring_cpu_ready(cb, 4), 1);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 3);
	check_eq(R.pk[0].content, (HDR + 3 * 12) * 8);
	check(!tring_cpu_poll_ready(cb), "poll ready after the flushed one "
	      "was consumed");
	/* A flush while a reservation is open: delivered at its commit. */
	check_eq(wr(buf, 2, 8, 3), 0);
	check_eq(tring_reserve(buf, 2, 8, &res), 0);
	check_eq(tring_cpu_flush(cb), 2 * SB);
	check_eq(tring_cpu_ready(cb, 4), 0);
	pattern(res.data, 8, 4);
	tring_commit(&res);
	check_eq(tring_cpu_ready(cb, 4), 1);
	check_eq(wr(buf, 2, 8, 5), 0);		/* goes to the next packet */
	check_eq(local_read(&cb->offset), 2 * SB + HDR + 12);
	check_eq(tring_cpu_get(cb, &sb), 0);
	check_eq(sb.seq, 1);
	rd_packet(cb, &sb);
	check_eq(tring_cpu_put(cb, 1, 1), 0);
	check_eq(tring_cpu_flush(cb), 3 * SB);
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 6);
	check_ev(3, 2, 8, 3);
	check_ev(4, 2, 8, 4);
	check_ev(5, 2, 8, 5);
	check_eq(R.pk[1].nev, 2);
	check_eq(R.pk[2].nev, 1);
	check_packet_order(true);
	tring_buffer_free(buf);
}

/*
 * Empty flushes: a packet with no event at a boundary and after a
 * given-back reservation, the flush's clock reading, none when the
 * buffer is full, and an ordinary close when events are there.
 */
void t_flush_empty(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_res res = { };
	u64 ts = 0;
	int i;

	nlens = 0;
	set_len(2, 8);
	set_len(3, 60);
	manual_clock(1000, 0);
	check_eq(tring_cpu_flush_ts(cb, false, &ts), 0);
	check_eq(ts, 1000);
	manual_clock(2000, 0);
	check_eq(tring_cpu_flush_ts(cb, true, &ts), SB);
	check_eq(ts, 2000);
	check_eq(tring_cpu_ready(cb, 4), 1);
	/* A given-back reservation leaves the header only: closed as is. */
	check_eq(tring_reserve(buf, 2, 8, &res), 0);
	check(tring_discard(&res), "reservation not given back");
	check_eq(local_read(&cb->offset), SB + HDR);
	manual_clock(3000, 0);
	/* A plain flush leaves it open: the time it promises is its begin. */
	check_eq(tring_cpu_flush_ts(cb, false, &ts), SB);
	check_eq(ts, 2000);
	check_eq(tring_cpu_flush_ts(cb, true, &ts), 2 * SB);
	check_eq(ts, 3000);
	check_eq(wr(buf, 2, 8, 0), 0);
	check_eq(tring_cpu_flush_ts(cb, true, &ts), 3 * SB);
	rd_reset();
	check_eq(rd_all(cb), 3);
	for (i = 0; i < 2; i++) {
		check_eq(R.pk[i].nev, 0);
		check_eq(R.pk[i].content, HDR * 8);
	}
	check_eq(R.pk[0].begin, 2000);
	check_eq(R.pk[0].end, 2000);
	/* Opened by the reservation, closed by the flush. */
	check_eq(R.pk[1].begin, 2000);
	check_eq(R.pk[1].end, 3000);
	check_eq(R.pk[2].nev, 1);
	check_packet_order(true);
	/* The clock goes back after a flush: nothing later is older. */
	manual_clock(9000, 0);
	check_eq(tring_cpu_flush_ts(cb, false, &ts), 3 * SB);
	check_eq(ts, 9000);
	manual_clock(8000, 0);
	check_eq(wr(buf, 2, 8, 1), 0);
	check_eq(tring_cpu_flush_ts(cb, false, &ts), 4 * SB);
	check_eq(ts, 9000);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.pk[0].begin, 9000);
	check_eq(R.ev[0].ts, 9000);
	/* Full (discard mode): no packet, the position stays. */
	for (i = 0; i < 4 * 62; i++)
		check_eq(wr(buf, 3, 60, 0), 0);
	check_eq(tring_cpu_ready(cb, 8), 3);
	check_eq(tring_cpu_flush(cb), 8 * SB);
	check_eq(tring_cpu_ready(cb, 8), 4);
	check_eq(tring_cpu_flush_ts(cb, true, &ts), 8 * SB);
	check_eq(local_read(&cb->offset), 8 * SB);
	check_eq(tring_cpu_ready(cb, 8), 4);
	check_eq(local_read(&cb->discarded), 0);
	real_clock();
	tring_buffer_free(buf);
}

/* A writer thread registered as CPU 2, driven step by step. */
struct ipi_writer {
	struct tring_buffer *buf;
	int step;		/* main asks */
	int done;		/* writer answers */
	struct tring_res res;
};

static void *ipi_writer_fn(void *arg)
{
	struct ipi_writer *w = arg;
	int i;

	twin_cpu_register(2);
	for (i = 0; i < 5; i++)
		if (wr(w->buf, 2, 8, i))
			abort();
	if (tring_reserve(w->buf, 2, 8, &w->res))
		abort();
	pattern(w->res.data, 8, 5);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	ipi_wait_for(&w->step, 1);	/* IPIs are taken while waiting */
	tring_commit(&w->res);
	if (wr(w->buf, 2, 8, 6) || wr(w->buf, 2, 8, 7))
		abort();
	__atomic_store_n(&w->done, 2, __ATOMIC_RELEASE);
	ipi_wait_for(&w->step, 2);
	twin_cpu_unregister();
	return NULL;
}

void t_flush_ipi(void)
{
	struct ipi_writer w = { .buf = mk(4, 0) };
	struct tring_cpu *cb = twin_cb(w.buf, 2);
	unsigned long ipis = twin_load(&twin_ipi_count[2]);
	pthread_t t;

	nlens = 0;
	set_len(2, 8);
	pthread_create(&t, NULL, ipi_writer_fn, &w);
	ipi_wait_for(&w.done, 1);
	check(cpu_online(2), "CPU 2 not online");
	check_eq(tring_cpu_flush(cb), SB);
	check_eq(twin_load(&twin_ipi_count[2]), ipis + 1);
	check_eq(tring_cpu_ready(cb, 4), 0);	/* one reservation open */
	__atomic_store_n(&w.step, 1, __ATOMIC_RELEASE);
	ipi_wait_for(&w.done, 2);
	check_eq(tring_cpu_ready(cb, 4), 1);
	check_eq(tring_cpu_flush(cb), 2 * SB);
	check_eq(twin_load(&twin_ipi_count[2]), ipis + 2);
	__atomic_store_n(&w.step, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	check(!cpu_online(2), "CPU 2 still online");
	rd_reset();
	check_eq(rd_all(cb), 2);
	check_eq(R.pk[0].nev, 6);
	check_eq(R.pk[1].nev, 2);
	check_eq(R.nev, 8);
	check_ev(7, 2, 8, 7);
	check_eq(R.pk[0].content, (HDR + 6 * 12) * 8);
	check_eq(twin_cb(w.buf, 0)->offset.a.counter, 0);
	/* Offline now: the flush runs here. */
	check_eq(tring_cpu_flush(cb), 2 * SB);
	check_eq(twin_load(&twin_ipi_count[2]), ipis + 2);
	tring_buffer_free(w.buf);
}

/* Flush on a CPU no thread is registered as, with writes from here. */
void t_flush_offline(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 5);
	unsigned long ipis = twin_load(&twin_ipi_count[5]);

	nlens = 0;
	set_len(2, 8);
	twin_set_cpu(5);
	check(!cpu_online(5), "CPU 5 online");
	check_eq(wr(buf, 2, 8, 0), 0);
	check_eq(tring_cpu_flush(cb), SB);
	check_eq(twin_load(&twin_ipi_count[5]), ipis);
	twin_set_cpu(0);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 1);
	check_eq(R.pk[0].seq, 0);
	check_eq(rd_all(twin_cb(buf, 0)), 0);
	tring_buffer_free(buf);
}
