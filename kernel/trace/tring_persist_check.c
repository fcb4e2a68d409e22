// SPDX-License-Identifier: GPL-2.0
/*
 * tring: recovering the previous boot's trace from a persistent region.
 *
 * The region is untrusted input: what a crashed kernel left, or what the
 * firmware or another kernel wrote there. Nothing here trusts a value
 * before checking it against the region's size; every loop is bounded by
 * the header's checked geometry. A CPU's data is used only if its slots
 * describe the last laps of one ring, its packets' headers agree with
 * them, and every record parses with the layout of its event id and
 * keeps the stream's time from going back. The sub-buffer(s) a writer
 * had open are cut at the last record within their committed bytes.
 *
 * Reads only; built in the kernel and in user space (tools/testing/tring).
 */
#include <linux/crc32.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/tring.h>

#include "tring_persist.h"

/* Geometry a region may have: what tring_check_attr() allows. */
#define TP_MIN_SHIFT		12
#define TP_MAX_SHIFT		24
#define TP_MAX_SLOTS		BIT(20)
#define TP_MAX_CPUS		8192
#define TP_PAGE			4096ULL

/**
 * tring_persist_csum - the checksum of the region's header and metadata
 * @p: the bytes.
 * @len: their number.
 *
 * Return: CRC-32 (IEEE 802.3) of the bytes.
 */
u32 tring_persist_csum(const void *p, size_t len)
{
	return crc32_le(~0U, p, len) ^ ~0U;
}

/* @len bytes at @off in the region, or NULL if they are not all in it. */
static const void *tp_at(const struct tring_persist_view *v, u64 off, u64 len)
{
	if (off > v->size || len > v->size - off)
		return NULL;
	return v->base + off;
}

static bool tp_aligned(u64 x, u64 a)
{
	return !(x & (a - 1));
}

static bool tp_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

static const char *tp_check_geometry(const struct tring_persist_header *h)
{
	if (h->subbuf_shift < TP_MIN_SHIFT || h->subbuf_shift > TP_MAX_SHIFT)
		return "sub-buffer size out of range";
	if (h->nr_slots < 2 || h->nr_slots > TP_MAX_SLOTS ||
	    !tp_pow2(h->nr_slots))
		return "slot count out of range";
	if (h->nr_phys != h->nr_slots + 1)
		return "not an overwrite-mode ring";
	if (!h->nr_cpus || h->nr_cpus > TP_MAX_CPUS)
		return "CPU count out of range";
	if (h->clock != TRING_CLOCK_MONO && h->clock != TRING_CLOCK_LOCAL)
		return "unknown clock";
	if (h->layout_ids > TRING_PERSIST_MAX_IDS ||
	    h->seg_max > TRING_PERSIST_SEG_POOL)
		return "layout table too large";
	return NULL;
}

static const char *tp_check_offsets(const struct tring_persist_view *v,
				    const struct tring_persist_header *h)
{
	u64 data = (u64)h->nr_phys << h->subbuf_shift;

	if (!tp_aligned(h->layout_off, 8) ||
	    !tp_at(v, h->layout_off, (u64)h->layout_ids *
		   sizeof(struct tring_persist_layout)) ||
	    !tp_aligned(h->seg_off, 8) ||
	    !tp_at(v, h->seg_off, (u64)h->seg_max *
		   sizeof(struct tring_persist_seg)))
		return "layout table outside the region";
	if (!tp_aligned(h->meta_off, 8) || !tp_aligned(h->meta_max, 8) ||
	    h->meta_max <= sizeof(struct tring_persist_meta) ||
	    h->meta_max > v->size || !tp_at(v, h->meta_off, 2 * h->meta_max))
		return "metadata outside the region";
	if (!tp_aligned(h->cpu_off, TP_PAGE) ||
	    !tp_aligned(h->cpu_stride, TP_PAGE) ||
	    !tp_aligned(h->data_off, TP_PAGE) ||
	    !tp_aligned(h->slots_off, 8) ||
	    h->slots_off < sizeof(struct tring_persist_cpu))
		return "misaligned CPU areas";
	if (h->data_off - h->slots_off <
	    (u64)h->nr_slots * sizeof(struct tring_persist_slot) ||
	    h->data_off < h->slots_off || h->cpu_stride < h->data_off ||
	    h->cpu_stride - h->data_off < data)
		return "CPU area too small for its ring";
	if (h->cpu_off > v->size ||
	    (v->size - h->cpu_off) / h->cpu_stride < h->nr_cpus)
		return "CPU areas outside the region";
	return NULL;
}

