// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: twin_unit's shared helpers: the manual clock, payloads
 * and event lengths, and reading, checking and decoding packets.
 */
#include "twin_unit.h"

/* ---- manual clock ---- */

unsigned long long mclock, mstep;
unsigned long mclock_reads[2];

static unsigned long long mclock_hook(int clock)
{
	unsigned long long t = __atomic_load_n(&mclock, __ATOMIC_RELAXED);

	__atomic_fetch_add(&mclock_reads[clock & 1], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&mclock, t + mstep, __ATOMIC_RELAXED);
	return t;
}

void manual_clock(unsigned long long t, unsigned long long step)
{
	mclock = t;
	mstep = step;
	mclock_reads[0] = mclock_reads[1] = 0;
	twin_set_clock_hook(mclock_hook);
}

void real_clock(void)
{
	twin_set_clock_hook(NULL);
}

/* ---- payloads and event lengths ---- */

void pattern(void *dst, unsigned int len, unsigned int seed)
{
	unsigned char *p = dst;
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 0x9d + i * 13 + 1);
}

bool pattern_ok(const void *src, unsigned int len, unsigned int seed)
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
int nlens;

void set_len(u32 id, long len)
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

long len_fn(u32 id, const u8 *payload, size_t avail, void *arg)
{
	int i;

	for (i = 0; i < nlens; i++)
		if (lens[i].id == id)
			return lens[i].len;
	return -1;
}

unsigned long rec_size(unsigned int len)
{
	return TRING_EVENT_HEADER_SIZE + tring_payload_room(len);
}

/* Records of size n a sub-buffer takes before one more closes it. */
unsigned long per_subbuf(unsigned long n)
{
	return (SB - HDR - 1) / n;
}

int wr(struct tring_buffer *buf, u32 id, unsigned int len, unsigned int seed)
{
	unsigned char p[SB];

	pattern(p, len, seed);
	return trace_write_inline(buf, id, p, len);
}

/* Event whose payload starts with a 32-bit sequence number. */
int wr_seq(struct tring_buffer *buf, u32 id, unsigned int len, u32 seq)
{
	unsigned char p[SB];

	pattern(p, len, seq);
	memcpy(p, &seq, 4);
	return trace_write_inline(buf, id, p, len);
}

/* ---- reading: take, check and decode packets ---- */

struct twin_rd R;

void rd_reset(void)
{
	R.nev = 0;
	R.npk = 0;
	R.used = 0;
}

/* Check and decode one taken sub-buffer into R. */
bool rd_packet(struct tring_cpu *cb, const struct tring_subbuf *sb)
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
int rd_take(struct tring_cpu *cb, int max)
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

int rd_all(struct tring_cpu *cb)
{
	return rd_take(cb, 1 << 30);
}

/* Consecutive packets: later ones start no earlier than earlier ones end. */
void check_packet_order(bool consecutive)
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
void check_ev(int i, u32 id, unsigned int len, unsigned int seed)
{
	if (!check(i < R.nev, "event %d missing (have %d)", i, R.nev))
		return;
	check(R.ev[i].id == id, "event %d: id %u, want %u", i, R.ev[i].id, id);
	check(R.ev[i].len == len, "event %d: len %u, want %u", i, R.ev[i].len,
	      len);
	check(pattern_ok(R.ev[i].p, len, seed), "event %d: payload differs", i);
}

u32 ev_seq(int i)
{
	u32 s;

	memcpy(&s, R.ev[i].p, 4);
	return s;
}

struct tring_buffer *mk(unsigned int count, unsigned int flags)
{
	return twin_buffer(SB, count, flags, TRING_CLOCK_MONO, 0);
}

/* Write and consume a full lap of 0xff-ish payloads: leave dirty memory. */
void dirty(struct tring_buffer *buf)
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

/* The buffer the nested writers of several cases write. */
struct tring_buffer *nest_buf;

/* Wait until *@p is @v, as a task (a CPU thread may be asked to flush). */
void ipi_wait_for(int *p, int v)
{
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != v) {
		twin_task_context();
		usleep(50);
	}
}
