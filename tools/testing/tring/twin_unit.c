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
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <linux/cpuhotplug.h>

#include "twin.h"
#include "tring_decode.h"

#define SB		4096UL
#define HDR		TRING_PACKET_HEADER_SIZE
#define T0		5000000000ULL	/* a manual clock start, > 2^27 */
#define TS_SPAN		(1ULL << TRING_TS_BITS)
/* A multiple of TS_SPAN past every time t_timestamps() uses before it. */
#define TS_CROSS	(((T0 + 4000000000ULL) / TS_SPAN + 1) * TS_SPAN)
/* An id that takes the wide header. */
#define WIDE_ID		(TRING_ID_WIDE + 10)

/* ---- manual clock ---- */

static unsigned long long mclock, mstep;
static unsigned long mclock_reads[2];

static unsigned long long mclock_hook(int clock)
{
	unsigned long long t = __atomic_load_n(&mclock, __ATOMIC_RELAXED);

	__atomic_fetch_add(&mclock_reads[clock & 1], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&mclock, t + mstep, __ATOMIC_RELAXED);
	return t;
}

static void manual_clock(unsigned long long t, unsigned long long step)
{
	mclock = t;
	mstep = step;
	mclock_reads[0] = mclock_reads[1] = 0;
	twin_set_clock_hook(mclock_hook);
}

static void real_clock(void)
{
	twin_set_clock_hook(NULL);
}

/* ---- payloads and event lengths ---- */

static void pattern(void *dst, unsigned int len, unsigned int seed)
{
	unsigned char *p = dst;
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 0x9d + i * 13 + 1);
}

static bool pattern_ok(const void *src, unsigned int len, unsigned int seed)
{
	unsigned char buf[SB];

	pattern(buf, len, seed);
	return !memcmp(src, buf, len);
}

/* Payload length of each event id the current case writes. */
#define NLEN 64
static struct {
	u32 id;
	long len;
} lens[NLEN];
static int nlens;

static void set_len(u32 id, long len)
{
	int i;

	for (i = 0; i < nlens; i++) {
		if (lens[i].id == id) {
			lens[i].len = len;
			return;
		}
	}
	if (nlens == NLEN)
		abort();
	lens[nlens].id = id;
	lens[nlens++].len = len;
}

static long len_fn(uint32_t id, const uint8_t *payload, size_t avail,
		   void *arg)
{
	int i;

	for (i = 0; i < nlens; i++)
		if (lens[i].id == id)
			return lens[i].len;
	return -1;
}

static unsigned long rec_size(unsigned int len)
{
	return TRING_EVENT_HEADER_SIZE + tring_payload_room(len);
}

/* Records of size n a sub-buffer takes before one more closes it. */
static unsigned long per_subbuf(unsigned long n)
{
	return (SB - HDR - 1) / n;
}

static int wr(struct tring_buffer *buf, u32 id, unsigned int len,
	      unsigned int seed)
{
	unsigned char p[SB];

	pattern(p, len, seed);
	return trace_write_inline(buf, id, p, len);
}

/* Event whose payload starts with a 32-bit sequence number. */
static int wr_seq(struct tring_buffer *buf, u32 id, unsigned int len, u32 seq)
{
	unsigned char p[SB];

	pattern(p, len, seq);
	memcpy(p, &seq, 4);
	return trace_write_inline(buf, id, p, len);
}

/* ---- reading: take, check and decode packets ---- */

struct uev {
	u32 id;
	u32 len;
	u64 ts;
	int ext;
	unsigned int hlen;	/* header bytes: 4, 8 or 16 */
	u64 pkt;		/* packet_seq_num */
	const unsigned char *p;	/* copy of the payload */
};

struct upk {
	u64 seq, begin, end, discarded, content;
	u32 count;		/* events_count */
	u32 nev, npad, nnop;	/* records found */
	u64 last_ts;
};

static struct {
	struct uev ev[16384];
	int nev;
	struct upk pk[1024];
	int npk;
	unsigned char arena[4 << 20];
	size_t used;
} R;

static void rd_reset(void)
{
	R.nev = 0;
	R.npk = 0;
	R.used = 0;
}

/* Check and decode one taken sub-buffer into R. */
static bool rd_packet(struct tring_cpu *cb, const struct tring_subbuf *sb)
{
	const struct tring_packet_header *h = twin_subbuf_va(cb, sb);
	const char *bad = twin_check_packet(cb, sb);
	struct tring_dec_event e = { 0 };
	struct tring_dec d = { 0 };
	struct upk *pk;
	int r;

	if (!check(!bad, "packet %llu: %s", (unsigned long long)sb->seq,
		   bad))
		return false;
	if (!check(R.npk < 1024, "too many packets"))
		return false;
	pk = &R.pk[R.npk++];
	memset(pk, 0, sizeof(*pk));
	pk->seq = h->packet_seq_num;
	pk->begin = h->timestamp_begin;
	pk->end = h->timestamp_end;
	pk->discarded = h->events_discarded;
	pk->content = h->content_size;
	pk->count = h->events_count;
	pk->last_ts = h->timestamp_begin;
	if (!check(!tring_dec_init(&d, h, cb->subbuf_size),
		   "packet %llu: decoder rejects the header",
		   (unsigned long long)sb->seq))
		return false;
	while ((r = tring_dec_next(&d, len_fn, NULL, &e)) == 1) {
		check(e.ts >= pk->last_ts && e.ts <= h->timestamp_end,
		      "packet %llu: record ts %llu outside [%llu, %llu]",
		      (unsigned long long)sb->seq, (unsigned long long)e.ts,
		      (unsigned long long)pk->last_ts,
		      (unsigned long long)h->timestamp_end);
		pk->last_ts = e.ts;
		/* Bytes from the payload's end to the next word are zero. */
		for (size_t j = e.len; j < tring_payload_room(e.len); j++)
			check(!e.payload[j], "packet %llu: non-zero pad byte",
			      (unsigned long long)sb->seq);
		if (e.id == TRING_ID_PADDING) {
			pk->npad++;
			continue;
		}
		if (e.id == TRING_ID_NOP) {
			pk->nnop++;
			continue;
		}
		pk->nev++;
		if (!check(R.nev < 16384 && R.used + e.len <= sizeof(R.arena),
			   "too many events"))
			return false;
		R.ev[R.nev] = (struct uev){
			.id = e.id, .len = e.len, .ts = e.ts,
			.ext = e.extended, .hlen = e.hlen, .pkt = pk->seq,
			.p = R.arena + R.used,
		};
		memcpy(R.arena + R.used, e.payload, e.len);
		R.used += e.len;
		R.nev++;
	}
	check(r == 0, "packet %llu: decoder fails at offset %ld",
	      (unsigned long long)sb->seq,
	      (long)((const unsigned char *)d.pos -
		     (const unsigned char *)h));
	check(pk->nev == pk->count, "packet %llu: events_count %u, found %u",
	      (unsigned long long)sb->seq, pk->count, pk->nev);
	return r == 0;
}

