// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the persistent region (kernel/trace/tring_persist_*.c).
 *
 * The core writes its rings into a region laid out by
 * tring_persist_layout.c; a "crash" is a copy of the region taken at any
 * point, a writer possibly between reserve and commit, nested writers
 * included. Recovery (tring_persist_check.c) must hand back exactly the
 * newest events written, in order, with their payloads, and must read
 * any damage (random bytes anywhere, another version or geometry)
 * without reading outside the region, refusing or cutting as documented.
 */
#include <linux/errno.h>

#include "twin.h"
#include "tring_decode.h"
#include "tring_persist.h"

#define SB		4096UL
#define REGION		(640UL << 10)
#define META_MAX	8192

/* ---- three events, one of each layout kind ---- */

struct ev_fixed { u64 seq; u32 a; } __attribute__((packed));
struct ev_str { u64 seq; };		/* then a string */
struct ev_bytes { u64 seq; u16 n; } __attribute__((packed)); /* then n bytes */

#define ID_FIXED	5
#define ID_BYTES	7
#define ID_STR		40
#define ID_GEN		41	/* a generic event's shape: fields around
				 * a string and a counted array */

static const struct tring_persist_seg gen_segs[] = {
	{ .kind = TRING_PS_FIXED, .bytes = 8 },
	{ .kind = TRING_PS_STRING },
	{ .kind = TRING_PS_FIXED, .bytes = 4 },
	{ .kind = TRING_PS_COUNTED, .elem = 2 },
};

static const struct tring_field f_fixed[] = {
	TRING_FIELD(struct ev_fixed, seq, U64),
	TRING_FIELD(struct ev_fixed, a, U32),
	{ }
};
static const struct tring_field f_str[] = {
	TRING_FIELD(struct ev_str, seq, U64),
	TRING_FIELD_TAIL(struct ev_str, s, STRING),
	{ }
};
static const struct tring_field f_bytes[] = {
	TRING_FIELD(struct ev_bytes, seq, U64),
	TRING_FIELD(struct ev_bytes, n, U16),
	TRING_FIELD_TAIL(struct ev_bytes, b, BYTES),
	{ }
};
static const struct tring_event_desc evs[] = {
	{ "t", "fixed", ID_FIXED, sizeof(struct ev_fixed), f_fixed },
	{ "t", "str", ID_STR, sizeof(struct ev_str), f_str },
	{ "t", "bytes", ID_BYTES, sizeof(struct ev_bytes), f_bytes },
};

/* Event @seq's id and payload, into @p; returns its length. */
static unsigned int payload_of(u64 seq, u32 *id, unsigned char *p)
{
	unsigned int i, n;

	if (seq % 4 == 3) {
		unsigned int pos;

		*id = ID_GEN;
		memcpy(p, &seq, 8);
		n = seq % 7;
		for (i = 0; i < n; i++)
			p[8 + i] = 'A' + (seq + i) % 26;
		p[8 + n] = 0;
		pos = 9 + n;
		memcpy(p + pos, &(u32){ seq }, 4);
		n = seq % 5;
		memcpy(p + pos + 4, &(u32){ n }, 4);
		for (i = 0; i < n; i++)
			memcpy(p + pos + 8 + 2 * i, &(u16){ seq + i }, 2);
		return pos + 8 + 2 * n;
	}
	switch (seq % 3) {
	case 0:
		*id = ID_FIXED;
		memcpy(p, &seq, 8);
		memcpy(p + 8, &(u32){ seq * 7 }, 4);
		return 12;
	case 1:
		*id = ID_STR;
		memcpy(p, &seq, 8);
		n = seq % 13;
		for (i = 0; i < n; i++)
			p[8 + i] = 'a' + (seq + i) % 26;
		p[8 + n] = 0;
		return 9 + n;
	default:
		*id = ID_BYTES;
		n = seq % 29;
		memcpy(p, &seq, 8);
		memcpy(p + 8, &(u16){ n }, 2);
		for (i = 0; i < n; i++)
			p[10 + i] = seq * 31 + i;
		return 10 + n;
	}
}

