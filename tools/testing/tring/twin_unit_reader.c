// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: unit cases of the ring buffer core: the reader: get and put,
 * reset, unget, poll and wakeups.
 * twin_unit.c runs them; twin_unit.h has what they share.
 */
#include "twin_unit.h"

void t_get_put_errors(void)
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

void t_reader_reset(void)
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
void t_unget(void)
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

void t_poll_ready(void)
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
void t_poll_held_full(void)
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

void t_poll_wakeup(void)
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
void t_poll_held_wakeup(void)
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

void t_wait_flush_race(void)
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
