// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: stress test.
 *
 * NW writer threads, one per CPU, write as fast as they can in task
 * context while three per-thread POSIX timers (SIGEV_THREAD_ID) raise
 * the level 1, 2 and 3 signals (softirq, hardirq, NMI) whose handlers
 * write bursts too. Every context sometimes raises the next level itself
 * between a reservation and its commit, so nesting 4 deep (task, softirq,
 * hardirq, NMI, all with a reservation open) happens in every build, even
 * under ThreadSanitizer, which defers asynchronous signals. Writers also
 * give reservations back (tring_discard()), try events too big for any
 * sub-buffer and write events of exactly max_payload.
 *
 * One reader thread serves every CPU: takes sub-buffers (several at once
 * in discard mode), checks and decodes them, sometimes holds them a
 * while (checking that a held sub-buffer does not change), sometimes
 * "closes" (tring_cpu_reader_reset(): the same sub-buffers must come
 * back), flushes CPUs by IPI while their writers run and sleeps in
 * tring_cpu_wait().
 *
 * Every event's payload starts with struct sev: its length, CPU, context
 * (0 task .. 3 NMI), the sequence number of the event in its (CPU,
 * context) stream, counted over committed events only, the id it was
 * written with and a checksum of the whole payload.
 *
 * At the end writers stop (their timers deleted, their handlers made
 * inert), the reader flushes every CPU and drains it. Then, per CPU,
 * with C = events committed (tring_commit() returned), E = reservations
 * refused with -ENOBUFS, B = refused with -E2BIG, all counted by the
 * writers themselves, R = events read and checked:
 *
 *   E == the core's events_discarded, B == its events_too_big,
 *   C == tring_cpu_counts().events_written,
 *   discard mode:   R == C, events_overwritten == 0, and every (CPU,
 *                   context) stream was read as exactly 0, 1, ..., n - 1;
 *   overwrite mode: R + events_overwritten == C, every stream strictly
 *                   increasing;
 *
 * with no tolerance, plus: no torn or foreign payload, every packet
 * header exact, packets in sequence (discard) or increasing (overwrite),
 * time never going back, no lost wakeup and no core warning.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "twin.h"
#include "tring_decode.h"

/* glibc before 2.35 spells the thread id field of a sigevent this way. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id	_sigev_un._tid
#endif

#define NW		3	/* writer CPUs */
#define NCTX		4	/* task, softirq, hardirq, NMI */
#define SEV_MIN		(sizeof(struct sev))
#define SEV_ID_X	0x5eed0000U	/* base of extended ids */
#define DISCARD_MARK	0xd15cU

struct sev {
	u32 len;
	u8 cpu;
	u8 ctx;
	u16 mark;
	u64 seq;
	u32 id;
	u32 csum;
};

/* ---- configuration ---- */

static double seconds = 2.0;
static struct tring_buffer *buf;
static bool overwrite;

/* ---- writers ---- */

struct wcount {
	unsigned long committed;	/* also the next sequence number */
	unsigned long enobufs;
	unsigned long e2big;
	unsigned long given_back;	/* tring_discard() */
	unsigned long attempts;
};

struct writer {
	int cpu;
	pthread_t thread;
	struct wcount c[NCTX];		/* published when parked */
	int max_open;			/* most reservations open at once */
	int max_nest;			/* deepest handler nesting */
	unsigned long timer_ticks;
	int parked;
};

static struct writer writers[NW];
static int stop_req, exit_req;

/* Per thread: the writer's live state, touched by its handlers. */
static __thread struct wcount tc[NCTX];
static __thread volatile sig_atomic_t t_stopped;
static __thread int t_open, t_max_open;
static __thread unsigned long t_ticks;
static __thread u64 t_rng[NCTX];

static inline u64 rnd(int ctx)
{
	u64 x = t_rng[ctx];

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t_rng[ctx] = x;
	return x;
}

/* Payloads are only 4-byte aligned: struct sev goes in with memcpy. */
static void fill(void *p, unsigned int len, int cpu, int ctx, u64 seq, u32 id,
		 u16 mark)
{
	struct sev e = {
		.len = len, .cpu = cpu, .ctx = ctx, .mark = mark,
		.seq = seq, .id = id,
	};
	unsigned char *b = p;
	u64 x = seq * 0x9e3779b97f4a7c15ULL + cpu * 131 + ctx + 1;
	unsigned int i;

	memcpy(p, &e, sizeof(e));
	for (i = SEV_MIN; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (unsigned char)x;
	}
	e.csum = twin_hash(p, len, TWIN_HASH_SEED);
	memcpy(b + offsetof(struct sev, csum), &e.csum, sizeof(e.csum));
}