static long len_fn(uint32_t id, const uint8_t *pl, size_t avail, void *arg)
{
	u16 n;

	if (id == ID_FIXED)
		return 12;
	if (id == ID_STR) {
		const void *z = avail > 8 ? memchr(pl + 8, 0, avail - 8) : NULL;

		return z ? (const uint8_t *)z + 1 - pl : -1;
	}
	if (id == ID_GEN) {
		const uint8_t *z = avail > 8 ? memchr(pl + 8, 0, avail - 8) : NULL;
		u32 cnt;

		if (!z || (size_t)(z + 9 - pl) > avail)
			return -1;
		memcpy(&cnt, z + 5, 4);
		return z + 9 - pl + 2 * cnt;
	}
	if (id == ID_BYTES && avail >= 10) {
		memcpy(&n, pl + 8, 2);
		return 10 + n;
	}
	return -1;
}

/* ---- the region and a buffer in it ---- */

struct region {
	struct tring_ring_mem mem;	/* first: the provider's argument */
	unsigned char *base;
	struct tring_buffer *buf;
	u32 pool;
};

static void set_layout(struct region *r, const struct tring_event_desc *ev,
		       u32 gen)
{
	struct tring_persist_seg segs[2];
	unsigned int n = tring_persist_desc_segs(ev, segs);

	check_eq(tring_persist_set_layout(r->base, ev->id, segs, n, gen,
					  &r->pool), 0);
}

static void *region_cpu_area(struct tring_ring_mem *mem, unsigned int cpu,
			     struct tring_slot **slots, unsigned long *pfn)
{
	struct region *r = (struct region *)mem;
	const struct tring_persist_header *h = (const void *)r->base;
	void *s, *va;

	if (cpu >= h->nr_cpus)
		return NULL;
	va = tring_persist_cpu_area(r->base, cpu, &s);
	*slots = s;
	*pfn = 0;
	return va;
}

/* A formatted region with the events' layouts and metadata generation 1. */
static void region_make(struct region *r)
{
	struct tring_persist_header h;
	unsigned int i;

	r->base = aligned_alloc(4096, REGION);
	memset(r->base, 0xa5, REGION);	/* a previous boot's garbage */
	check_eq(tring_persist_geometry(REGION, TWIN_NR_CPUS, 12, META_MAX, &h), 0);
	h.clock = TRING_CLOCK_MONO;
	tring_persist_format(r->base, &h);
	r->pool = 0;
	for (i = 0; i < ARRAY_SIZE(evs); i++)
		set_layout(r, &evs[i], 1);
	check_eq(tring_persist_set_layout(r->base, ID_GEN, gen_segs,
					  ARRAY_SIZE(gen_segs), 1, &r->pool), 0);
	check_eq(tring_persist_put_meta(r->base, 1, "meta one", 8), 0);
	r->mem.cpu_area = region_cpu_area;
	r->buf = NULL;
}

static void region_buffer(struct region *r)
{
	const struct tring_persist_header *h = (const void *)r->base;
	struct tring_buffer_attr a = {
		.name = "persist", .subbuf_size = SB,
		.subbuf_count = h->nr_slots, .flags = TRING_OVERWRITE,
		.clock = TRING_CLOCK_MONO,
	};

	r->buf = tring_buffer_alloc_in(&a, &r->mem);
	if (IS_ERR(r->buf)) {
		check(0, "tring_buffer_alloc_in: %ld", PTR_ERR(r->buf));
		abort();
	}
}

static void region_free(struct region *r)
{
	if (r->buf)
		tring_buffer_free(r->buf);
	free(r->base);
}

static void write_seq(struct tring_buffer *buf, u64 seq)
{
	unsigned char p[64];
	struct tring_res res = { };
	unsigned int len;
	u32 id;

	len = payload_of(seq, &id, p);
	if (!check_eq(tring_reserve(buf, id, len, &res), 0))
		return;
	memcpy(res.data, p, len);
	tring_commit(&res);
}

/* ---- recovery, checked event by event ---- */

/**
 * struct got - what recovery handed back for one CPU
 * @first: sequence number of the first event.
 * @next: one past the last event of the run from @first.
 * @nr: events recovered.
 * @bad: events after the run that did not continue it.
 * @plan: the plan (@pk and @used freed).
 */
