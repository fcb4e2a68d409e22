// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: unit cases of the ring buffer core: records, payloads, ids and
 * timestamps.
 * twin_unit.c runs them; twin_unit.h has what they share.
 */
#include "twin_unit.h"

void t_attr(void)
{
	struct tring_buffer_attr a = {
		.subbuf_size = SB, .subbuf_count = 4,
		.clock = TRING_CLOCK_MONO,
	}, b;
	struct tring_buffer *buf;
	struct tring_cpu *cb;
	int cpu;

	check_eq(tring_check_attr(&a), 0);
#define BAD(field, val)							\
	do {								\
		b = a;							\
		b.field = val;						\
		check(tring_check_attr(&b) == -EINVAL,			\
		      "%s = %lu accepted", #field, (unsigned long)(val)); \
	} while (0)
#define GOOD(field, val)						\
	do {								\
		b = a;							\
		b.field = val;						\
		check(tring_check_attr(&b) == 0,			\
		      "%s = %lu refused", #field, (unsigned long)(val)); \
	} while (0)
	BAD(subbuf_size, 2048);
	BAD(subbuf_size, 6000);
	BAD(subbuf_size, 0);
	BAD(subbuf_size, 1UL << 25);
	GOOD(subbuf_size, 1UL << 24);
	BAD(subbuf_count, 0);
	BAD(subbuf_count, 1);
	BAD(subbuf_count, 3);
	BAD(subbuf_count, (1U << 20) + 1);
	BAD(subbuf_count, 1U << 21);
	GOOD(subbuf_count, 1U << 20);
	GOOD(subbuf_count, 2);
	BAD(flags, 2);
	GOOD(flags, TRING_OVERWRITE);
	BAD(clock, 2);
	GOOD(clock, TRING_CLOCK_LOCAL);
	BAD(watermark, 4);
	GOOD(watermark, 3);
#undef BAD
#undef GOOD
	b = a;
	b.subbuf_count = 5;
	buf = tring_buffer_alloc(&b);
	check(IS_ERR(buf) && PTR_ERR(buf) == -EINVAL,
	      "bad attributes: tring_buffer_alloc gave %p", (void *)buf);

	b = a;
	b.name = "a-name-longer-than-thirty-one-characters";
	b.flags = TRING_OVERWRITE;
	buf = tring_buffer_alloc(&b);
	if (!check(!IS_ERR(buf), "tring_buffer_alloc: %ld", PTR_ERR(buf)))
		return;
	check(!strcmp(buf->name, "a-name-longer-than-thirty-one-c"),
	      "name not truncated to 31 characters: %s", buf->name);
	check(buf->attr.name == buf->name, "attr.name is not the copy");
	for_each_possible_cpu(cpu) {
		cb = twin_cb(buf, cpu);
		check_eq(cb->cpu, cpu);
		check_eq(cb->subbuf_size, SB);
		check_eq(cb->max_payload,
			 SB - HDR - TRING_EVENT_HEADER_EXT_SIZE - 4);
		check_eq(cb->watermark, 1);	/* an eighth of 4, at least 1 */
		check_eq(cb->nr_phys, 5);
		check_eq(tring_cpu_map_size(cb), 5 * SB);
		check(cb->overwrite, "overwrite flag lost");
	}
	tring_buffer_free(buf);
}

void t_alloc_failures(void)
{
	struct tring_buffer_attr a = {
		.name = "fail", .subbuf_size = 2 * SB, .subbuf_count = 2,
		.clock = TRING_CLOCK_MONO,
	};
	long base = twin_outstanding_allocs(), n;
	struct tring_buffer *buf;
	int failures = 0;

	for (n = 1; n < 10000; n++) {
		twin_fail_alloc_after(n);
		buf = tring_buffer_alloc(&a);
		twin_fail_alloc_after(0);
		if (!IS_ERR(buf)) {
			tring_buffer_free(buf);
			break;
		}
		failures++;
		check(PTR_ERR(buf) == -ENOMEM, "failure %ld: error %ld", n,
		      PTR_ERR(buf));
		check(twin_outstanding_allocs() == base,
		      "failure %ld leaks %ld allocations", n,
		      twin_outstanding_allocs() - base);
	}
	/* buf, percpu, then per CPU: page array, 4 pages, vmap, slots */
	check_eq(failures, 2 + TWIN_NR_CPUS * (1 + 4 + 1 + 1));
	check_eq(twin_outstanding_allocs(), base);
}

void t_header_fields(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 3);
	struct tring_subbuf sb;
	const unsigned char *rec;
	unsigned long pos;

	twin_set_cpu(3);
	nlens = 0;
	set_len(2, 8);
	set_len(3, 5);
	set_len(4, 0);
	manual_clock(T0, 0);
	check_eq(wr(buf, 2, 8, 1), 0);
	mclock = T0 + 100;
	check_eq(wr(buf, 3, 5, 2), 0);
	mclock = T0 + 250;
	check_eq(wr(buf, 4, 0, 3), 0);
	mclock = T0 + 400;
	check_eq(tring_cpu_ready(cb, 4), 0);
	pos = tring_cpu_flush(cb);
	check_eq(pos, SB);
	check_eq(tring_cpu_ready(cb, 4), 1);
	check_eq(twin_cb(buf, 0)->offset.a.counter, 0);

	check_eq(tring_cpu_get(cb, &sb), 0);
	{
		const struct tring_packet_header *h = twin_subbuf_va(cb, &sb);

		check_eq(h->magic, TRING_PACKET_MAGIC);
		check_eq(h->stream_id, 0);
		check_eq(h->cpu_id, 3);
		check_eq(h->packet_seq_num, 0);
		check_eq(h->timestamp_begin, T0);
		check_eq(h->timestamp_end, T0 + 400);
		check_eq(h->content_size, (HDR + 12 + 12 + 4) * 8);
		check_eq(h->packet_size, SB * 8);
		check_eq(h->events_count, 3);
		check_eq(h->events_discarded, 0);
		check_eq(sb.length, HDR + 28);
		check_eq(sb.seq, 0);
		/* The pad after the 5-byte payload is zero. */
		rec = (const unsigned char *)h + HDR + 12;
		check(!rec[4 + 5] && !rec[4 + 6] && !rec[4 + 7],
		      "pad bytes after a 5-byte payload are not zero");
	}
	rd_reset();
	rd_packet(cb, &sb);
	check_eq(R.nev, 3);
	check_ev(0, 2, 8, 1);
	check_ev(1, 3, 5, 2);
	check_ev(2, 4, 0, 3);
	check_eq(R.ev[0].ts, T0);
	check_eq(R.ev[1].ts, T0 + 100);
	check_eq(R.ev[2].ts, T0 + 250);
	check_eq(tring_cpu_put(cb, 0, 1), 0);
	check_eq(cb->consumed, SB);
	real_clock();
	twin_set_cpu(0);
	tring_buffer_free(buf);
}

void t_many_packets(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned int i, n = 3000, len, total = 0;
	int k;

	dirty(buf);
	nlens = 0;
	for (i = 0; i < 29; i++)
		set_len(2 + i, (i * 37) % 211);
	rd_reset();
	for (i = 0; i < n; i++) {
		len = (i % 29) * 37 % 211;
		check_eq(wr(buf, 2 + i % 29, len, i), 0);
		total += rec_size(len);
		if (i % 50 == 49)
			rd_all(cb);
	}
	tring_cpu_flush(cb);
	rd_all(cb);
	check_eq(R.nev, n);
	for (i = 0; i < n && (int)i < R.nev; i++)
		check_ev(i, 2 + i % 29, (i % 29) * 37 % 211, i);
	check_packet_order(true);
	check_eq(R.pk[0].seq, cb->slot_mask + 1);	/* after dirty()'s lap */
	for (k = 0; k < R.npk; k++)
		check_eq(R.pk[k].discarded, 0);
	check_eq(tring_cpu_losses(cb), 0);
	tring_buffer_free(buf);
}

void t_payload_lengths(void)
{
	static const unsigned int L[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64,
		65, 100, 127, 128, 255, 256, 1000, 2001, 4011, 4012,
	};
	struct tring_buffer *buf = mk(8, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned int i, n = ARRAY_SIZE(L);

	dirty(buf);
	check_eq(cb->max_payload, 4012);
	nlens = 0;
	for (i = 0; i < n; i++)
		set_len(2 + i, L[i]);
	rd_reset();
	for (i = 0; i < n; i++) {
		check_eq(wr(buf, 2 + i, L[i], 100 + i), 0);
		rd_all(cb);
	}
	tring_cpu_flush(cb);
	rd_all(cb);
	check_eq(R.nev, n);
	for (i = 0; i < n; i++)
		check_ev(i, 2 + i, L[i], 100 + i);
	tring_buffer_free(buf);
}

/* The pad bytes of a record, read straight from the ring. */
void t_pad_bytes(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_res res = { };
	unsigned int len, j;
	unsigned char *data;

	dirty(buf);
	for (len = 0; len < 12; len++) {
		check_eq(tring_reserve(buf, 2, len, &res), 0);
		data = res.data;
		/* Before the payload is written, its pad is already zero. */
		for (j = len; j < tring_payload_room(len); j++)
			check(!data[j], "len %u: pad byte %u not zeroed by "
			      "tring_reserve", len, j);
		check_eq(res.len, rec_size(len));
		pattern(data, len, len);
		tring_commit(&res);
	}
	(void)cb;
	tring_buffer_free(buf);
}

void t_wide_ids(void)
{
	/* The wide and extended id fields' values as ids, and beyond. */
	static const u32 ids[] = {
		TRING_ID_COMPACT_LAST, TRING_ID_WIDE, TRING_ID_EXTENDED,
		TRING_ID_EXTENDED + 1, 1000, 0x7fffffff, 0xffffffff, 2,
	};
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned int i, n = ARRAY_SIZE(ids);
	unsigned long content = HDR;

	nlens = 0;
	for (i = 0; i < n; i++)
		set_len(ids[i], 3 + 5 * i);
	set_len(29, 3);
	/* First record: opens the packet. */
	check_eq(wr(buf, 29, 3, 0), 0);
	content += rec_size(3);
	for (i = 0; i < n; i++) {
		check_eq(wr(buf, ids[i], 3 + 5 * i, i + 1), 0);
		content += (ids[i] >= TRING_ID_WIDE ?
			    TRING_EVENT_HEADER_WIDE_SIZE :
			    TRING_EVENT_HEADER_SIZE) +
			   tring_payload_room(3 + 5 * i);
	}
	tring_cpu_flush(cb);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.pk[0].content, content * 8);
	check_eq(R.nev, n + 1);
	check_ev(0, 29, 3, 0);
	for (i = 0; i < n; i++) {
		check_ev(i + 1, ids[i], 3 + 5 * i, i + 1);
		check_eq(R.ev[i + 1].ext, 0);
		check_eq(R.ev[i + 1].hlen, ids[i] >= TRING_ID_WIDE ?
			 TRING_EVENT_HEADER_WIDE_SIZE :
			 TRING_EVENT_HEADER_SIZE);
	}
	tring_buffer_free(buf);
}

void t_timestamps(void)
{
	/* (time, extended header expected) */
	static const struct {
		unsigned long long t;
		int ext;
	} S[] = {
		{ T0, 0 },				/* opens: compact */
		{ T0 + 1, 0 },
		{ T0 + 1 + TS_SPAN - 1, 0 },		/* largest compact delta */
		{ T0 + 1 + TS_SPAN - 1 + TS_SPAN, 1 },	/* delta TS_SPAN */
		{ T0 + 1 + 2 * TS_SPAN + 4, 0 },
		{ T0 + 3000000000ULL, 1 },		/* 3 s later */
		{ T0 + 3000000000ULL, 0 },		/* same time */
		/* crossing a multiple of TS_SPAN with a small delta */
		{ TS_CROSS - 3, 1 },
		{ TS_CROSS + 2, 0 },
		{ TS_CROSS + 2 + (TS_SPAN >> 1), 0 },
		{ TS_CROSS + TS_SPAN + 1, 0 },
	};
	struct tring_buffer *buf;
	struct tring_cpu *cb;
	unsigned int i, n = ARRAY_SIZE(S), clk, id, hlen;

	/* A compact id (7) and a wide one, on either clock. */
	for (clk = 0; clk < 4; clk++) {
		id = clk & 2 ? WIDE_ID : 7;
		hlen = id < TRING_ID_WIDE ? TRING_EVENT_HEADER_SIZE :
					   TRING_EVENT_HEADER_WIDE_SIZE;
		buf = twin_buffer(SB, 4, 0, clk & 1 ? TRING_CLOCK_LOCAL :
				  TRING_CLOCK_MONO, 0);
		cb = twin_cb(buf, 0);
		nlens = 0;
		set_len(id, 4);
		manual_clock(S[0].t, 0);
		for (i = 0; i < n; i++) {
			mclock = S[i].t;
			check_eq(wr(buf, id, 4, i), 0);
		}
		/* The first record of a packet after a long gap is short. */
		tring_cpu_flush(cb);
		mclock = S[n - 1].t + 10 * TS_SPAN;
		check_eq(wr(buf, id, 4, n), 0);
		tring_cpu_flush(cb);
		check(mclock_reads[clk & 1] > 0 && !mclock_reads[!(clk & 1)],
		      "clock %u: reads %lu/%lu of the two clocks", clk & 1,
		      mclock_reads[0], mclock_reads[1]);
		real_clock();
		rd_reset();
		check_eq(rd_all(cb), 2);
		check_eq(R.nev, n + 1);
		for (i = 0; i < n && (int)i < R.nev; i++) {
			check(R.ev[i].ts == S[i].t,
			      "clock %u event %u: ts %llu, want %llu", clk, i,
			      (unsigned long long)R.ev[i].ts, S[i].t);
			check(R.ev[i].ext == S[i].ext,
			      "clock %u event %u: extended %d, want %d", clk, i,
			      R.ev[i].ext, S[i].ext);
			check_eq(R.ev[i].hlen, S[i].ext ?
				 TRING_EVENT_HEADER_EXT_SIZE : hlen);
		}
		if (R.nev == (int)n + 1) {
			check_eq(R.ev[n].ts, S[n - 1].t + 10 * TS_SPAN);
			check_eq(R.ev[n].ext, 0);
			check_eq(R.ev[n].hlen, hlen);
			check_eq(R.pk[1].begin, S[n - 1].t + 10 * TS_SPAN);
		}
		tring_buffer_free(buf);
	}
}

void t_clock_backwards(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long long T = 1000000000ULL;

	nlens = 0;
	set_len(2, 4);
	manual_clock(T, 0);
	check_eq(wr(buf, 2, 4, 0), 0);
	mclock = T + 1000;
	check_eq(wr(buf, 2, 4, 1), 0);
	mclock = T + 500;			/* back */
	check_eq(wr(buf, 2, 4, 2), 0);
	mclock = T + 400;			/* further back */
	check_eq(wr(buf, 2, 4, 3), 0);
	mclock = T + 1010;
	check_eq(wr(buf, 2, 4, 4), 0);
	mclock = T + 200;			/* back, at the close */
	tring_cpu_flush(cb);
	real_clock();
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 5);
	if (R.nev == 5) {
		check_eq(R.ev[0].ts, T);
		check_eq(R.ev[1].ts, T + 1000);
		check_eq(R.ev[2].ts, T + 1000);	/* held at the stream's time */
		check_eq(R.ev[3].ts, T + 1000);
		check_eq(R.ev[4].ts, T + 1010);
		check_eq(R.pk[0].end, T + 1010);
	}
	tring_buffer_free(buf);
}