static void after_reserve(void)
{
	if (++t_open > t_max_open)
		t_max_open = t_open;
}

/*
 * One write attempt from context @ctx. Sometimes the next level's signal
 * is raised between reserve and commit.
 */
static int write_one(int ctx)
{
	struct tring_cpu *cb = this_cpu_ptr(buf->cpus);
	unsigned int max = cb->max_payload, len;
	u64 r = rnd(ctx);
	struct tring_res res = { };
	u32 id;
	int ret;

	id = 2 + r % 29;
	if (r % 23 == 0)
		id = SEV_ID_X + (u32)(r >> 40) % 1000;
	len = SEV_MIN + (r >> 8) % 200;
	if ((r >> 16) % 4096 == 0)
		len = max;
	tc[ctx].attempts++;
	if ((r >> 20) % 509 == 0) {
		/* Too big for any sub-buffer and any header. */
		len = max + 13 + (r >> 32) % 64;
		ret = tring_reserve(buf, id, len, &res);
		if (ret == -E2BIG)
			tc[ctx].e2big++;
		else
			abort();
		return ret;
	}
	ret = tring_reserve(buf, id, len, &res);
	if (ret) {
		if (ret == -ENOBUFS)
			tc[ctx].enobufs++;
		else if (ret == -E2BIG)
			tc[ctx].e2big++;
		else
			abort();
		return ret;
	}
	after_reserve();
	if ((r >> 30) % 61 == 0) {
		/* Given back (or turned into padding): never read. */
		fill(res.data, len, cb->cpu, ctx, ~0ULL, id, DISCARD_MARK);
		if (ctx < NCTX - 1 && (r >> 36) % 2)
			twin_raise(ctx + 1);
		tring_discard(&res);
		t_open--;
		tc[ctx].given_back++;
		return 0;
	}
	fill(res.data, len, cb->cpu, ctx, tc[ctx].committed, id, 0);
	if (ctx < NCTX - 1 && (r >> 44) % (ctx ? 6 : 97) == 0)
		twin_raise(ctx + 1);
	tring_commit(&res);
	t_open--;
	tc[ctx].committed++;
	return 0;
}

static void irq_level(int level)
{
	u64 r;
	int n;

	if (t_stopped)
		return;
	t_ticks++;
	r = rnd(level);
	n = 1 + r % 4;
	if ((r >> 10) % 97 == 0)
		n = 100 + (r >> 20) % 200;	/* crosses sub-buffers */
	while (n--)
		write_one(level);
}

static timer_t make_timer(int level, long period_ns)
{
	struct sigevent sev = { 0 };
	struct itimerspec its = { 0 };
	timer_t t;

	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = TWIN_SIG_LEVEL(level);
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &t))
		abort();
	its.it_value.tv_nsec = period_ns;
	its.it_interval.tv_nsec = period_ns;
	if (timer_settime(t, 0, &its, NULL))
		abort();
	return t;
}

static void *writer_fn(void *arg)
{
	static const long period[NCTX] = { 0, 173000, 241000, 331000 };
	struct writer *w = arg;
	timer_t timers[NCTX];
	unsigned long n = 0, full = 0;
	int l;

	twin_cpu_register(w->cpu);
	for (l = 0; l < NCTX; l++)
		t_rng[l] = 0x1234567ULL * (w->cpu + 1) + 7919 * (l + 1);
	for (l = 1; l < NCTX; l++)
		twin_irq_fn[l] = irq_level;
	for (l = 1; l < NCTX; l++)
		timers[l] = make_timer(l, period[l]);
	while (!__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE)) {
		/*
		 * One reader serves NW writers on a small machine: pace the
		 * writers so that most events are read, and back off while
		 * the buffer is full so that losses stay a minority.
		 */
		if (write_one(0) == -ENOBUFS && ++full % 8 == 0)
			usleep(200);
		if (++n % 64 == 0) {
			usleep(50);
			twin_task_context();
		}
	}
	/* Handlers from here on do nothing; then no more timer signals. */
	t_stopped = 1;
	for (l = 1; l < NCTX; l++)
		timer_delete(timers[l]);
	memcpy(w->c, tc, sizeof(tc));
	w->max_open = t_max_open;
	w->max_nest = twin_max_nest_depth;
	w->timer_ticks = t_ticks;
	__atomic_store_n(&w->parked, 1, __ATOMIC_RELEASE);
	/* Stay online: the reader's final flush comes here by IPI. */
	while (!__atomic_load_n(&exit_req, __ATOMIC_ACQUIRE)) {
		twin_task_context();
		usleep(200);
	}
	twin_cpu_unregister();
	return NULL;
}