struct got {
	u64 first, next;
	unsigned long nr, bad;
	struct tring_persist_plan plan;
};

static void got_event(struct got *g, const struct tring_dec_event *e)
{
	unsigned char p[64];
	unsigned int len;
	u64 seq;
	u32 id;

	if (e->id == TRING_ID_PADDING || e->id == TRING_ID_NOP)
		return;
	memcpy(&seq, e->payload, 8);
	len = payload_of(seq, &id, p);
	if (g->bad || (g->nr && seq != g->next) || id != e->id ||
	    len != e->len || memcmp(p, e->payload, len)) {
		g->bad++;
		return;
	}
	if (!g->nr)
		g->first = seq;
	g->next = seq + 1;
	g->nr++;
}

/* Decode packet @pk of @cpu's area in @v into @g. */
static void got_packet(const struct tring_persist_view *v, unsigned int cpu,
		       const struct tring_persist_packet *pk, struct got *g)
{
	const struct tring_persist_header *h = v->h;
	unsigned char *sb = malloc(SB);
	struct tring_dec_event e;
	unsigned long events = 0;
	struct tring_dec d = { };
	int r;

	memcpy(sb, (unsigned char *)v->base + h->cpu_off + cpu * h->cpu_stride +
	       h->data_off + pk->phys * SB, SB);
	if (pk->open)
		tring_persist_close_packet(sb, pk, SB);
	if (check_eq(tring_dec_init(&d, sb, SB), 0)) {
		while ((r = tring_dec_next(&d, len_fn, NULL, &e)) == 1) {
			events += e.id != TRING_ID_PADDING && e.id != TRING_ID_NOP;
			got_event(g, &e);
		}
		check_eq(r, 0);
		check_eq(events, pk->events);
	}
	free(sb);
}

/* Recover @cpu from the region copy @snap; NULL or why not. */
static const char *recover(unsigned char *snap, unsigned int cpu, struct got *g)
{
	struct tring_persist_view v = { .base = snap, .size = REGION };
	const char *why = tring_persist_check_header(&v);
	unsigned int i;

	memset(g, 0, sizeof(*g));
	if (why)
		return why;
	g->plan.pk = calloc(v.h->nr_phys, sizeof(*g->plan.pk));
	g->plan.used = calloc((v.h->nr_phys + 63) / 64, 8);
	tring_persist_check_cpu(&v, cpu, &g->plan);
	for (i = 0; i < g->plan.nr; i++)
		got_packet(&v, cpu, &g->plan.pk[i], g);
	free(g->plan.pk);
	free(g->plan.used);
	g->plan.pk = NULL;
	return g->plan.why;
}

/* A crash now: what recovery makes of a copy of @r's region. */
static const char *crash(struct region *r, unsigned int cpu, struct got *g)
{
	unsigned char *snap = malloc(REGION);
	const char *why;

	memcpy(snap, r->base, REGION);
	why = recover(snap, cpu, g);
	free(snap);
	return why;
}

/* ---- cases ---- */

static void t_geometry(void)
{
	struct tring_persist_view v = { };
	struct tring_persist_header h;
	struct region r;

	check_eq(tring_persist_geometry(REGION, 8, 12, META_MAX, &h), 0);
	check(h.nr_slots >= 8 && !(h.nr_slots & (h.nr_slots - 1)),
	      "%u slots", h.nr_slots);
	check(h.cpu_off + 8 * h.cpu_stride <= REGION, "CPU areas fit");
	check(h.cpu_stride >= h.data_off + (u64)(h.nr_slots + 1) * SB,
	      "a CPU area holds its ring");
	check_eq(tring_persist_geometry(64 << 10, 8, 12, META_MAX, &h), -ENOSPC);
	check_eq(tring_persist_geometry(REGION, 64, 12, META_MAX, &h), -ENOSPC);
	region_make(&r);
	v.base = r.base;
	v.size = REGION;
	check(!tring_persist_check_header(&v), "a formatted region passes");
	check_eq(v.meta_gen, 1);
	check(v.meta_len == 8 && !memcmp(v.meta, "meta one", 8), "metadata");
	memset(r.base, 0, REGION);
	check(!strcmp(tring_persist_check_header(&v) ?: "", "no tring region"),
	      "a zeroed region is a cold boot");
	region_free(&r);
}