/* The newer of the two metadata copies whose checksum holds. */
static const char *tp_pick_meta(struct tring_persist_view *v)
{
	const struct tring_persist_header *h = v->h;
	const struct tring_persist_meta *m;
	unsigned int i;

	v->meta = NULL;
	v->meta_gen = 0;
	for (i = 0; i < 2; i++) {
		m = v->base + h->meta_off + i * h->meta_max;
		if (m->magic != TRING_PERSIST_META_MAGIC || !m->gen ||
		    m->len > h->meta_max - sizeof(*m) ||
		    tring_persist_csum(m + 1, m->len) != m->csum)
			continue;
		if (m->gen > v->meta_gen) {
			v->meta_gen = m->gen;
			v->meta = (const char *)(m + 1);
			v->meta_len = m->len;
		}
	}
	return v->meta ? NULL : "no valid metadata";
}

/**
 * tring_persist_check_header - accept a region's header and metadata
 * @v: the region (@base, @size set); @h and the metadata fields are
 *	filled in on success.
 *
 * Return: NULL if the region holds a trace this code can read, else why
 * not (a cold boot reads "no tring region": nothing was ever written).
 */
const char *tring_persist_check_header(struct tring_persist_view *v)
{
	struct tring_persist_header copy;
	const struct tring_persist_header *h;
	const char *why;

	v->h = NULL;
	h = tp_at(v, 0, sizeof(*h));
	if (!h || h->magic != TRING_PERSIST_MAGIC)
		return "no tring region";
	if (h->version != TRING_PERSIST_VERSION ||
	    h->header_size != sizeof(*h))
		return "another layout version";
	copy = *h;
	copy.csum = 0;
	if (tring_persist_csum(&copy, sizeof(copy)) != h->csum)
		return "header checksum mismatch";
	if (h->region_size != v->size)
		return "region size changed";
	why = tp_check_geometry(h) ?: tp_check_offsets(v, h);
	if (why)
		return why;
	v->h = h;
	why = tp_pick_meta(v);
	if (why)
		v->h = NULL;
	return why;
}

/* ---- one CPU ---- */

/**
 * struct tp_cpu - one CPU's ring while it is checked
 * @v: the region.
 * @cpu: the CPU.
 * @slots: its slots.
 * @data: its sub-buffers.
 * @sb: bytes per sub-buffer.
 * @newest: sequence number of the newest sub-buffer claimed.
 * @clock: the stream's time after the last record walked.
 */
struct tp_cpu {
	const struct tring_persist_view *v;
	unsigned int cpu;
	const struct tring_persist_slot *slots;
	const u8 *data;
	unsigned long sb;
	u64 newest;
	u64 clock;
};

#define TP_TAG(map)	((map) >> TRING_MAP_TAG_SHIFT)
#define TP_PHYS(map)	((map) & TRING_MAP_PHYS)

/* A slot's sequence number (its lap's sub-buffer index in the stream). */
static u64 tp_seq(const struct tp_cpu *c, unsigned int i)
{
	return (TP_TAG(c->slots[i].map) - 1) * c->v->h->nr_slots + i;
}

/*
 * The slots must map distinct sub-buffers and hold the last laps of one
 * ring: slot i the newest sequence number at most @newest that is i
 * modulo the slot count, or nothing yet (tag 0) if there is none.
 */