/* ---- reader ---- */

struct stream {
	u64 last_seq;		/* last sequence number read + 1 */
	unsigned long read;
};

struct pkt {
	u64 seq;
	u64 begin, end, first_ts, last_ts;
	u64 discarded;
	unsigned long events;
	u64 first[NCTX], last[NCTX];	/* seq + 1, 0: none */
	unsigned long count[NCTX];
};

struct rcpu {
	struct tring_cpu *cb;
	struct stream s[NCTX];
	u64 next_pkt;		/* discard: expected; overwrite: minimum */
	u64 last_end, last_ts;
	unsigned long events_read, packets_read, gaps;
	struct pkt last;
	bool any;
};

static struct rcpu rc[NW];
static int final_req, reader_waits_off;
static unsigned long errors;
static char first_error[256];
static unsigned long resets, holds_checked, waits, flushes, max_held;

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;

	if (errors++ < 20) {
		va_start(ap, fmt);
		printf("# ");
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
	}
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
}

static long stress_len(uint32_t id, const uint8_t *payload, size_t avail,
		       void *arg)
{
	u32 len;

	if (avail < SEV_MIN)
		return -1;
	memcpy(&len, payload, 4);
	if (len < SEV_MIN || len > avail)
		return -1;
	return len;
}

/* Check and decode one held sub-buffer into @p. */
static bool check_packet(struct rcpu *r, int cpu, const struct tring_subbuf *sb,
			 struct pkt *p)
{
	struct tring_cpu *cb = r->cb;
	const struct tring_packet_header *h = twin_subbuf_va(cb, sb);
	const char *bad = twin_check_packet(cb, sb);
	struct tring_dec_event e;
	struct tring_dec d;
	static unsigned char tmp[1 << 16];
	struct sev ev;
	int ret;

