// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: unit cases of the ring buffer core: nested writers, the
 * sub-buffer cache, claims, counts and CPUs.
 * twin_unit.c runs them; twin_unit.h has what they share.
 */
#include "twin_unit.h"

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

void t_nesting_deep(void)
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

void t_nested_in_open(void)
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

void t_cache(void)
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

void t_cache_busy(void)
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

void t_claim_window(void)
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

void t_stale_claim(void)
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

void t_discarded_monotonic(void)
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

void t_counts_and_cpus(void)
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
void t_rings_online_only(void)
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
void t_memory_guard(void)
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
void t_event_count_wrap(void)
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