static const char *tp_check_slots(struct tp_cpu *c, u64 *used)
{
	unsigned int i, n = c->v->h->nr_slots, nr_phys = c->v->h->nr_phys;
	u64 s, newest = 0;
	bool any = false;

	for (i = 0; i < n; i++) {
		u64 map = c->slots[i].map, phys = TP_PHYS(map);

		if (phys >= nr_phys || used[phys / 64] & BIT_ULL(phys % 64))
			return "slots map a sub-buffer twice or none";
		used[phys / 64] |= BIT_ULL(phys % 64);
		if (!TP_TAG(map))
			continue;
		s = tp_seq(c, i);
		if (!any || s > newest)
			newest = s;
		any = true;
	}
	if (!any)
		return "nothing written";
	for (i = 0; i < n; i++) {
		s = newest - ((newest - i) % n);
		if (s > newest ? TP_TAG(c->slots[i].map) :
		    !TP_TAG(c->slots[i].map) || tp_seq(c, i) != s)
			return "slots are not the last laps of one ring";
	}
	c->newest = newest;
	return NULL;
}

/*
 * A record of an id described after the recovered metadata (an event
 * enabled after the last metadata the region kept): the trace is cut
 * before it, what comes before is kept.
 */
#define TP_UNDESCRIBED	(-2)
static const char tp_cut_undescribed[] =
	"cut at a record of an event the metadata kept does not describe";

/* The segments of event @id, if the recovered metadata describes it. */
static const struct tring_persist_seg *tp_segs(const struct tp_cpu *c, u32 id,
					       unsigned int *nr)
{
	const struct tring_persist_header *h = c->v->h;
	const struct tring_persist_layout *l;

	if (id >= h->layout_ids)
		return NULL;
	l = c->v->base + h->layout_off + (u64)id * sizeof(*l);
	*nr = l->nr_segs;
	if (!*nr || *nr > TRING_PERSIST_MAX_SEGS || l->seg > h->seg_max ||
	    h->seg_max - l->seg < *nr || l->meta_gen > c->v->meta_gen)
		return NULL;
	return c->v->base + h->seg_off + (u64)l->seg * sizeof(struct tring_persist_seg);
}

/* An integer of @size bytes at @p; -1 if @size is not one. */
static s64 tp_int(const u8 *p, unsigned int size)
{
	u64 n = 0;

	if (size > 8 || !tp_pow2(size))
		return -1;
	memcpy(&n, p, size);
	return n > S64_MAX ? -1 : (s64)n;
}

/*
 * Bytes segment @sg takes at payload offset @pos, @avail bytes from there
 * to the end of what may hold records; -1 if it does not fit.
 */
static s64 tp_seg_len(const struct tring_persist_seg *sg, const u8 *pl,
		      unsigned long pos, unsigned long avail)
{
	const u8 *nul;
	s64 n;

	switch (sg->kind) {
	case TRING_PS_FIXED:
		return sg->bytes;
	case TRING_PS_STRING:
		nul = memchr(pl + pos, 0, avail);
		return nul ? nul + 1 - (pl + pos) : -1;
	case TRING_PS_COUNTED:
		n = avail < 4 ? -1 : tp_int(pl + pos, 4);
		return n < 0 || n > (s64)(avail - 4) / (sg->elem ?: 1) ? -1 :
		       4 + n * sg->elem;
	case TRING_PS_COUNT_AT:
		if (sg->bytes > pos || sg->size > pos - sg->bytes)
			return -1;
		n = tp_int(pl + sg->bytes, sg->size);
		return n < 0 || n > (s64)avail / (sg->elem ?: 1) ? -1 :
		       n * sg->elem;
	}
	return -1;
}

/*
 * Is @id an event whose layout is whole but newer than the metadata
 * recovered: given out after the last metadata the region kept? Only
 * that is a cut; an id with no layout or a damaged one is damage.
 */
static bool tp_newer(const struct tp_cpu *c, u32 id)
{
	const struct tring_persist_header *h = c->v->h;
	const struct tring_persist_layout *l;

	if (id >= h->layout_ids)
		return false;
	l = c->v->base + h->layout_off + (u64)id * sizeof(*l);
	return l->nr_segs && l->nr_segs <= TRING_PERSIST_MAX_SEGS &&
	       l->seg <= h->seg_max && h->seg_max - l->seg >= l->nr_segs &&
	       l->meta_gen > c->v->meta_gen;
}

/*
 * Payload bytes of event @id at @pl, @avail bytes left; -1 if malformed,
 * TP_UNDESCRIBED if @id was described after the metadata recovered.
 */