	if (bad) {
		err("cpu %d packet %llu: %s", cpu, (unsigned long long)sb->seq,
		    bad);
		return false;
	}
	memset(p, 0, sizeof(*p));
	p->seq = sb->seq;
	p->begin = h->timestamp_begin;
	p->end = h->timestamp_end;
	p->discarded = h->events_discarded;
	p->first_ts = p->last_ts = h->timestamp_begin;
	if (tring_dec_init(&d, h, cb->subbuf_size)) {
		err("cpu %d packet %llu: decoder refuses the header", cpu,
		    (unsigned long long)sb->seq);
		return false;
	}
	while ((ret = tring_dec_next(&d, stress_len, NULL, &e)) == 1) {
		if (e.ts > h->timestamp_end) {
			err("cpu %d packet %llu: event after timestamp_end", cpu,
			    (unsigned long long)sb->seq);
			return false;
		}
		if (e.id < TRING_ID_FIRST_EVENT)
			continue;
		memcpy(&ev, e.payload, sizeof(ev));
		if (ev.mark == DISCARD_MARK) {
			err("cpu %d: a discarded reservation was published", cpu);
			return false;
		}
		/* The checksum covers the payload with its own field zero. */
		memcpy(tmp, e.payload, e.len);
		memset(tmp + offsetof(struct sev, csum), 0, sizeof(ev.csum));
		if (twin_hash(tmp, e.len, TWIN_HASH_SEED) != ev.csum) {
			err("cpu %d packet %llu: torn payload (ctx %u seq %llu)",
			    cpu, (unsigned long long)sb->seq, ev.ctx,
			    (unsigned long long)ev.seq);
			return false;
		}
		if (ev.cpu != cpu || ev.ctx >= NCTX || ev.id != e.id ||
		    ev.len != e.len) {
			err("cpu %d packet %llu: foreign event (cpu %u ctx %u "
			    "id %u/%u)", cpu, (unsigned long long)sb->seq,
			    ev.cpu, ev.ctx, ev.id, e.id);
			return false;
		}
		if (e.id >= TRING_ID_WIDE && e.hlen == TRING_EVENT_HEADER_SIZE) {
			err("cpu %d: wide id in a compact header", cpu);
			return false;
		}
		if (p->last[ev.ctx] && ev.seq + 1 <= p->last[ev.ctx]) {
			err("cpu %d packet %llu: ctx %u seq %llu after %llu",
			    cpu, (unsigned long long)sb->seq, ev.ctx,
			    (unsigned long long)ev.seq,
			    (unsigned long long)p->last[ev.ctx] - 1);
			return false;
		}
		if (!overwrite && p->last[ev.ctx] &&
		    ev.seq != p->last[ev.ctx]) {
			err("cpu %d packet %llu: ctx %u seq gap %llu -> %llu",
			    cpu, (unsigned long long)sb->seq, ev.ctx,
			    (unsigned long long)p->last[ev.ctx] - 1,
			    (unsigned long long)ev.seq);
			return false;
		}
		if (!p->first[ev.ctx])
			p->first[ev.ctx] = ev.seq + 1;
		p->last[ev.ctx] = ev.seq + 1;
		p->count[ev.ctx]++;
		if (!p->events)
			p->first_ts = e.ts;
		p->last_ts = e.ts;
		p->events++;
	}
	if (ret) {
		err("cpu %d packet %llu: decoder fails at byte %ld", cpu,
		    (unsigned long long)sb->seq,
		    (long)((const char *)d.pos - (const char *)h));
		return false;
	}
	if (p->events != h->events_count) {
		err("cpu %d packet %llu: events_count %u, %lu events", cpu,
		    (unsigned long long)sb->seq, h->events_count, p->events);
		return false;
	}
	if (h->events_discarded > tring_cpu_losses(cb)) {
		err("cpu %d packet %llu: events_discarded %llu > losses", cpu,
		    (unsigned long long)sb->seq,
		    (unsigned long long)h->events_discarded);
		return false;
	}
	return true;
}

/* A packet given back: fold it into its CPU's streams. */
static void account(struct rcpu *r, int cpu, const struct pkt *p)
{
	int c;

	if (r->any && !overwrite && p->seq != r->next_pkt)
		err("cpu %d: packet %llu after %llu", cpu,
		    (unsigned long long)p->seq,
		    (unsigned long long)r->next_pkt - 1);
	if (r->any && p->seq < r->next_pkt)
		err("cpu %d: packet %llu again or back", cpu,
		    (unsigned long long)p->seq);
	if (!overwrite && !r->any && p->seq != 0)
		err("cpu %d: first packet is %llu", cpu,
		    (unsigned long long)p->seq);
	if (r->any && p->seq > r->next_pkt)
		r->gaps += p->seq - r->next_pkt;
	if (r->any && p->begin < r->last_end)
		err("cpu %d packet %llu: begins before the previous one ends",
		    cpu, (unsigned long long)p->seq);
	if (p->events && p->first_ts < r->last_ts)
		err("cpu %d packet %llu: time goes back across packets", cpu,
		    (unsigned long long)p->seq);
	for (c = 0; c < NCTX; c++) {
		struct stream *s = &r->s[c];

		if (!p->count[c])
			continue;
		if (overwrite ? p->first[c] <= s->last_seq :
				p->first[c] != s->last_seq + 1)
			err("cpu %d ctx %d: seq %llu after %llu", cpu, c,
			    (unsigned long long)p->first[c] - 1,
			    (unsigned long long)s->last_seq - 1);
		s->last_seq = p->last[c];
		s->read += p->count[c];
	}
	r->events_read += p->events;
	r->packets_read++;
	r->next_pkt = p->seq + 1;
	r->last_end = p->end;
	if (p->events)
		r->last_ts = p->last_ts;
	r->last = *p;
	r->any = true;
}

static unsigned long long rsleep_rng = 88172645463325252ULL;

static unsigned long rrnd(void)
{
	rsleep_rng ^= rsleep_rng << 13;
	rsleep_rng ^= rsleep_rng >> 7;
	rsleep_rng ^= rsleep_rng << 17;
	return rsleep_rng;
}