/* Crash after every few events, over several laps: always the newest. */
static void t_crash_points(void)
{
	struct region r;
	const struct tring_persist_header *h;
	unsigned long min_kept;
	const char *why;
	struct got g;
	u64 seq;

	region_make(&r);
	region_buffer(&r);
	h = (const void *)r.base;
	/* Records take at most 48 bytes: each full sub-buffer holds 84. */
	min_kept = (h->nr_slots - 1) * ((SB - 64) / 48);
	why = crash(&r, 0, &g);
	check(why && !strcmp(why, "nothing written"), "empty: %s", why);
	for (seq = 0; seq < 20000; seq++) {
		write_seq(r.buf, seq);
		if (seq > 40 && seq % 97 && seq % 1001)
			continue;
		why = crash(&r, 0, &g);
		if (!check(!why, "after %llu: %s", (unsigned long long)seq, why))
			break;
		check_eq(g.next, seq + 1);
		check_eq(g.bad, 0);
		check_eq(g.plan.dropped_bytes, 0);
		check(!g.plan.inexact, "exact");
		check(g.nr == seq + 1 || g.nr >= min_kept, "%lu kept after %llu",
		      g.nr, (unsigned long long)seq);
	}
	check(g.first > 0, "the ring wrapped (first kept %llu)",
	      (unsigned long long)g.first);
	region_free(&r);
}

static struct region *nest_region;
static unsigned char *nest_snap;

/* Nested writers, then the crash's copy (no allocation in a handler). */
static void nest_write(int level)
{
	write_seq(nest_region->buf, 1001);
	write_seq(nest_region->buf, 1002);
	memcpy(nest_snap, nest_region->base, REGION);
}

/* A writer stopped between reserve and commit, alone and nested into. */
static void t_inflight(void)
{
	unsigned char p[64];
	struct tring_res res = { };
	struct region r;
	unsigned int len;
	const char *why;
	struct got g;
	u64 seq;
	u32 id;

	region_make(&r);
	region_buffer(&r);
	for (seq = 0; seq < 1000; seq++)
		write_seq(r.buf, seq);
	len = payload_of(1000, &id, p);
	check_eq(tring_reserve(r.buf, id, len, &res), 0);
	check(!crash(&r, 0, &g), "reserved, not written");
	check_eq(g.next, 1000);
	check_eq(g.bad, 0);
	check(!g.plan.inexact && !g.plan.dropped_bytes, "exact");
	memcpy(res.data, p, len);
	check(!crash(&r, 0, &g), "written, not committed");
	check_eq(g.next, 1000);
	check(!g.plan.inexact, "exact");
	/* Nested writers commit after the stopped record. */
	nest_region = &r;
	nest_snap = malloc(REGION);
	twin_irq_fn[1] = nest_write;
	twin_raise(1);
	twin_irq_fn[1] = NULL;
	why = recover(nest_snap, 0, &g);
	free(nest_snap);
	check(!why, "nested: %s", why);
	check_eq(g.next, 1001);	/* 1000's payload is whole here */
	check(g.plan.inexact, "a stopped record under nested ones is flagged");
	tring_commit(&res);
	check(!crash(&r, 0, &g), "all committed");
	check_eq(g.next, 1003);
	check_eq(g.bad, 0);
	check(!g.plan.inexact, "exact again");
	region_free(&r);
}

/* A reader holding sub-buffers: their laps come from its sub-buffer. */
static void t_reader(void)
{
	struct tring_subbuf sb;
	struct tring_cpu *cb;
	struct region r;
	unsigned long before;
	struct got g;
	u64 seq;

	region_make(&r);
	region_buffer(&r);
	cb = twin_cb(r.buf, 0);
	for (seq = 0; seq < 5000; seq++)
		write_seq(r.buf, seq);
	check(!crash(&r, 0, &g), "before the reader");
	before = g.nr;
	check_eq(tring_cpu_get(cb, &sb), 0);
	check(!crash(&r, 0, &g), "the reader holds one");
	check_eq(g.next, 5000);
	check_eq(g.bad, 0);
	check_eq(g.nr, before);
	check_eq(tring_cpu_put(cb, sb.seq, 1), 0);
	for (; seq < 5100; seq++)
		write_seq(r.buf, seq);
	check(!crash(&r, 0, &g), "after it gave it back");
	check_eq(g.next, 5100);
	check_eq(g.bad, 0);
	tring_cpu_reader_reset(cb);
	region_free(&r);
}