static long tp_payload_len(const struct tp_cpu *c, u32 id, const u8 *pl,
			   unsigned long avail)
{
	const struct tring_persist_seg *sg;
	unsigned long pos = 0;
	unsigned int i, nr;
	s64 n;

	if (id == TRING_ID_NOP)
		return 0;
	if (id == TRING_ID_PADDING) {
		u32 sz;

		if (avail < 4)
			return -1;
		memcpy(&sz, pl, 4);
		return sz > avail - 4 ? -1 : 4 + (long)sz;
	}
	sg = tp_segs(c, id, &nr);
	if (!sg)
		return tp_newer(c, id) ? TP_UNDESCRIBED : -1;
	for (i = 0; i < nr; i++) {
		n = tp_seg_len(&sg[i], pl, pos, avail - pos);
		if (n < 0 || n > (s64)(avail - pos))
			return -1;
		pos += n;
	}
	return pos;
}

/* The stream's clock after a record's low timestamp bits (CTF 1.8). */
static u64 tp_clock_low(u64 clock, u32 low)
{
	const u64 mask = BIT_ULL(TRING_TS_BITS) - 1;
	u64 t = (clock & ~mask) | low;

	return t < clock ? t + mask + 1 : t;
}

/*
 * The record at @rec, @avail bytes before the end of what may hold
 * records: its length (4-byte multiple), with *@event 0 for a record
 * that is no event (padding, nop); -1 if it does not parse,
 * TP_UNDESCRIBED if its event is not described. Moves c->clock to the
 * record's time.
 */
static long tp_record(struct tp_cpu *c, const u8 *rec, unsigned long avail,
		      bool *event)
{
	u32 word, id, hlen = TRING_EVENT_HEADER_SIZE;
	u64 ts;
	long len;

	if (avail < 4)
		return -1;
	memcpy(&word, rec, 4);
	id = word & (BIT(TRING_ID_BITS) - 1);
	if (id == TRING_ID_EXTENDED) {
		hlen = TRING_EVENT_HEADER_EXT_SIZE;
		if (avail < hlen || word != TRING_ID_EXTENDED)
			return -1;
		memcpy(&id, rec + 4, 4);
		memcpy(&ts, rec + 8, 8);
		if (ts < c->clock)
			return -1;
		c->clock = ts;
	} else {
		if (id == TRING_ID_WIDE) {
			hlen = TRING_EVENT_HEADER_WIDE_SIZE;
			if (avail < hlen)
				return -1;
			memcpy(&id, rec + 4, 4);
		}
		c->clock = tp_clock_low(c->clock, word >> TRING_ID_BITS);
	}
	len = tp_payload_len(c, id, rec + hlen, avail - hlen);
	if (len == TP_UNDESCRIBED)
		return len;
	if (len < 0 || round_up((unsigned long)len, 4) > avail - hlen)
		return -1;
	*event = id != TRING_ID_PADDING && id != TRING_ID_NOP;
	return hlen + round_up(len, 4);
}

/* The packet header of physical sub-buffer @phys. */
static const struct tring_packet_header *tp_packet(const struct tp_cpu *c,
						   u64 phys)
{
	return (const void *)(c->data + phys * c->sb);
}

/* Do a packet's opening fields say it is sub-buffer @seq of this CPU? */
static bool tp_opened(const struct tp_cpu *c,
		      const struct tring_packet_header *ph, u64 seq)
{
	return ph->magic == TRING_PACKET_MAGIC && !ph->stream_id &&
	       ph->cpu_id == c->cpu && ph->packet_seq_num == seq &&
	       ph->packet_size == (u64)c->sb * 8 &&
	       ph->timestamp_begin >= c->clock;
}

/*
 * A complete packet: every record up to content_size, the counts agree.
 * At a record of an undescribed event, the packet is cut before it (to be
 * closed as an open one is) and tp_cut_undescribed returned.
 */
static const char *tp_walk_complete(struct tp_cpu *c,
				    const struct tring_packet_header *ph,
				    struct tring_persist_packet *pk)
{
	unsigned long b = TRING_PACKET_HEADER_SIZE, end;
	const u8 *p = (const u8 *)ph;
	bool event;
	long r;