#define MAXHELD 4

/* Serve one CPU once; returns sub-buffers taken. */
static int serve(int cpu, bool final)
{
	struct rcpu *r = &rc[cpu];
	struct tring_cpu *cb = r->cb;
	struct tring_subbuf sb[MAXHELD], again;
	static struct pkt p[MAXHELD];
	unsigned int h1 = 0, h2;
	int n = 0, want, i, ret;
	unsigned long x = rrnd();

	want = overwrite ? 1 : 1 + x % MAXHELD;
	while (n < want) {
		ret = tring_cpu_get(cb, &sb[n]);
		if (ret == -EAGAIN)
			break;
		if (ret) {
			err("cpu %d: tring_cpu_get: %d", cpu, ret);
			return n;
		}
		if (!check_packet(r, cpu, &sb[n], &p[n]))
			return -1;
		n++;
	}
	if (!n)
		return 0;
	if ((unsigned long)n > max_held)
		max_held = n;
	if (!final && (x >> 8) % 16 == 0) {
		/* Hold a while: writers lap us in overwrite mode. */
		h1 = twin_hash(twin_subbuf_va(cb, &sb[0]), cb->subbuf_size,
			       TWIN_HASH_SEED);
		usleep(200 + (x >> 12) % 800);
		h2 = twin_hash(twin_subbuf_va(cb, &sb[0]), cb->subbuf_size,
			       TWIN_HASH_SEED);
		if (h1 != h2)
			err("cpu %d packet %llu: changed while held", cpu,
			    (unsigned long long)sb[0].seq);
		holds_checked++;
	}
	if (!final && (x >> 20) % 64 == 0) {
		/* The reader closes: the same sub-buffers come back. */
		tring_cpu_reader_reset(cb);
		resets++;
		ret = tring_cpu_get(cb, &again);
		if (ret || again.seq != sb[0].seq ||
		    again.offset != sb[0].offset)
			err("cpu %d: after a reset got %d seq %llu, want %llu",
			    cpu, ret, (unsigned long long)again.seq,
			    (unsigned long long)sb[0].seq);
		if (!ret && tring_cpu_put(cb, again.seq, 1))
			err("cpu %d: put after reset", cpu);
		if (!ret)
			account(r, cpu, &p[0]);
		return 1;
	}
	ret = tring_cpu_put(cb, sb[0].seq, n);
	if (ret) {
		err("cpu %d: tring_cpu_put: %d", cpu, ret);
		return -1;
	}
	for (i = 0; i < n; i++)
		account(r, cpu, &p[i]);
	return n;
}

static void *reader_fn(void *arg)
{
	unsigned long iter = 0;
	int cpu, got, total;

	while (!__atomic_load_n(&final_req, __ATOMIC_ACQUIRE)) {
		total = 0;
		for (cpu = 0; cpu < NW; cpu++) {
			got = serve(cpu, false);
			if (got < 0)
				return NULL;
			total += got;
		}
		iter++;
		if (iter % 37 == 0) {
			/* Every other one makes an empty packet if it can. */
			tring_cpu_flush_ts(rc[iter % NW].cb, iter & 1, NULL);
			flushes++;
		}
		if (iter % 101 == 0 &&
		    !__atomic_load_n(&reader_waits_off, __ATOMIC_ACQUIRE)) {
			struct tring_cpu *cb = rc[iter % NW].cb;

			if (tring_cpu_wait(cb))
				err("tring_cpu_wait failed");
			waits++;
		}
		if (!total)
			usleep(100);
	}
	/* Writers are parked: close what they left open and drain. */
	for (cpu = 0; cpu < NW; cpu++) {
		tring_cpu_flush(rc[cpu].cb);
		while ((got = serve(cpu, true)) > 0)
			;
		if (got < 0)
			return NULL;
	}
	return NULL;
}

/* ---- one run ---- */