/* A region that has wrapped its ring a few times, and a copy of it. */
static unsigned char *good_copy(void)
{
	unsigned char *snap = malloc(REGION);
	struct region r;
	u64 seq;

	region_make(&r);
	region_buffer(&r);
	for (seq = 0; seq < 8000; seq++)
		write_seq(r.buf, seq);
	memcpy(snap, r.base, REGION);
	region_free(&r);
	return snap;
}

/* Rewrite a header field of @snap and its checksum. */
static void reheader(unsigned char *snap, void (*fn)(struct tring_persist_header *h))
{
	struct tring_persist_header *h = (void *)snap;

	fn(h);
	h->csum = 0;
	h->csum = tring_persist_csum(h, sizeof(*h));
}

static void h_version(struct tring_persist_header *h) { h->version++; }
static void h_shift(struct tring_persist_header *h) { h->subbuf_shift++; }
static void h_slots(struct tring_persist_header *h) { h->nr_slots *= 2; h->nr_phys = h->nr_slots + 1; }
static void h_size(struct tring_persist_header *h) { h->region_size -= 4096; }
static void h_cpus(struct tring_persist_header *h) { h->nr_cpus = 1000; }

static void t_other_versions(void)
{
	static const struct {
		void (*fn)(struct tring_persist_header *h);
		const char *name;
	} C[] = {
		{ h_version, "version" }, { h_shift, "sub-buffer size" },
		{ h_slots, "slot count" }, { h_size, "region size" },
		{ h_cpus, "CPU count" },
	};
	unsigned char *good = good_copy(), *snap = malloc(REGION);
	struct got g;
	unsigned int i;

	check(!recover(good, 0, &g) && g.nr > 1000 && !g.bad, "the good copy");
	for (i = 0; i < ARRAY_SIZE(C); i++) {
		memcpy(snap, good, REGION);
		reheader(snap, C[i].fn);
		check(recover(snap, 0, &g), "another %s is refused", C[i].name);
		check_eq(g.nr, 0);
	}
	memcpy(snap, good, REGION);
	snap[17] ^= 1;
	check(!strcmp(recover(snap, 0, &g) ?: "", "header checksum mismatch"),
	      "a flipped header bit");
	free(snap);
	free(good);
}

/* Metadata copies: the newer whole one; layouts it does not cover. */
static void t_metadata(void)
{
	struct tring_persist_view v = { .size = REGION };
	const struct tring_persist_header *h;
	struct region r;
	struct got g;
	u64 seq;

	region_make(&r);
	h = (const void *)r.base;
	v.base = r.base;
	check_eq(tring_persist_put_meta(r.base, 2, "meta two", 8), 0);
	check(!tring_persist_check_header(&v) && v.meta_gen == 2, "gen 2");
	check_eq(tring_persist_put_meta(r.base, 3, "meta three", 10), 0);
	check(!tring_persist_check_header(&v) && v.meta_gen == 3, "gen 3");
	/* gen 3 went over gen 1's copy; damage it: gen 2 is used. */
	r.base[h->meta_off + sizeof(struct tring_persist_meta)] ^= 0x20;
	check(!tring_persist_check_header(&v) && v.meta_gen == 2, "gen 2 again");
	check(v.meta_len == 8 && !memcmp(v.meta, "meta two", 8), "its text");
	r.base[h->meta_off + h->meta_max + sizeof(struct tring_persist_meta)] ^= 1;
	check(!strcmp(tring_persist_check_header(&v) ?: "", "no valid metadata"),
	      "both damaged");
	check_eq(tring_persist_put_meta(r.base, 4, "x", REGION), -E2BIG);
	/* An id whose layout is newer than the metadata kept. */
	check_eq(tring_persist_put_meta(r.base, 5, "meta five", 9), 0);
	set_layout(&r, &evs[1], 6);
	region_buffer(&r);
	for (seq = 0; seq < 3000; seq++)
		write_seq(r.buf, seq);
	check(!crash(&r, 0, &g), "records of an undescribed id: the CPU is kept");
	check(g.plan.undescribed && !g.bad, "cut before the first of them");
	region_free(&r);
}