/* Take, check, decode and give back up to @max packets. */
static int rd_take(struct tring_cpu *cb, int max)
{
	struct tring_subbuf sb;
	int n = 0, ret;

	while (n < max) {
		ret = tring_cpu_get(cb, &sb);
		if (ret == -EAGAIN)
			break;
		if (!check(ret == 0, "tring_cpu_get: %d", ret))
			break;
		rd_packet(cb, &sb);
		n++;
		ret = tring_cpu_put(cb, sb.seq, 1);
		if (!check(ret == 0, "tring_cpu_put: %d", ret))
			break;
	}
	return n;
}

static int rd_all(struct tring_cpu *cb)
{
	return rd_take(cb, 1 << 30);
}

/* Consecutive packets: later ones start no earlier than earlier ones end. */
static void check_packet_order(bool consecutive)
{
	int i;

	for (i = 1; i < R.npk; i++) {
		if (consecutive)
			check_eq(R.pk[i].seq, R.pk[i - 1].seq + 1);
		else
			check(R.pk[i].seq > R.pk[i - 1].seq,
			      "packet seq not increasing");
		check(R.pk[i].begin >= R.pk[i - 1].end,
		      "packet %llu begins at %llu before %llu ends at %llu",
		      (unsigned long long)R.pk[i].seq,
		      (unsigned long long)R.pk[i].begin,
		      (unsigned long long)R.pk[i - 1].seq,
		      (unsigned long long)R.pk[i - 1].end);
	}
}

/* Decoded event @i is (@id, @len, pattern @seed). */
static void check_ev(int i, u32 id, unsigned int len, unsigned int seed)
{
	if (!check(i < R.nev, "event %d missing (have %d)", i, R.nev))
		return;
	check(R.ev[i].id == id, "event %d: id %u, want %u", i, R.ev[i].id, id);
	check(R.ev[i].len == len, "event %d: len %u, want %u", i, R.ev[i].len,
	      len);
	check(pattern_ok(R.ev[i].p, len, seed), "event %d: payload differs", i);
}

static u32 ev_seq(int i)
{
	u32 s;

	memcpy(&s, R.ev[i].p, 4);
	return s;
}

static struct tring_buffer *mk(unsigned int count, unsigned int flags)
{
	return twin_buffer(SB, count, flags, TRING_CLOCK_MONO, 0);
}

/* Write and consume a full lap of 0xff-ish payloads: leave dirty memory. */
static void dirty(struct tring_buffer *buf)
{
	struct tring_cpu *cb = this_cpu_ptr(buf->cpus);
	unsigned long i, n = (cb->slot_mask + 1) * per_subbuf(rec_size(200));
	unsigned char p[200];

	memset(p, 0xff, sizeof(p));
	for (i = 0; i < n; i++) {
		if (trace_write_inline(buf, 2, p, sizeof(p)))
			abort();
		if (tring_cpu_ready(cb, 1)) {
			struct tring_subbuf sb;

			if (tring_cpu_get(cb, &sb) ||
			    tring_cpu_put(cb, sb.seq, 1))
				abort();
		}
	}
	tring_cpu_flush(cb);
	while (tring_cpu_ready(cb, 1)) {
		struct tring_subbuf sb;

		if (tring_cpu_get(cb, &sb) || tring_cpu_put(cb, sb.seq, 1))
			abort();
	}
}

/* ======================================================================
 * Cases
 * ====================================================================== */

static void t_attr(void)
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

static void t_alloc_failures(void)
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

static void t_header_fields(void)
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

static void t_many_packets(void)
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

static void t_payload_lengths(void)
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
static void t_pad_bytes(void)
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

static void t_wide_ids(void)
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

static void t_timestamps(void)
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

static void t_clock_backwards(void)
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
static void t_clock_backwards_after_discard(void)
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

static void t_clock_backwards_nested(void)
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

static void t_discard_mode_full(void)
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

static void t_overwrite_stalled(void)
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

static void t_overwrite_held_untouched(void)
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

static void t_too_big(void)
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
static void t_too_big_consistent(void)
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

static void t_discard_last(void)
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

static struct tring_buffer *nest_buf;

static void nest_write_b(int level)
{
	check_eq(wr(nest_buf, 6, 8, 7), 0);
}

static void t_discard_not_last(void)
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

static void t_flush(void)
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
static void t_flush_empty(void)
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

static void ipi_wait_for(int *p, int v)
{
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v) {
		twin_task_context();
		usleep(50);
	}
}

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

static void t_flush_ipi(void)
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
static void t_flush_offline(void)
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

static void t_get_put_errors(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_subbuf a, b, c;
	int i;

	nlens = 0;
	set_len(2, 8);
	check_eq(tring_cpu_get(cb, &a), -EAGAIN);
	check_eq(tring_cpu_put(cb, 0, 1), -EINVAL);	/* nothing held */
	for (i = 0; i < 3; i++) {
		check_eq(wr(buf, 2, 8, i), 0);
		tring_cpu_flush(cb);
	}
	check_eq(tring_cpu_get(cb, &a), 0);
	check_eq(tring_cpu_get(cb, &b), 0);
	check_eq(a.seq, 0);
	check_eq(b.seq, 1);
	check_eq(a.offset, 0);
	check_eq(b.offset, SB);
	check_eq(tring_cpu_put(cb, 1, 1), -EINVAL);	/* not the oldest */
	check_eq(tring_cpu_put(cb, 0, 3), -EINVAL);	/* more than held */
	check_eq(tring_cpu_put(cb, 0, 0), -EINVAL);	/* none */
	check_eq(tring_cpu_put(cb, 0, 1), 0);
	check_eq(tring_cpu_put(cb, 0, 1), -EINVAL);	/* put twice */
	check_eq(tring_cpu_get(cb, &c), 0);
	check_eq(c.seq, 2);
	check_eq(tring_cpu_put(cb, 1, 2), 0);
	check_eq(tring_cpu_put(cb, 3, 1), -EINVAL);
	check_eq(tring_cpu_get(cb, &c), -EAGAIN);
	check_eq(cb->consumed, 3 * SB);
	tring_buffer_free(buf);

	buf = mk(4, TRING_OVERWRITE);
	cb = twin_cb(buf, 0);
	check_eq(tring_cpu_put(cb, 0, 1), -EINVAL);
	for (i = 0; i < 3; i++) {
		check_eq(wr(buf, 2, 8, i), 0);
		tring_cpu_flush(cb);
	}
	check_eq(tring_cpu_get(cb, &a), 0);
	check_eq(tring_cpu_get(cb, &b), -EBUSY);
	check_eq(tring_cpu_put(cb, 1, 1), -EINVAL);
	check_eq(tring_cpu_put(cb, 0, 2), -EINVAL);
	check_eq(tring_cpu_put(cb, 0, 1), 0);
	check_eq(tring_cpu_put(cb, 0, 1), -EINVAL);
	check_eq(tring_cpu_get(cb, &b), 0);
	check_eq(b.seq, 1);
	check(b.offset != a.offset, "overwrite reader got the same "
	      "physical sub-buffer twice in a row");
	check_eq(tring_cpu_put(cb, 1, 1), 0);
	tring_buffer_free(buf);
}