static void run(bool ow, size_t subbuf, unsigned int count)
{
	unsigned long lost0 = twin_load(&twin_lost_wakeups);
	unsigned long warn0 = twin_load(&twin_warnings);
	unsigned long give0 = twin_load(&twin_wait_give_ups);
	unsigned long held0 = twin_load(&twin_mask_violations);
	unsigned long long t0;
	struct tring_counts cnt;
	pthread_t reader;
	char name[96];
	int i, c, max_open = 0, max_nest = 0;
	unsigned long ticks = 0, total_c = 0, total_r = 0, total_lost = 0;
	unsigned long total_gb = 0;

	snprintf(name, sizeof(name), "%s, %zu KiB x %u",
		 ow ? "overwrite" : "discard", subbuf / 1024, count);
	overwrite = ow;
	buf = twin_buffer(subbuf, count, ow ? TRING_OVERWRITE : 0,
			  TRING_CLOCK_MONO, 0);
	memset(rc, 0, sizeof(rc));
	memset(writers, 0, sizeof(writers));
	errors = resets = holds_checked = waits = flushes = max_held = 0;
	first_error[0] = 0;
	stop_req = exit_req = final_req = reader_waits_off = 0;
	for (i = 0; i < NW; i++) {
		rc[i].cb = twin_cb(buf, i);
		writers[i].cpu = i;
		pthread_create(&writers[i].thread, NULL, writer_fn, &writers[i]);
	}
	pthread_create(&reader, NULL, reader_fn, NULL);
	t0 = twin_mono_ns();
	usleep((useconds_t)(seconds * 1e6));

	/* Stop the reader's sleeps first: writers still feed its waits. */
	__atomic_store_n(&reader_waits_off, 1, __ATOMIC_RELEASE);
	usleep(20000);
	__atomic_store_n(&stop_req, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NW; i++)
		while (!__atomic_load_n(&writers[i].parked, __ATOMIC_ACQUIRE))
			usleep(1000);
	__atomic_store_n(&final_req, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);
	__atomic_store_n(&exit_req, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NW; i++)
		pthread_join(writers[i].thread, NULL);

	/* 1: stream integrity */
	for (i = 0; i < NW; i++) {
		struct rcpu *r = &rc[i];
		struct writer *w = &writers[i];

		for (c = 0; c < NCTX; c++) {
			if (!overwrite) {
				check(r->s[c].read == w->c[c].committed &&
				      r->s[c].last_seq == w->c[c].committed,
				      "cpu %d ctx %d: read %lu up to seq %llu, "
				      "committed %lu", i, c, r->s[c].read,
				      (unsigned long long)r->s[c].last_seq,
				      w->c[c].committed);
			} else {
				check(r->s[c].read <= w->c[c].committed &&
				      r->s[c].last_seq <= w->c[c].committed,
				      "cpu %d ctx %d: read %lu, committed %lu",
				      i, c, r->s[c].read, w->c[c].committed);
			}
		}
	}
	check(!errors, "%lu errors, first: %s", errors, first_error);
	tap_result(name);

	/* 2: exact accounting */
	for (i = 0; i < NW; i++) {
		struct rcpu *r = &rc[i];
		struct writer *w = &writers[i];
		struct tring_cpu *cb = r->cb;
		unsigned long committed = 0, enobufs = 0, e2big = 0, given = 0;

		for (c = 0; c < NCTX; c++) {
			committed += w->c[c].committed;
			enobufs += w->c[c].enobufs;
			e2big += w->c[c].e2big;
			given += w->c[c].given_back;
		}
		tring_cpu_counts(cb, &cnt);
		check(enobufs == cnt.events_discarded,
		      "cpu %d: writers saw %lu -ENOBUFS, core counted %llu", i,
		      enobufs, (unsigned long long)cnt.events_discarded);
		check(e2big == cnt.events_too_big,
		      "cpu %d: writers saw %lu -E2BIG, core counted %llu", i,
		      e2big, (unsigned long long)cnt.events_too_big);
		check(committed == cnt.events_written,
		      "cpu %d: committed %lu, core events_written %llu", i,
		      committed, (unsigned long long)cnt.events_written);
		if (overwrite)
			check(r->events_read + cnt.events_overwritten ==
			      committed,
			      "cpu %d: read %lu + overwritten %llu != committed "
			      "%lu", i, r->events_read,
			      (unsigned long long)cnt.events_overwritten,
			      committed);
		else
			check(r->events_read == committed &&
			      !cnt.events_overwritten,
			      "cpu %d: read %lu, overwritten %llu, committed "
			      "%lu", i, r->events_read,
			      (unsigned long long)cnt.events_overwritten,
			      committed);
		check(!cnt.subbufs_ready, "cpu %d: %llu sub-buffers left", i,
		      (unsigned long long)cnt.subbufs_ready);
		/* Flushed and drained: read up to the open sub-buffer. */
		check(cnt.read_pos == (cnt.write_pos & ~cb->subbuf_mask),
		      "cpu %d: read_pos %llu, write_pos %llu", i,
		      (unsigned long long)cnt.read_pos,
		      (unsigned long long)cnt.write_pos);
		if (!overwrite)
			check(r->packets_read == cnt.subbufs_delivered,
			      "cpu %d: %lu packets read, %llu delivered", i,
			      r->packets_read,
			      (unsigned long long)cnt.subbufs_delivered);
		if (r->any)
			check(r->last.seq + 1 == cnt.subbufs_delivered &&
			      r->last.discarded <= enobufs + e2big,
			      "cpu %d: last packet %llu (discarded %llu), "
			      "delivered %llu, losses %lu", i,
			      (unsigned long long)r->last.seq,
			      (unsigned long long)r->last.discarded,
			      (unsigned long long)cnt.subbufs_delivered,
			      enobufs + e2big);
		total_c += committed;
		total_r += r->events_read;
		total_lost += enobufs + e2big + cnt.events_overwritten;
		total_gb += given;
	}
	tap_result(name);

	/* 3: nesting happened; no lost wakeup, no warning */
	for (i = 0; i < NW; i++) {
		if (writers[i].max_open > max_open)
			max_open = writers[i].max_open;
		if (writers[i].max_nest > max_nest)
			max_nest = writers[i].max_nest;
		ticks += writers[i].timer_ticks;
	}
	/* One open reservation per context: all four at once, never more. */
	check(max_open == NCTX, "%d reservations open at once, want %d",
	      max_open, NCTX);
#ifndef __SANITIZE_THREAD__
	check(twin_load(&twin_mask_violations) == 0,
	      "%lu interrupts ran where their level was masked",
	      twin_load(&twin_mask_violations));
#endif
	check(twin_load(&twin_lost_wakeups) == lost0, "lost wakeups");
	check(twin_load(&twin_wait_give_ups) == give0, "waits gave up");
	check(twin_load(&twin_warnings) == warn0, "core warnings");
	tap_diag("%s: %.1f s, %lu committed, %lu read, %lu lost, %lu given "
		 "back; %lu timer ticks, nesting %d deep, %d reservations "
		 "open at once, %lu interrupts held back; reader: %lu "
		 "flushes, %lu waits, %lu resets, %lu holds checked, held up "
		 "to %lu", name, (twin_mono_ns() - t0) / 1e9, total_c, total_r,
		 total_lost, total_gb, ticks, max_nest, max_open,
		 twin_load(&twin_mask_violations) - held0, flushes, waits,
		 resets, holds_checked, max_held);
	tap_result(name);
	tring_buffer_free(buf);
}