/*
 * An event enabled after the last metadata kept: the trace is cut at its
 * first record, and every record before it is kept (not the whole CPU
 * discarded).
 */
static void t_undescribed(void)
{
	struct region r;
	struct got g;
	u64 k;

	region_make(&r);
	set_layout(&r, &evs[1], 2);	/* t:str, in no metadata kept */
	region_buffer(&r);
	for (k = 0; k < 500; k++)
		write_seq(r.buf, 12 * k);	/* t:fixed */
	write_seq(r.buf, 1);			/* t:str */
	for (k = 0; k < 10; k++)
		write_seq(r.buf, 12 * k);
	check(!crash(&r, 0, &g), "not discarded");
	check(g.plan.undescribed, "cut at the undescribed record");
	check_eq(g.plan.events, 500);
	check(g.plan.nr >= 2, "the packets before it kept: %u", g.plan.nr);
	region_free(&r);
}

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random bytes over each part of the region: read safely, or refused. */
static void t_fuzz(void)
{
	unsigned char *good = good_copy(), *snap = malloc(REGION);
	const struct tring_persist_header *h = (const void *)good;
	u64 zone[][2] = {
		{ 0, sizeof(*h) },
		{ h->layout_off, 64 * sizeof(struct tring_persist_layout) },
		{ h->seg_off, 16 * sizeof(struct tring_persist_seg) },
		{ h->meta_off, 2 * h->meta_max },
		{ h->cpu_off, h->data_off },			/* CPU 0's slots */
		{ h->cpu_off + h->data_off, h->cpu_stride - h->data_off },
		{ 0, REGION },
	};
	unsigned long refused[ARRAY_SIZE(zone)] = { }, runs = 3500, i, k;
	struct got g;
	unsigned int z;
	const char *why;

	for (i = 0; i < runs; i++) {
		z = i % ARRAY_SIZE(zone);
		memcpy(snap, good, REGION);
		for (k = 1 + rnd() % 8; k; k--)
			snap[zone[z][0] + rnd() % zone[z][1]] ^= 1 + rnd() % 255;
		why = recover(snap, 0, &g);
		refused[z] += !!why;
		if (!why)
			check(g.nr + g.bad == g.plan.events,
			      "run %lu: events decoded %lu+%lu, planned %llu", i,
			      g.nr, g.bad, (unsigned long long)g.plan.events);
	}
	check_eq(refused[0], runs / ARRAY_SIZE(zone));
	tap_diag("refused per zone (header, layout, segments, metadata, slots, packets, anywhere) of %lu: %lu %lu %lu %lu %lu %lu %lu",
		 runs / ARRAY_SIZE(zone), refused[0], refused[1], refused[2],
		 refused[3], refused[4], refused[5], refused[6]);
	free(snap);
	free(good);
}

int main(void)
{
	static const struct {
		void (*fn)(void);
		const char *name;
	} cases[] = {
		{ t_geometry, "persist: geometry, format, cold boot" },
		{ t_crash_points, "persist: a crash anywhere keeps the newest events, exact" },
		{ t_inflight, "persist: a writer stopped between reserve and commit" },
		{ t_reader, "persist: laps a reader holds come from its sub-buffer" },
		{ t_other_versions, "persist: another version or geometry is refused" },
		{ t_metadata, "persist: metadata copies, undescribed ids" },
		{ t_undescribed, "persist: an undescribed record cuts the trace, what came before is kept" },
		{ t_fuzz, "persist: random damage is read safely or refused" },
	};
	unsigned int i;

	tap_plan_begin("twin_persist");
	twin_levels_install();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cases[i].fn();
		check_eq(twin_load(&twin_warnings), 0);
		tap_result(cases[i].name);
	}
	return tap_finish();
}