/* A discard-mode buffer whose CPU 0 holds three flushed sub-buffers. */
static struct tring_buffer *mk_three_flushed(void)
{
	struct tring_buffer *buf = mk(4, 0);
	int i;

	nlens = 0;
	set_len(2, 60);
	for (i = 0; i < 3; i++) {
		check_eq(wr(buf, 2, 8, i), 0);
		tring_cpu_flush(twin_cb(buf, 0));
	}
	return buf;
}

/*
 * Overwrite mode: the reader takes a sub-buffer, @give_back (called
 * @what in the messages) gives it back, writers lap the ring, and the
 * same sub-buffer is handed out again, untouched; no event is lost to
 * the count.
 */
static void check_given_back(void (*give_back)(struct tring_cpu *cb),
			     const char *what)
{
	struct tring_buffer *buf = mk(4, TRING_OVERWRITE);
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_subbuf a, again, busy;
	unsigned int h;
	int i;

	for (i = 0; i < 200; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
	check_eq(tring_cpu_get(cb, &a), 0);
	h = twin_hash(twin_subbuf_va(cb, &a), SB, TWIN_HASH_SEED);
	give_back(cb);
	check_eq(tring_cpu_put(cb, a.seq, 1), -EINVAL);	/* nothing held now */
	for (i = 0; i < 2000; i++)		/* writers lap the ring */
		check_eq(wr_seq(buf, 2, 60, 200 + i), 0);
	check_eq(tring_cpu_get(cb, &again), 0);
	check(!memcmp(&a, &again, sizeof(a)),
	      "overwrite mode: %s did not hand the same sub-buffer again",
	      what);
	check(h == twin_hash(twin_subbuf_va(cb, &again), SB, TWIN_HASH_SEED),
	      "overwrite mode: the sub-buffer taken again after %s changed",
	      what);
	check_eq(tring_cpu_get(cb, &busy), -EBUSY);
	check_eq(tring_cpu_put(cb, again.seq, 1), 0);
	tring_cpu_flush(cb);
	rd_reset();
	rd_all(cb);
	check_eq(R.nev + per_subbuf(64) + local_read(&cb->overwritten),
		 2200);
	tring_buffer_free(buf);
}

static void t_reader_reset(void)
{
	struct tring_buffer *buf = mk_three_flushed();
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_subbuf a, b, a2, b2;

	check_eq(tring_cpu_get(cb, &a), 0);
	check_eq(tring_cpu_get(cb, &b), 0);
	tring_cpu_reader_reset(cb);
	check_eq(tring_cpu_get(cb, &a2), 0);
	check_eq(tring_cpu_get(cb, &b2), 0);
	check(!memcmp(&a, &a2, sizeof(a)) && !memcmp(&b, &b2, sizeof(b)),
	      "discard mode: reset did not hand the same sub-buffers again");
	check_eq(tring_cpu_put(cb, 0, 2), 0);
	tring_buffer_free(buf);

	check_given_back(tring_cpu_reader_reset, "reset");
}

static void unget_one(struct tring_cpu *cb)
{
	tring_cpu_unget(cb, 1);
}

/*
 * tring_cpu_unget(): the last takes go back and are handed out again,
 * in order (discard mode) or the same held sub-buffer, untouched while
 * writers lap the ring (overwrite mode).
 */
static void t_unget(void)
{
	struct tring_buffer *buf = mk_three_flushed();
	struct tring_cpu *cb = twin_cb(buf, 0);
	struct tring_subbuf a, b, c, b2, c2;

	check_eq(tring_cpu_get(cb, &a), 0);
	check_eq(tring_cpu_get(cb, &b), 0);
	check_eq(tring_cpu_get(cb, &c), 0);
	tring_cpu_unget(cb, 0);
	check_eq(cb->held, 3);
	tring_cpu_unget(cb, 2);
	check_eq(cb->held, 1);
	check_eq(cb->consumed, 0);
	check_eq(tring_cpu_get(cb, &b2), 0);
	check_eq(tring_cpu_get(cb, &c2), 0);
	check(!memcmp(&b, &b2, sizeof(b)) && !memcmp(&c, &c2, sizeof(c)),
	      "discard mode: unget did not hand the same sub-buffers again");
	check_eq(tring_cpu_get(cb, &c2), -EAGAIN);
	check_eq(tring_cpu_put(cb, a.seq, 3), 0);
	check_eq(cb->consumed, 3 * SB);
	tring_buffer_free(buf);

	check_given_back(unget_one, "unget");
}

static void t_poll_ready(void)
{
	struct tring_buffer *buf = mk(8, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;
	struct tring_subbuf sb;

	nlens = 0;
	set_len(2, 60);
	check_eq(cb->watermark, 1);	/* the default: an eighth */
	tring_cpu_set_watermark(cb, 4);
	check_eq(cb->watermark, 4);
	tring_cpu_set_watermark(cb, 0);
	check_eq(cb->watermark, 1);
	tring_cpu_set_watermark(cb, 1000);
	check_eq(cb->watermark, 7);
	tring_cpu_set_watermark(cb, 3);
	check_eq(cb->watermark, 3);
	check(!tring_cpu_poll_ready(cb), "ready when empty");
	for (i = 0; i < 3 * per; i++) {
		check_eq(wr(buf, 2, 60, i), 0);
		check_eq(tring_cpu_poll_ready(cb), false);
	}
	check_eq(wr(buf, 2, 60, i), 0);		/* closes the third */
	/* That delivery queued the wakeup: let it run before looking. */
	irq_work_sync(&cb->wakeup);
	check_eq(tring_cpu_ready(cb, 8), 3);
	check(tring_cpu_poll_ready(cb), "not ready at the watermark");
	check_eq(READ_ONCE(cb->reader_waiting), 0);
	check_eq(tring_cpu_ready(cb, 2), 2);
	check_eq(tring_cpu_get(cb, &sb), 0);
	/* A held sub-buffer still counts until it is given back... */
	check(tring_cpu_poll_ready(cb), "a held sub-buffer not counted");
	check_eq(tring_cpu_put(cb, sb.seq, 1), 0);
	/* ...and no longer does after. */
	check(!tring_cpu_poll_ready(cb), "ready at 2 of 3 after a put");
	check_eq(READ_ONCE(cb->reader_waiting), 1);
	tring_cpu_reader_reset(cb);
	check_eq(READ_ONCE(cb->reader_waiting), 0);
	tring_buffer_free(buf);
}

/*
 * Discard mode, 4 slots, watermark 3 (the most allowed): the reader
 * takes a sub-buffer and keeps it. Once the writer has filled the rest
 * it cannot open another sub-buffer until the reader gives one back, so
 * no delivery is coming: poll must already say readable.
 */
static void t_poll_held_full(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;
	struct tring_subbuf sb;
	struct tring_counts c;

	nlens = 0;
	set_len(2, 60);
	tring_cpu_set_watermark(cb, 3);
	check_eq(cb->watermark, 3);
	for (i = 0; i <= 3 * per; i++)
		check_eq(wr(buf, 2, 60, i), 0);
	irq_work_sync(&cb->wakeup);
	check_eq(tring_cpu_ready(cb, 8), 3);
	check_eq(tring_cpu_get(cb, &sb), 0);
	check_eq(sb.seq, 0);
	check(tring_cpu_poll_ready(cb),
	      "holding 1 of 3 complete sub-buffers: poll not ready");
	/* Fill the open sub-buffer: every event after that is dropped. */
	for (; i <= 4 * per; i++)
		check_eq(wr(buf, 2, 60, i), i < 4 * per ? 0 : -ENOBUFS);
	tring_cpu_counts(cb, &c);
	check_eq(c.events_discarded, 1);
	check_eq(c.subbufs_delivered, 3);
	check(tring_cpu_poll_ready(cb), "writer blocked: poll not ready");
	/* Giving back what it holds lets the writer on. */
	check_eq(tring_cpu_put(cb, 0, 1), 0);
	check_eq(wr(buf, 2, 60, i), 0);
	tring_cpu_counts(cb, &c);
	check_eq(c.events_discarded, 1);
	check_eq(c.subbufs_delivered, 4);
	tring_buffer_free(buf);
}

/* A reader sleeping in tring_cpu_wait() is woken through irq_work. */
struct waiter {
	struct tring_cpu *cb;
	pthread_t th;
	int ret;
	int sleeping;
	unsigned long long woke_ns;
	/* The twin's wakeup counters when the case began. */
	unsigned long lost, runs, give_ups;
};

/* A waiter on @cb, not started; the counters as they are now. */
static struct waiter waiter_on(struct tring_cpu *cb)
{
	return (struct waiter){
		.cb = cb,
		.lost = twin_load(&twin_lost_wakeups),
		.runs = twin_load(&twin_irq_work_runs),
		.give_ups = twin_load(&twin_wait_give_ups),
	};
}

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;

	w->ret = tring_cpu_wait(w->cb);
	__atomic_store_n(&w->woke_ns, twin_mono_ns(), __ATOMIC_RELEASE);
	return NULL;
}

/* Wait until the waiter sleeps in its condition variable. */
static void wait_until_sleeping(struct tring_cpu *cb)
{
	for (;;) {
		bool s;

		pthread_mutex_lock(&cb->waitq.lock);
		s = cb->waitq.sleepers > 0;
		pthread_mutex_unlock(&cb->waitq.lock);
		if (s)
			return;
		usleep(100);
	}
}

/* Start @w's thread in tring_cpu_wait(); back once it sleeps there. */
static void waiter_start(struct waiter *w)
{
	pthread_create(&w->th, NULL, waiter_fn, w);
	wait_until_sleeping(w->cb);
}

static void t_poll_wakeup(void)
{
	struct tring_buffer *buf = mk(8, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;
	struct waiter w = waiter_on(cb);
	unsigned long long t;

	nlens = 0;
	set_len(2, 60);
	tring_cpu_set_watermark(cb, 2);
	waiter_start(&w);
	/* One sub-buffer and the next one open: below the watermark. */
	for (i = 0; i <= per; i++)
		check_eq(wr(buf, 2, 60, i), 0);
	usleep(20000);
	check(!__atomic_load_n(&w.woke_ns, __ATOMIC_ACQUIRE),
	      "woken below the watermark");
	t = twin_mono_ns();
	for (; i <= 2 * per; i++)
		check_eq(wr(buf, 2, 60, i), 0);
	pthread_join(w.th, NULL);
	check_eq(w.ret, 0);
	check(w.woke_ns >= t && w.woke_ns - t < 500000000ULL,
	      "woken %lld ns after the watermark's delivery began",
	      (long long)(w.woke_ns - t));
	check(twin_load(&twin_irq_work_runs) > w.runs, "no irq_work ran");
	check_eq(tring_cpu_ready(cb, 8), 2);

	/* Woken by a flush of a partial sub-buffer, watermark not reached. */
	rd_reset();
	check_eq(rd_all(cb), 2);
	tring_cpu_set_watermark(cb, 3);
	w.woke_ns = 0;
	waiter_start(&w);
	tring_cpu_flush(cb);
	pthread_join(w.th, NULL);
	check_eq(w.ret, 0);
	check_eq(tring_cpu_ready(cb, 8), 1);
	check_eq(twin_load(&twin_lost_wakeups), w.lost);
	check_eq(twin_load(&twin_wait_give_ups), 0);
	tring_buffer_free(buf);
}

/*
 * The reader takes the first sub-buffer, keeps it and sleeps with
 * watermark 3 of 4 slots. The writer then completes two more and fills
 * the last: that is everything it can do until a sub-buffer comes back,
 * so the delivery that made it so must wake the reader, and the reader
 * must find poll ready (no further delivery would ever come).
 */
static void t_poll_held_wakeup(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;
	struct waiter w = waiter_on(cb);
	struct tring_subbuf sb;

	nlens = 0;
	set_len(2, 60);
	tring_cpu_set_watermark(cb, 3);
	for (i = 0; i <= per; i++)
		check_eq(wr(buf, 2, 60, i), 0);
	check_eq(tring_cpu_get(cb, &sb), 0);
	check(!tring_cpu_poll_ready(cb), "ready at 1 of 3");
	waiter_start(&w);
	for (; i < 4 * per; i++)
		check_eq(wr(buf, 2, 60, i), 0);
	check_eq(wr(buf, 2, 60, i), -ENOBUFS);
	pthread_join(w.th, NULL);
	check(w.ret == 0, "the reader was not woken (tring_cpu_wait: %d)",
	      w.ret);
	check_eq(twin_load(&twin_lost_wakeups), w.lost);
	check_eq(twin_load(&twin_wait_give_ups), w.give_ups);
	check_eq(tring_cpu_put(cb, sb.seq, 1), 0);
	tring_buffer_free(buf);
}

/*
 * tring_cpu_wait() against a flush from another thread (the reader's
 * other half, e.g. "stop: flush, then drain"): the flush lands right
 * after the poller has read flush_pos, and the flushed sub-buffer is
 * delivered late, by a writer that had a reservation open on the
 * flushed CPU. The poller must still be woken.
 */
struct race {
	struct tring_buffer *buf;
	struct tring_cpu *cb;
	int step, done;
	struct tring_res res;
};

static void *race_writer_fn(void *arg)
{
	struct race *r = arg;

	twin_cpu_register(1);
	if (wr(r->buf, 2, 8, 0) || tring_reserve(r->buf, 2, 8, &r->res))
		abort();
	pattern(r->res.data, 8, 1);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	ipi_wait_for(&r->step, 1);
	tring_commit(&r->res);		/* delivers the flushed sub-buffer */
	__atomic_store_n(&r->done, 2, __ATOMIC_RELEASE);
	ipi_wait_for(&r->step, 2);
	twin_cpu_unregister();
	return NULL;
}

/* Runs in the poller, inside tring_cpu_poll_ready(), after flush_pos. */
static void race_hook(void *arg)
{
	struct race *r = arg;

	check_eq(tring_cpu_flush(r->cb), SB);
	check_eq(tring_cpu_ready(r->cb, 1), 0);
	__atomic_store_n(&r->step, 1, __ATOMIC_RELEASE);
	ipi_wait_for(&r->done, 2);
	check_eq(tring_cpu_ready(r->cb, 1), 1);
}

static void t_wait_flush_race(void)
{
	struct race r = { .buf = mk(4, 0) };
	unsigned long lost = twin_load(&twin_lost_wakeups);
	unsigned long long t0;
	pthread_t t;

	r.cb = twin_cb(r.buf, 1);
	/* Two: one complete sub-buffer wakes nobody, only the flush does. */
	tring_cpu_set_watermark(r.cb, 2);
	nlens = 0;
	set_len(2, 8);
	pthread_create(&t, NULL, race_writer_fn, &r);
	ipi_wait_for(&r.done, 1);
	check_eq(r.cb->watermark, 2);
	twin_watch(&r.cb->flush_pos, 0, race_hook, &r);
	t0 = twin_mono_ns();
	check_eq(tring_cpu_wait(r.cb), 0);
	check(!twin_watch_pending(), "the watch did not fire");
	check(twin_load(&twin_lost_wakeups) == lost,
	      "the poller slept %.1f s with a flushed sub-buffer ready: the "
	      "wakeup was lost", (twin_mono_ns() - t0) / 1e9);
	__atomic_store_n(&r.step, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	rd_reset();
	check_eq(rd_all(r.cb), 1);
	check_eq(R.nev, 2);
	tring_buffer_free(r.buf);
}

/*
 * Nesting: each context reserves, raises the next level's signal before
 * committing; the deepest writes enough to open several sub-buffers.
 */
static struct tring_buffer *deep_buf;
static int deep_inner = 100;

static void deep_level(int level)
{
	struct tring_res res = { };
	int i;

	if (level == TWIN_NR_LEVELS) {
		for (i = 0; i < deep_inner; i++)
			check_eq(wr(deep_buf, 20, 100, 1000 + i), 0);
		return;
	}
	check_eq(tring_reserve(deep_buf, 10 + level, 20 + level, &res), 0);
	pattern(res.data, 20 + level, level);
	twin_raise(level + 1);
	tring_commit(&res);
}

static void t_nesting_deep(void)
{
	struct tring_buffer *buf = mk(8, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	int level, i, depth = twin_max_nest_depth;

	dirty(buf);
	deep_buf = buf;
	nlens = 0;
	for (level = 0; level < TWIN_NR_LEVELS; level++)
		set_len(10 + level, 20 + level);
	set_len(20, 100);
	for (level = 1; level <= TWIN_NR_LEVELS; level++)
		twin_irq_fn[level] = deep_level;
	twin_max_nest_depth = 0;
	deep_level(0);
	check_eq(twin_max_nest_depth, TWIN_NR_LEVELS);
	twin_max_nest_depth = depth > TWIN_NR_LEVELS ? depth : TWIN_NR_LEVELS;
	for (level = 1; level <= TWIN_NR_LEVELS; level++)
		twin_irq_fn[level] = NULL;
	tring_cpu_flush(cb);
	rd_reset();
	check_eq(rd_all(cb), 3);
	check_eq(R.nev, TWIN_NR_LEVELS + deep_inner);
	/* Stream order is reservation order: outermost first. */
	for (level = 0; level < TWIN_NR_LEVELS; level++)
		check_ev(level, 10 + level, 20 + level, level);
	for (i = 0; i < deep_inner; i++)
		check_ev(TWIN_NR_LEVELS + i, 20, 100, 1000 + i);
	for (i = 1; i < R.nev; i++)
		check(R.ev[i].ts >= R.ev[i - 1].ts, "time goes back at %d", i);
	check_packet_order(true);
	check_eq(tring_cpu_losses(cb), 0);
	tring_buffer_free(buf);
}

/*
 * A nested writer right after the cmpxchg that opens a sub-buffer, before
 * the opener has closed the old one and written the new one's header:
 * the nested writer fills the new sub-buffer and closes it first.
 */
static int open_nested = 70;

static void open_nested_fn(int level)
{
	int i;

	for (i = 0; i < open_nested; i++)
		check_eq(wr_seq(nest_buf, 3, 60, 1000 + i), 0);
}

static void open_hook(void *arg)
{
	twin_raise(1);
}

static void open_flush_hook(void *arg)
{
	tring_cpu_flush(arg);
}

/* Fill packet 0 with @per 60-byte records 0.. for a nested writer test. */
static void fill_packet0(struct tring_buffer *buf, unsigned long per)
{
	unsigned long i;

	nest_buf = buf;
	nlens = 0;
	set_len(2, 60);
	set_len(3, 60);
	for (i = 0; i < per; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
}

static void t_nested_in_open(void)
{
	unsigned long per = per_subbuf(rec_size(60)), i;
	int flush;

	for (flush = 0; flush < 2; flush++) {
		struct tring_buffer *buf = mk(4, 0);
		struct tring_cpu *cb = twin_cb(buf, 0);
		unsigned long t_open;

		fill_packet0(buf, per);
		twin_irq_fn[1] = open_nested_fn;
		twin_watch(&cb->offset, 0, flush ? open_flush_hook : open_hook,
			   cb);
		t_open = twin_mono_ns();
		check_eq(wr_seq(buf, 2, 60, per), 0);	/* the switch */
		check(!twin_watch_pending(), "watch did not fire");
		twin_irq_fn[1] = NULL;
		tring_cpu_flush(cb);
		rd_reset();
		rd_all(cb);
		check_packet_order(true);
		if (!flush) {
			check_eq(R.npk, 3);
			check_eq(R.nev, per + 1 + open_nested);
			check_eq(R.pk[1].nev, per);
			check_eq(R.pk[2].nev, open_nested + 1 - per);
			/* the opener's record is the first of packet 1 */
			check_eq(ev_seq(per), per);
			for (i = 0; i < (unsigned long)open_nested; i++)
				check_eq(ev_seq(per + 1 + i), 1000 + i);
			check(R.pk[1].begin <= R.ev[per].ts &&
			      R.pk[1].begin >= t_open - 1000000000ULL,
			      "packet 1 timestamp_begin wrong");
		} else {
			/* the flush closed packet 1 with only the opener's record */
			check_eq(R.npk, 2);
			check_eq(R.nev, per + 1);
			check_eq(R.pk[1].nev, 1);
			check_eq(R.pk[1].content, (HDR + 64) * 8);
		}
		tring_buffer_free(buf);
	}
}

/*
 * The fast path's cache of the current sub-buffer (cb->cur_last). First a
 * writer opening packet 1 is interrupted right after its cmpxchg on the
 * position; the nested writer fills packet 1, moves on to packet 2 and
 * stores it in the cache. The opener then finds a newer entry and leaves
 * it (entries only move forward), and the next record takes the fast
 * path. Then a nested writer right after the fast path reads the cache,
 * that crosses into packet 3: the interrupted writer's cmpxchg fails and
 * it looks again. Every record lands where its position says, in order.
 * (A store that does go stale is in t_cache_busy().)
 */
static void cache_read_hook(void *arg)
{
	twin_raise(1);
}

static void t_cache(void)
{
	struct tring_buffer *buf = mk(8, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i, n, tail;

	fill_packet0(buf, per);
	check_eq(cb->cur_last, SB - 1);
	open_nested = per + 3;	/* fills packet 1, spills into 2 */
	twin_irq_fn[1] = open_nested_fn;
	twin_watch(&cb->offset, 0, open_hook, NULL);
	check_eq(wr_seq(buf, 2, 60, per), 0);	/* opens packet 1 */
	check(!twin_watch_pending(), "watch did not fire");
	/* The opener left the nested writer's newer entry. */
	check_eq(cb->cur_last, 2 * SB + SB - 1);
	check_eq(local_read(&cb->offset) / SB, 2);
	check_eq(wr_seq(buf, 2, 60, 2000), 0);	/* fast path in packet 2 */
	check_eq(cb->cur_last, 2 * SB + SB - 1);
	n = per + 1 + open_nested + 1;

	/*
	 * Packet 2 holds the 4 spilled records and 2000: fill it but one
	 * record, then nest at the cache read.
	 */
	tail = per - 6;
	for (i = 0; i < tail; i++)
		check_eq(wr_seq(buf, 2, 60, 3000 + i), 0);
	n += tail;
	open_nested = 2;	/* the last record of packet 2, the first of 3 */
	twin_watch(&cb->cur_last, 0, cache_read_hook, NULL);
	check_eq(wr_seq(buf, 2, 60, 4000), 0);
	check(!twin_watch_pending(), "watch did not fire");
	twin_irq_fn[1] = NULL;
	n += 1 + open_nested;
	check_eq(cb->cur_last, 3 * SB + SB - 1);
	check_eq(wr_seq(buf, 2, 60, 5000), 0);	/* fast path in packet 3 */
	n++;
	tring_cpu_flush(cb);
	rd_reset();
	check_eq(rd_all(cb), 4);
	check_eq(R.nev, n);
	check_packet_order(true);
	for (i = 0; i < per; i++)
		check_eq(ev_seq(i), i);
	/* The opener's record first: it reserved before the nested ones. */
	check_eq(ev_seq(per), per);
	for (i = 0; i < per + 3; i++)
		check_eq(ev_seq(per + 1 + i), 1000 + i);
	check_eq(ev_seq(2 * per + 4), 2000);
	for (i = 0; i < tail; i++)
		check_eq(ev_seq(2 * per + 5 + i), 3000 + i);
	/* At the cache read the nested writer ran first: its two, then ours. */
	check_eq(ev_seq(n - 4), 1000);
	check_eq(ev_seq(n - 3), 1001);
	check_eq(ev_seq(n - 2), 4000);
	check_eq(ev_seq(n - 1), 5000);
	check_eq(R.pk[2].nev, per);
	check_eq(R.pk[3].nev, 3);
	check_eq(tring_cpu_losses(cb), 0);
	tring_buffer_free(buf);
}

/*
 * A writer nested in a cache update (tring_cache_set()) neither uses nor
 * updates the cache. The opener of packet 3, in the ring's last slot, is
 * interrupted right after it takes the cache: the nested writer fills
 * packet 3 and spills into packet 4 (slot 0 again); a second one writes
 * right after the opener stores the slot, before it stores the position.
 * Had the first stored its entry, the second would pair packet 4's
 * position with packet 3's address and slot: a record past the end of
 * the ring, and a slot that never completes.
 */
static struct tring_cpu *busy_cb;

static void busy_second_fn(int level)
{
	check_eq(busy_cb->cur_last, TRING_BUSY_LAST);
	check_eq(wr_seq(nest_buf, 3, 60, 9999), 0);
}

static void busy_second_hook(void *arg)
{
	twin_raise(1);
}

static void busy_first_fn(int level)
{
	int i;

	for (i = 0; i < open_nested; i++)
		check_eq(wr_seq(nest_buf, 3, 60, 1000 + i), 0);
	check_eq(busy_cb->cur_last, TRING_BUSY_LAST);
	twin_irq_fn[1] = busy_second_fn;
	twin_watch(&busy_cb->cur_slot, 0, busy_second_hook, NULL);
}

/* At each access to cur_last, until the opener has taken the cache. */
static void busy_hook(void *arg)
{
	if (__atomic_load_n(&busy_cb->cur_last, __ATOMIC_RELAXED) ==
	    TRING_BUSY_LAST)
		twin_raise(1);
	else
		twin_watch(&busy_cb->cur_last, 0, busy_hook, NULL);
}

static void t_cache_busy(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i, n;

	busy_cb = cb;
	fill_packet0(buf, 3 * per);		/* packets 0, 1 and 2 */
	check_eq(rd_take(cb, 2), 2);		/* room for packet 4 */
	open_nested = per + 3;			/* fills packet 3, spills */
	twin_irq_fn[1] = busy_first_fn;
	twin_watch(&cb->cur_last, 0, busy_hook, NULL);
	check_eq(wr_seq(buf, 2, 60, 3 * per), 0);	/* opens packet 3 */
	check(!twin_watch_pending(), "watch did not fire");
	twin_irq_fn[1] = NULL;
	/* The opener's entry, stored last, is stale; the next one mends it. */
	check_eq(cb->cur_last, 3 * SB + SB - 1);
	for (i = 0; i < 10; i++)
		check_eq(wr_seq(buf, 2, 60, 7000 + i), 0);
	check_eq(cb->cur_last, 4 * SB + SB - 1);
	tring_cpu_flush(cb);
	rd_reset();
	check_eq(rd_all(cb), 3);		/* packets 2, 3 and 4 */
	n = per + 1 + open_nested + 1 + 10;
	check_eq(R.nev, n);
	check_packet_order(true);
	for (i = 0; i < per; i++)
		check_eq(ev_seq(i), 2 * per + i);
	check_eq(ev_seq(per), 3 * per);
	for (i = 0; i < (unsigned long)open_nested; i++)
		check_eq(ev_seq(per + 1 + i), 1000 + i);
	check_eq(ev_seq(per + 1 + open_nested), 9999);
	for (i = 0; i < 10; i++)
		check_eq(ev_seq(n - 10 + i), 7000 + i);
	check_eq(tring_cpu_losses(cb), 0);
	tring_buffer_free(buf);
}

/*
 * Overwrite mode: a nested writer right after a writer's claim of a slot
 * for a new lap (its cmpxchg on slot->map), before it reads the number of
 * events it overwrote. The nested writer fills and delivers the
 * sub-buffer of the new lap first.
 */
static void claim_nested_fn(int level)
{
	int i;

	for (i = 0; i < open_nested; i++)
		check_eq(wr_seq(nest_buf, 3, 28, 1000 + i), 0);
}

static void t_claim_window(void)
{
	struct tring_buffer *buf = mk(4, TRING_OVERWRITE);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), per28, i, written;
	struct tring_counts c;

	per28 = per_subbuf(rec_size(28));
	nest_buf = buf;
	nlens = 0;
	set_len(2, 60);
	set_len(3, 28);
	for (i = 0; i < 4 * per; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
	open_nested = per28 + 5;	/* fills packet 4, spills into 5 */
	twin_irq_fn[1] = claim_nested_fn;
	twin_watch(&cb->slots[0].map, 0, open_hook, NULL);
	check_eq(wr_seq(buf, 2, 60, 4 * per), 0);
	check(!twin_watch_pending(), "watch did not fire");
	twin_irq_fn[1] = NULL;
	written = 4 * per + 1 + open_nested;
	tring_cpu_flush(cb);
	/* packets 0 and 1 were overwritten by packets 4 and 5 */
	check_eq(local_read(&cb->overwritten), 2 * per);
	rd_reset();
	rd_all(cb);
	check_eq(R.nev + local_read(&cb->overwritten), written);
	check_eq(R.npk, 4);
	tring_cpu_counts(cb, &c);
	check_eq(c.events_written, written);
	open_nested = 70;
	tring_buffer_free(buf);
}

/*
 * Overwrite mode: a writer interrupted right after it won the claim of
 * slot 0 for a lap, for a whole lap of the ring: meanwhile that lap
 * completes, the reader takes it (its spare goes into the slot), and the
 * slot is claimed for the next lap and written. Writes after the
 * interrupted writer resumes must not reach the sub-buffer the reader
 * holds (a cached address stored late by that writer once did).
 */
static struct tring_subbuf stale_held;
static unsigned char stale_copy[SB];

static void stale_nested_fn(int level)
{
	struct tring_cpu *cb = twin_cb(nest_buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;

	/* Fill packet 4 (slot 0, lap 1) and open packet 5. */
	for (i = 0; i < per + 1; i++)
		check_eq(wr_seq(nest_buf, 2, 60, 5000 + i), 0);
	/* The reader skips the overwritten packets, takes 2, 3, holds 4. */
	check_eq(rd_take(cb, 2), 2);
	check_eq(tring_cpu_get(cb, &stale_held), 0);
	check_eq(stale_held.seq, 4);
	memcpy(stale_copy, twin_subbuf_va(cb, &stale_held), SB);
	/* Packets 5 to 7, then 3 records in packet 8: slot 0, lap 2. */
	for (i = 0; i < 3 * per + 2; i++)
		check_eq(wr_seq(nest_buf, 2, 60, 6000 + i), 0);
}

static void t_stale_claim(void)
{
	struct tring_buffer *buf = mk(4, TRING_OVERWRITE);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i, written;

	nest_buf = buf;
	nlens = 0;
	set_len(2, 60);
	for (i = 0; i < 4 * per; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
	rd_reset();
	twin_irq_fn[1] = stale_nested_fn;
	twin_watch(&cb->slots[0].map, 0, open_hook, NULL);
	/* Opens packet 4: claims slot 0 for lap 1, and is interrupted. */
	check_eq(wr_seq(buf, 2, 60, 4 * per), 0);
	check(!twin_watch_pending(), "watch did not fire");
	twin_irq_fn[1] = NULL;
	for (i = 0; i < 10; i++)
		check_eq(wr_seq(buf, 2, 60, 7000 + i), 0);
	check(!memcmp(stale_copy, twin_subbuf_va(cb, &stale_held), SB),
	      "the sub-buffer the reader holds was written to");
	rd_packet(cb, &stale_held);
	check_eq(tring_cpu_put(cb, stale_held.seq, 1), 0);
	/* Everything is accounted for exactly. */
	written = 4 * per + 1 + (per + 1) + (3 * per + 2) + 10;
	tring_cpu_flush(cb);
	rd_all(cb);
	check_eq(R.nev + local_read(&cb->overwritten), written);
	tring_buffer_free(buf);
}

/*
 * Discard mode: a writer closing packet 1 is interrupted right after its
 * switch cmpxchg by a writer that fills packet 2, opens and fills packet
 * 3 and then finds the buffer full. The loss count in the headers must
 * not go back from packet 1 to packet 2.
 */
static void discarded_nested_fn(int level)
{
	unsigned long per = per_subbuf(rec_size(60)), i;

	for (i = 0; i < 2 * per - 1; i++)
		check_eq(wr_seq(nest_buf, 2, 60, 5000 + i), 0);
	check_eq(wr_seq(nest_buf, 2, 60, 6000), -ENOBUFS);
	check_eq(wr_seq(nest_buf, 2, 60, 6001), -ENOBUFS);
}

static void t_discarded_monotonic(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_cpu *cb = twin_cb(buf, 0);
	unsigned long per = per_subbuf(rec_size(60)), i;
	int p;

	nest_buf = buf;
	nlens = 0;
	set_len(2, 60);
	for (i = 0; i < 2 * per; i++)
		check_eq(wr_seq(buf, 2, 60, i), 0);
	rd_reset();
	twin_irq_fn[1] = discarded_nested_fn;
	twin_watch(&cb->offset, 0, open_hook, NULL);
	/* Closes packet 1 and opens packet 2, interrupted in between. */
	check_eq(wr_seq(buf, 2, 60, 2 * per), 0);
	check(!twin_watch_pending(), "watch did not fire");
	twin_irq_fn[1] = NULL;
	tring_cpu_flush(cb);
	check_eq(rd_all(cb), 4);
	for (p = 1; p < R.npk; p++)
		check(R.pk[p].discarded >= R.pk[p - 1].discarded,
		      "events_discarded goes back: packet %llu %llu, packet %llu %llu",
		      (unsigned long long)R.pk[p - 1].seq,
		      (unsigned long long)R.pk[p - 1].discarded,
		      (unsigned long long)R.pk[p].seq,
		      (unsigned long long)R.pk[p].discarded);
	check_eq(R.pk[R.npk - 1].discarded, 2);
	tring_buffer_free(buf);
}

static void t_counts_and_cpus(void)
{
	struct tring_buffer *buf = mk(4, 0);
	struct tring_counts c;
	int cpu;

	nlens = 0;
	for (cpu = 0; cpu < TWIN_NR_CPUS; cpu++) {
		twin_set_cpu(cpu);
		check_eq(wr(buf, 2, 8, cpu), 0);
		check_eq(wr(buf, 2, 8, cpu), 0);
	}
	twin_set_cpu(0);
	for (cpu = 0; cpu < TWIN_NR_CPUS; cpu++) {
		struct tring_cpu *cb = twin_cb(buf, cpu);

		tring_cpu_counts(cb, &c);
		check_eq(c.write_pos, HDR + 24);
		check_eq(c.events_written, 2);
		check_eq(c.subbufs_delivered, 0);
		tring_cpu_flush(cb);
		tring_cpu_counts(cb, &c);
		check_eq(c.write_pos, SB);
		check_eq(c.subbufs_delivered, 1);
		check_eq(c.subbufs_ready, 1);
		check_eq(c.events_written, 2);
		check_eq(c.read_pos, 0);
		set_len(2, 8);
		rd_reset();
		check_eq(rd_all(cb), 1);
		check_eq(R.nev, 2);
		check_ev(1, 2, 8, cpu);
		tring_cpu_counts(cb, &c);
		check_eq(c.read_pos, SB);
		check_eq(c.subbufs_ready, 0);
	}
	tring_buffer_free(buf);
}

/*
 * Only the CPUs online when the buffer is made get a ring; another gets
 * its ring when it first comes online (the hotplug prepare step), keeps
 * it when it goes offline and back, and records in it like the others.
 */
static void t_rings_online_only(void)
{
	const unsigned long late = 1UL << 3;
	long base = twin_outstanding_allocs();
	struct tring_buffer *buf;
	struct tring_cpu *cb;
	void *va;

	twin_cpus_prepared &= ~late;
	buf = mk(4, 0);
	twin_cpus_prepared |= late;
	check(tring_buffer_cpu(buf, 2) != NULL, "CPU 2 has no ring");
	check(tring_buffer_cpu(buf, 3) == NULL, "offline CPU 3 has a ring");
	check_eq(twin_cpu_prepare(3, &buf->cpuhp_node), 0);
	cb = tring_buffer_cpu(buf, 3);
	if (!check(cb != NULL, "CPU 3 has no ring after coming online"))
		goto free;
	va = cb->va;
	/* Offline and back: the same ring, with what it holds. */
	twin_set_cpu(3);
	nlens = 0;
	check_eq(wr(buf, 2, 8, 30), 0);
	check_eq(twin_cpu_prepare(3, &buf->cpuhp_node), 0);
	check(cb->va == va, "the ring was made again");
	check_eq(wr(buf, 2, 8, 31), 0);
	twin_set_cpu(0);
	tring_cpu_flush(cb);
	set_len(2, 8);
	rd_reset();
	check_eq(rd_all(cb), 1);
	check_eq(R.nev, 2);
	check_ev(0, 2, 8, 30);
	check_ev(1, 2, 8, 31);
free:
	tring_buffer_free(buf);
	check_eq(twin_outstanding_allocs(), base);
}

/*
 * A buffer whose pages would leave less than an eighth of RAM available
 * is refused with -ENOMEM before anything is allocated; at the limit it
 * is accepted. Counted over every online CPU, the spare included.
 */
static void t_memory_guard(void)
{
	struct tring_buffer_attr attr = {
		.name = "big",
		.subbuf_size = SB,
		.subbuf_count = 4,
		.clock = TRING_CLOCK_MONO,
	};
	const unsigned long total = 8000, keep = total / 8;
	unsigned long need = 4 * TWIN_NR_CPUS;
	long base = twin_outstanding_allocs();
	struct tring_buffer *buf;

	twin_set_memory(keep + need - 1, total);
	buf = tring_buffer_alloc(&attr);
	check_eq(PTR_ERR(buf), -ENOMEM);
	check_eq(twin_outstanding_allocs(), base);
	twin_set_memory(keep + need, total);
	buf = tring_buffer_alloc(&attr);
	if (check(!IS_ERR(buf), "refused at the limit: %ld", PTR_ERR(buf)))
		tring_buffer_free(buf);
	/* Overwrite mode adds a spare sub-buffer per CPU. */
	attr.flags = TRING_OVERWRITE;
	buf = tring_buffer_alloc(&attr);
	check_eq(PTR_ERR(buf), -ENOMEM);
	twin_set_memory(keep + need + TWIN_NR_CPUS, total);
	buf = tring_buffer_alloc(&attr);
	if (check(!IS_ERR(buf), "overwrite refused at the limit: %ld",
		  PTR_ERR(buf)))
		tring_buffer_free(buf);
	/* Nothing available at all (or a negative estimate). */
	twin_set_memory(-1, total);
	buf = tring_buffer_alloc(&attr);
	check_eq(PTR_ERR(buf), -ENOMEM);
	/* An offline CPU has no ring yet, so it is not counted. */
	twin_set_memory(keep + 5 * (TWIN_NR_CPUS - 1), total);
	buf = tring_buffer_alloc(&attr);
	check_eq(PTR_ERR(buf), -ENOMEM);
	twin_cpus_prepared &= ~1UL;
	buf = tring_buffer_alloc(&attr);
	twin_cpus_prepared |= 1UL;
	if (check(!IS_ERR(buf), "offline CPU counted: %ld", PTR_ERR(buf)))
		tring_buffer_free(buf);
	twin_set_memory(1L << 40, 1UL << 40);
	check_eq(twin_outstanding_allocs(), base);
}

/*
 * Start every slot's commit counter of a fresh ring at @start (a
 * multiple of the sub-buffer size), as if that many bytes and events
 * had gone through it already.
 */
static void set_slot_counters(struct tring_cpu *cb, unsigned long start)
{
	unsigned long i;

	for (i = 0; i <= cb->slot_mask; i++) {
		local_set(&cb->slots[i].commit, start);
		cb->slots[i].done_commit = start;
	}
}

/*
 * events_written and events_count stay exact when a slot's commit
 * counter wraps past 2^64, or crosses 2^63, in the middle of a lap:
 * both for delivered sub-buffers and for the open one.
 */
static void t_event_count_wrap(void)
{
	static const unsigned long starts[] = {
		0UL - 5 * SB,			/* wraps in each slot's first lap */
		(1UL << 63) - 5 * SB,		/* crosses 2^63 there */
		0UL - 2 * SB,			/* wraps at the first event */
	};
	unsigned long per = per_subbuf(rec_size(60)), i, k;
	struct tring_counts c;

	nlens = 0;
	set_len(2, 60);
	for (k = 0; k < ARRAY_SIZE(starts); k++) {
		struct tring_buffer *buf = mk(4, 0);
		struct tring_cpu *cb = twin_cb(buf, 0);

		set_slot_counters(cb, starts[k]);
		for (i = 0; i < 2 * per + 10; i++)
			check_eq(wr(buf, 2, 60, i), 0);
		tring_cpu_counts(cb, &c);
		check(c.events_written == 2 * per + 10,
		      "start %#lx: events_written %llu, want %lu", starts[k],
		      (unsigned long long)c.events_written, 2 * per + 10);
		check_eq(c.subbufs_delivered, 2);
		check_eq(local_read(&cb->events_delivered), 2 * per);
		tring_cpu_flush(cb);
		rd_reset();
		check_eq(rd_all(cb), 3);
		check_eq(R.nev, 2 * per + 10);
		check_eq(R.pk[2].count, 10);
		tring_cpu_counts(cb, &c);
		check_eq(c.events_written, 2 * per + 10);
		tring_buffer_free(buf);
	}
}

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