static struct tring_buffer *prime_buf;

static void prime_nested(int level)
{
	if (trace_write_inline(prime_buf, 2, "nested!", 7))
		abort();
}

/*
 * Reach every path of the core that undefined behaviour checks may
 * report from, once, here, before any signal can interrupt: a sanitizer
 * report is not reentrant, and a repeated one is skipped early.
 */
static void prime(void)
{
	struct tring_res res = { };

	prime_buf = twin_buffer(4096, 2, 0, TRING_CLOCK_MONO, 0);
	twin_irq_fn[1] = prime_nested;
	/* A 4-byte record first: the extended ones are not 8-aligned. */
	if (trace_write_inline(prime_buf, 2, "", 0) ||
	    trace_write_inline(prime_buf, SEV_ID_X, "extended", 8) ||
	    tring_reserve(prime_buf, SEV_ID_X, 8, &res))
		abort();
	twin_raise(1);
	if (tring_discard(&res))
		abort();
	twin_irq_fn[1] = NULL;
	tring_buffer_free(prime_buf);
}

int main(int argc, char **argv)
{
	const char *s = getenv("TWIN_STRESS_SECONDS");

	if (s)
		seconds = atof(s);
	if (argc > 1)
		seconds = atof(argv[1]);
	tap_plan_begin("twin_stress");
	twin_levels_install();
	prime();
	run(false, 4096, 8);
	run(true, 4096, 4);
	run(false, 16384, 4);
	run(true, 8192, 8);
	return tap_finish();
}