/*
 * The clock goes back right after a reservation is given back: the next
 * record must still not be older than the record before it.
 */
void t_clock_backwards_after_discard(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long long T = 1000000000ULL;
	struct tring_res res = { };

	nlens = 0;
	set_len(2, 4);
	manual_clock(T, 0);
	check_eq(wr(buf, 2, 4, 0), 0);
	mclock = T + 10;
	check_eq(tring_reserve(buf, 2, 4, &res), 0);
	check(tring_discard(&res), "discard of the last reservation kept it");
	mclock = T - 5;				/* back, 5 ns */
	check_eq(wr(buf, 2, 4, 1), 0);
	mclock = T + 20;
	tring_cpu_flush(cb);
	real_clock();
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 2);
	if (R.nev == 2)
		check(R.ev[1].ts >= R.ev[0].ts,
		      "stream time went back: %llu after %llu",
		      (unsigned long long)R.ev[1].ts,
		      (unsigned long long)R.ev[0].ts);
	tring_buffer_free(buf);
}

/*
 * An NMI writes between a writer's reservation and its store of last_ts,
 * with a timestamp ahead of the clock's later readings (what
 * ktime_get_mono_fast_ns() may give an NMI that hits a timekeeping
 * update). The stream's time must still not go back.
 */
static struct tring_buffer *win_buf;
static unsigned long long win_T;