	if (ph->content_size % 32 || ph->content_size / 8 < b ||
	    ph->content_size / 8 > c->sb || ph->timestamp_end < ph->timestamp_begin)
		return "a packet's header is inconsistent";
	end = ph->content_size / 8;
	c->clock = ph->timestamp_begin;
	pk->events = 0;
	while (b < end) {
		u64 clock = c->clock;

		r = tp_record(c, p + b, end - b, &event);
		if (r == TP_UNDESCRIBED) {
			pk->bytes = b;
			pk->ts_end = clock;
			pk->open = true;
			return tp_cut_undescribed;
		}
		if (r < 0)
			return "a record does not parse";
		pk->events += event;
		b += r;
	}
	if (pk->events != ph->events_count || c->clock > ph->timestamp_end)
		return "a packet's records disagree with its header";
	pk->bytes = c->sb;
	pk->ts_end = ph->timestamp_end;
	pk->open = false;
	return NULL;
}

/*
 * A packet a writer had open: the records that fit in the bytes
 * committed to it. The walk stops at the first record that does not
 * parse or would end past them; if that leaves committed bytes out, a
 * record there was reserved and never committed (its writer stopped),
 * and what nested writers committed after it is dropped with it.
 */
static void tp_walk_open(struct tp_cpu *c, const struct tring_persist_slot *s,
			 struct tring_persist_packet *pk,
			 struct tring_persist_plan *p)
{
	const struct tring_packet_header *ph = tp_packet(c, pk->phys);
	unsigned long b = TRING_PACKET_HEADER_SIZE, committed;
	const u8 *rec = (const u8 *)ph;
	bool event;
	long r;

	committed = (s->commit - s->done_commit) & (c->sb - 1);
	if (committed < b)
		committed = b;	/* the header itself was not committed yet */
	c->clock = ph->timestamp_begin;
	pk->events = 0;
	while (b < committed) {
		u64 clock = c->clock;

		r = tp_record(c, rec + b, c->sb - b, &event);
		if (r < 0 || b + r > committed) {
			c->clock = clock;
			break;
		}
		pk->events += event;
		b += r;
	}
	p->dropped_bytes += committed - b;
	if (b != committed ||
	    pk->events != (s->commit - s->done_commit) >>
			  TRING_COMMIT_EVENT_SHIFT)
		p->inexact = true;
	pk->bytes = b;
	pk->ts_end = c->clock;
	pk->open = true;
}

/* Keep the records of @pk before the cut, if any: the trace ends there. */
static const char *tp_keep_cut(struct tring_persist_packet *pk,
			       struct tring_persist_plan *p)
{
	if (pk->bytes > TRING_PACKET_HEADER_SIZE) {
		p->events += pk->events;
		p->nr++;
	}
	return tp_cut_undescribed;
}

/*
 * Lap @seq's sub-buffer into p->pk[p->nr], if it holds records: from the
 * ring, or, for a lap the reader took (TRING_MAP_TAKEN), from the
 * reader's sub-buffer @spare if that still holds it.
 */
static const char *tp_one(struct tp_cpu *c, u64 seq, u64 spare,
			  struct tring_persist_plan *p)
{
	u64 n = c->v->h->nr_slots, lap = seq / n;
	const struct tring_persist_slot *s = &c->slots[seq & (n - 1)];
	struct tring_persist_packet *pk = &p->pk[p->nr];
	const struct tring_packet_header *ph;
	u64 clock = c->clock;
	const char *why;

	if (s->done < lap || s->done > lap + 1)
		return "a slot's lap count is inconsistent";
	pk->phys = s->map & TRING_MAP_TAKEN ? spare : TP_PHYS(s->map);
	ph = tp_packet(c, pk->phys);
	if (s->map & TRING_MAP_TAKEN) {
		/* Gone with the reader unless it still holds it, whole. */
		if (!tp_opened(c, ph, seq) || tp_walk_complete(c, ph, pk)) {
			c->clock = clock;
			return NULL;
		}
	} else if (s->done == lap + 1) {
		if (!tp_opened(c, ph, seq))
			return "a complete packet's header is wrong";
		why = tp_walk_complete(c, ph, pk);
		if (why == tp_cut_undescribed)
			return tp_keep_cut(pk, p);
		if (why)
			return "a complete packet does not parse";
	} else if (!tp_opened(c, ph, seq)) {
		/* Claimed, never opened: nothing may be committed. */
		return s->commit == s->done_commit ? NULL :
		       "an open packet's header is wrong";
	} else {
		tp_walk_open(c, s, pk, p);
		if (pk->bytes == TRING_PACKET_HEADER_SIZE)
			return NULL;
	}
	p->events += pk->events;
	p->nr++;
	return NULL;
}

static const char *tp_cpu_init(const struct tring_persist_view *v,
			       unsigned int cpu, struct tp_cpu *c)
{
	const struct tring_persist_header *h = v->h;
	const struct tring_persist_cpu *pc;

	if (!h)
		return "no valid region";
	if (cpu >= h->nr_cpus)
		return "the CPU had no area";
	pc = v->base + h->cpu_off + cpu * h->cpu_stride;
	if (pc->magic != TRING_PERSIST_CPU_MAGIC || pc->cpu != cpu)
		return "the CPU had no ring";
	c->v = v;
	c->cpu = cpu;
	c->slots = (const void *)pc + h->slots_off;
	c->data = (const void *)pc + h->data_off;
	c->sb = 1UL << h->subbuf_shift;
	c->clock = 0;
	return NULL;
}

/* The physical sub-buffer no slot maps: the reader's. */
static u64 tp_spare(const struct tp_cpu *c, const u64 *used)
{
	u64 i;

	for (i = 0; i < c->v->h->nr_phys; i++)
		if (!(used[i / 64] & BIT_ULL(i % 64)))
			break;
	return i;
}

/**
 * tring_persist_check_cpu - what to keep of one CPU's ring
 * @v: a region tring_persist_check_header() accepted.
 * @cpu: the CPU.
 * @p: @pk (nr_phys entries) and @used (nr_phys bits, zeroed) set by the
 *	caller; the rest is filled in.
 *
 * Every sub-buffer of the ring is checked, oldest first, and the time
 * must never go back along the stream. Any doubt about a complete
 * packet or the slots discards the whole CPU (@why says why); the open
 * packets are cut (@dropped_bytes). A record of an event the metadata
 * does not describe ends the trace: what comes before it is kept
 * (@undescribed set).
 */
void tring_persist_check_cpu(const struct tring_persist_view *v,
			     unsigned int cpu, struct tring_persist_plan *p)
{
	struct tp_cpu c;
	u64 seq, first, n, spare;

	p->nr = 0;
	p->events = 0;
	p->dropped_bytes = 0;
	p->inexact = false;
	p->undescribed = false;
	p->why = tp_cpu_init(v, cpu, &c) ?: tp_check_slots(&c, p->used);
	if (p->why)
		return;
	n = v->h->nr_slots;
	spare = tp_spare(&c, p->used);
	first = c.newest >= n - 1 ? c.newest - (n - 1) : 0;
	for (seq = first; seq <= c.newest && !p->why; seq++)
		p->why = tp_one(&c, seq, spare, p);
	p->undescribed = p->why == tp_cut_undescribed;
	if (p->undescribed)
		p->why = NULL;
	if (p->why) {
		p->nr = 0;
		p->events = 0;
		p->dropped_bytes = 0;
	}
}

/**
 * tring_persist_close_packet - finish the header of a packet left open
 * @sb: a copy of the sub-buffer.
 * @pk: what tring_persist_check_cpu() found in it (@open set).
 * @subbuf_size: its bytes.
 *
 * Writes the closing fields a writer's switch would have written and
 * zeroes what follows the records kept, so the copy reads as a complete
 * packet. The loss count stays what the packet's opener left there (zero
 * or stale): the caller puts the previous packet's in.
 */
void tring_persist_close_packet(void *sb, const struct tring_persist_packet *pk,
				unsigned long subbuf_size)
{
	struct tring_packet_header *ph = sb;

	memset(sb + pk->bytes, 0, subbuf_size - pk->bytes);
	ph->content_size = (u64)pk->bytes * 8;
	ph->timestamp_end = pk->ts_end;
	ph->events_count = pk->events;
}