static void win_nmi(int level)
{
	check_eq(wr(win_buf, 3, 4, 99), 0);
}

static void win_hook(void *arg)
{
	mclock = win_T + 1000;		/* the NMI's reading, ahead */
	twin_raise(3);
	mclock = win_T + 200;		/* the clock as it really is */
}

void t_clock_backwards_nested(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long long T = 1000000000ULL;
	int i;

	win_buf = buf;
	win_T = T;
	nlens = 0;
	set_len(2, 4);
	set_len(3, 4);
	twin_irq_fn[3] = win_nmi;
	manual_clock(T, 0);
	check_eq(wr(buf, 2, 4, 0), 0);
	mclock = T + 100;
	twin_watch(&cb->offset, 0, win_hook, NULL);
	check_eq(wr(buf, 2, 4, 1), 0);	/* the NMI hits after its cmpxchg */
	check(!twin_watch_pending(), "the watch did not fire");
	check_eq(wr(buf, 2, 4, 2), 0);	/* at T + 200 */
	mclock = T + 2000;
	tring_cpu_flush(cb);
	real_clock();
	twin_irq_fn[3] = NULL;
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 4);
	for (i = 1; i < R.nev; i++)
		check(R.ev[i].ts >= R.ev[i - 1].ts &&
		      R.ev[i].ts <= T + 2000,
		      "event %d: ts %llu after %llu (clock never passed %llu)",
		      i, (unsigned long long)R.ev[i].ts,
		      (unsigned long long)R.ev[i - 1].ts, T + 2000);
	tring_buffer_free(buf);
}
