// SPDX-License-Identifier: GPL-2.0
/*
 * tring stress test: tring_test.ko writes from a kthread, softirq,
 * hardirq, IPI and NMI context on every CPU at once, nested four deep,
 * while a reader thread per CPU drains the streams. Afterwards the test
 * proves, per CPU and writer context, that every event written was read
 * exactly once, intact and in order, or was counted as lost. Then the
 * same accounting while CPUs go offline and come back under a recording.
 * Every CPU present takes part.
 */
#include <pthread.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define MAX_CPUS	64
#define NCTX		TRING_STRESS_NR_CTX

struct stream_state {
	struct tu_stream s;
	pthread_t thread;
	uint64_t read[NCTX];
	uint64_t next_seq[NCTX];
	uint64_t last_discarded;
	uint64_t packets;
	int bad;
	char why[160];
};

static struct stream_state streams[MAX_CPUS];
static volatile int writers_done;

#define BAD(st, ...) do {						\
	if (!(st)->bad) {						\
		(st)->bad = __LINE__;					\
		snprintf((st)->why, sizeof((st)->why), __VA_ARGS__);	\
	}								\
	return 0;							\
} while (0)

/*
 * Check one packet of a CPU's stream: stress events (or, in the hotplug
 * test, the write trigger's test events, counted as context 0) intact,
 * from this CPU, in order per context.
 */
static int check_packet(const uint8_t *pkt, const struct tring_subbuf *sb,
			void *arg)
{
	const struct tring_packet_header *h = (const void *)pkt;
	struct stream_state *st = arg;
	struct tring_dec_event ev;
	struct tring_dec d;
	uint64_t n = 0, seq;
	uint32_t i, ctx;
	int r;

	if (tring_dec_init(&d, pkt, st->s.info.subbuf_size))
		BAD(st, "bad header at seq %llu", (unsigned long long)sb->seq);
	while ((r = tring_dec_next(&d, tu_test_len, NULL, &ev)) == 1) {
		const struct tring_stress_payload *p = (const void *)ev.payload;
		const struct tring_test_payload *tp = (const void *)ev.payload;

		if (ev.id == TRING_ID_PADDING || ev.id == TRING_ID_NOP)
			continue;
		if (ev.id == TRING_TEST_EVENT_ID) {
			if (tp->cpu != (uint32_t)st->s.cpu ||
			    tu_test_payload_ok(ev.payload,
					       sizeof(*tp) + tp->data_len))
				BAD(st, "torn test event cpu %u seq %llu",
				    tp->cpu, (unsigned long long)tp->seq);
			seq = tp->seq;
			ctx = 0;
		} else if (ev.id == TRING_STRESS_EVENT_ID) {
			if (p->cpu != (uint32_t)st->s.cpu || p->ctx >= NCTX ||
			    p->check != tring_stress_check(p->seq, p->cpu,
							   p->ctx, p->data_len))
				BAD(st, "torn event cpu %u ctx %u", p->cpu,
				    p->ctx);
			for (i = 0; i < p->data_len; i++)
				if (ev.payload[sizeof(*p) + i] !=
				    tring_test_byte(p->seq, i))
					BAD(st, "torn payload");
			seq = p->seq;
			ctx = p->ctx;
		} else {
			BAD(st, "event id %u", ev.id);
		}
		if (st->read[ctx] && seq < st->next_seq[ctx])
			BAD(st, "ctx %u seq %llu after %llu", ctx,
			    (unsigned long long)seq,
			    (unsigned long long)st->next_seq[ctx] - 1);
		st->next_seq[ctx] = seq + 1;
		st->read[ctx]++;
		n++;
	}
	if (r < 0)
		BAD(st, "undecodable packet %llu", (unsigned long long)sb->seq);
	if (n != h->events_count)
		BAD(st, "events_count %u decoded %llu", h->events_count,
		    (unsigned long long)n);
	st->last_discarded = h->events_discarded;
	st->packets++;
	return 0;
}

static void *reader(void *arg)
{
	struct stream_state *st = arg;
	struct pollfd pfd = { .fd = st->s.fd, .events = POLLIN };

	while (!writers_done) {
		poll(&pfd, 1, 50);
		if (tu_drain(&st->s, 0, 0, check_packet, st) < 0 && st->bad)
			break;
	}
	return NULL;
}

/* A reader thread per CPU from now on, each on its CPU's stream. */
static void start_readers(struct __test_metadata *_metadata, int ncpu)
{
	int cpu;

	memset(streams, 0, sizeof(streams));
	writers_done = 0;
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, tu_stream_open(&streams[cpu].s, cpu));
		ASSERT_EQ(0, pthread_create(&streams[cpu].thread, NULL, reader,
					    &streams[cpu]));
	}
}

/* After the readers stopped: drain what is left, check it, get status. */
static void drain_rest(struct __test_metadata *_metadata,
		       struct stream_state *st, struct tring_status *status)
{
	uint64_t pos;

	ASSERT_EQ(0, tu_flush(&st->s, &pos));
	ASSERT_LE(0, tu_drain(&st->s, pos, 5000, check_packet, st));
	if (st->bad)
		fprintf(stderr, "# cpu %d line %d: %s\n", st->s.cpu, st->bad,
			st->why);
	ASSERT_EQ(0, st->bad);
	ASSERT_EQ(0, tu_status(&st->s, status));
}

struct run_result {
	uint64_t attempts[MAX_CPUS][NCTX];
	uint64_t written[MAX_CPUS][NCTX];
	uint64_t failed[MAX_CPUS][NCTX];
	unsigned int max_depth[MAX_CPUS];
	int nmi;
	uint64_t nmi_timeouts;
};

static int parse_result(struct run_result *r)
{
	static char buf[32768];
	char *line, *save = NULL;
	unsigned long long a, w, f;
	unsigned int cpu, ctx, depth;

	memset(r, 0, sizeof(*r));
	if (tu_read_file(TRING_TEST_DIR "/stress", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "max_depth %u %u", &cpu, &depth) == 2) {
			if (cpu < MAX_CPUS)
				r->max_depth[cpu] = depth;
		} else if (sscanf(line, "nmi_timeouts %llu", &a) == 1) {
			r->nmi_timeouts = a;
		} else if (sscanf(line, "nmi %d", &r->nmi) == 1) {
			;
		} else if (sscanf(line, "%u %u %llu %llu %llu", &cpu, &ctx, &a,
				  &w, &f) == 5 && cpu < MAX_CPUS && ctx < NCTX) {
			r->attempts[cpu][ctx] = a;
			r->written[cpu][ctx] = w;
			r->failed[cpu][ctx] = f;
		}
	}
	return 0;
}

FIXTURE(stress) {
	int ncpu;
};

FIXTURE_VARIANT(stress) {
	int overwrite;
	unsigned int subbuf_kb;
	unsigned int count;
	unsigned int ms;
};

FIXTURE_VARIANT_ADD(stress, discard) {
	.overwrite = 0, .subbuf_kb = 4, .count = 16, .ms = 3000,
};

FIXTURE_VARIANT_ADD(stress, overwrite) {
	.overwrite = 1, .subbuf_kb = 4, .count = 8, .ms = 3000,
};

FIXTURE_VARIANT_ADD(stress, discard_big_subbufs) {
	.overwrite = 0, .subbuf_kb = 64, .count = 4, .ms = 2000,
};

FIXTURE_SETUP(stress)
{
	self->ncpu = tu_nr_cpus();
	ASSERT_GE(MAX_CPUS, self->ncpu);
	ASSERT_EQ(0, tu_reset_buffer(variant->subbuf_kb, variant->count,
				     variant->overwrite));
}

FIXTURE_TEARDOWN(stress)
{
	tu_reset_buffer(4, 8, 0);
}

TEST_F_TIMEOUT(stress, exact_accounting, 300)
{
	struct tring_status status;
	static struct run_result r;
	char ms[16];
	uint64_t read, written, failed;
	int cpu, ctx;

	start_readers(_metadata, self->ncpu);
	snprintf(ms, sizeof(ms), "%u", variant->ms);
	ASSERT_EQ(0, tu_write_file(TRING_TEST_DIR "/stress", ms));
	writers_done = 1;
	for (cpu = 0; cpu < self->ncpu; cpu++)
		pthread_join(streams[cpu].thread, NULL);
	ASSERT_EQ(0, parse_result(&r));

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		struct stream_state *st = &streams[cpu];

		drain_rest(_metadata, st, &status);

		read = written = failed = 0;
		for (ctx = 0; ctx < NCTX; ctx++) {
			fprintf(stderr, "# cpu %d ctx %d: attempts %llu written %llu failed %llu read %llu\n",
				cpu, ctx,
				(unsigned long long)r.attempts[cpu][ctx],
				(unsigned long long)r.written[cpu][ctx],
				(unsigned long long)r.failed[cpu][ctx],
				(unsigned long long)st->read[ctx]);
			EXPECT_EQ(r.attempts[cpu][ctx],
				  r.written[cpu][ctx] + r.failed[cpu][ctx]);
			if (!variant->overwrite)
				EXPECT_EQ(r.written[cpu][ctx], st->read[ctx]);
			read += st->read[ctx];
			written += r.written[cpu][ctx];
			failed += r.failed[cpu][ctx];
		}
		fprintf(stderr, "# cpu %d: packets %llu discarded %llu overwritten %llu max_depth %u\n",
			cpu, (unsigned long long)st->packets,
			(unsigned long long)status.events_discarded,
			(unsigned long long)status.events_overwritten,
			r.max_depth[cpu]);
		/* Every event written was read or overwritten, exactly. */
		EXPECT_EQ(written, read + status.events_overwritten);
		EXPECT_EQ(written, status.events_written);
		/* Every refused write was counted, in the stream too. */
		EXPECT_EQ(failed, status.events_discarded + status.events_too_big);
		EXPECT_EQ(status.events_discarded + status.events_too_big,
			  st->last_discarded);
		/* Writers really nested: task, softirq, hardirq (and NMI). */
		EXPECT_LE(r.nmi ? 4 : 3, r.max_depth[cpu]);
		EXPECT_LT(0, r.written[cpu][TRING_STRESS_TASK]);
		EXPECT_LT(0, r.written[cpu][TRING_STRESS_SOFTIRQ]);
		EXPECT_LT(0, r.written[cpu][TRING_STRESS_HARDIRQ]);
		if (self->ncpu > 1)
			EXPECT_LT(0, r.written[cpu][TRING_STRESS_IPI]);
		if (r.nmi)
			EXPECT_LT(0, r.written[cpu][TRING_STRESS_NMI]);
		tu_stream_close(&st->s);
	}
	fprintf(stderr, "# nmi %s, nmi timeouts %llu\n",
		r.nmi ? "used" : "unavailable",
		(unsigned long long)r.nmi_timeouts);
	EXPECT_EQ(0, r.nmi_timeouts);
}

/* Batches of test events on every online CPU, round after round. */
struct hp_writer {
	int ncpu;
	uint64_t written[MAX_CPUS], failed[MAX_CPUS], seq[MAX_CPUS];
	unsigned long batches, offline_refusals;
	int err;
};

#define HP_BATCH	200

static void *hp_write(void *arg)
{
	struct hp_writer *w = arg;
	unsigned long written, failed;
	int cpu, err;

	while (!writers_done) {
		for (cpu = 0; cpu < w->ncpu; cpu++) {
			err = tu_trigger(cpu, HP_BATCH, 48, w->seq[cpu],
					 &written, &failed);
			if (err == -ENODEV) {
				w->offline_refusals++;
				continue;
			}
			if (err) {
				w->err = err;
				return NULL;
			}
			w->written[cpu] += written;
			w->failed[cpu] += failed;
			w->seq[cpu] += HP_BATCH;
			w->batches++;
		}
	}
	return NULL;
}

/*
 * CPUs going offline and coming back while a recording runs: a reader
 * per CPU drains its stream throughout, a writer puts batches of test
 * events on every CPU that is online, and meanwhile CPUs 1 to N-1 go
 * offline one after the other (all of them together at the end of each
 * round: only CPU 0 runs) and come back, three rounds. Afterwards, per
 * CPU: events written = events read + events lost, exactly, the stream's
 * counters agree, and every CPU took events before and after.
 */
FIXTURE(hotplug) {
};

FIXTURE_SETUP(hotplug)
{
}

FIXTURE_TEARDOWN(hotplug)
{
	tu_reset_buffer(4, 8, 0);
}

TEST_F_TIMEOUT(hotplug, while_recording, 300)
{
	static struct hp_writer w;
	struct tring_status status;
	unsigned long offlined = 0;
	pthread_t writer;
	int ncpu = tu_nr_cpus(), cpu, round;

	if (ncpu < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_GE(MAX_CPUS, ncpu);
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 0));
	memset(&w, 0, sizeof(w));
	w.ncpu = ncpu;
	start_readers(_metadata, ncpu);
	ASSERT_EQ(0, pthread_create(&writer, NULL, hp_write, &w));
	for (round = 0; round < 3; round++) {
		for (cpu = 1; cpu < ncpu; cpu++) {
			usleep(100000);
			if (tu_set_online(cpu, 0) == 0)
				offlined++;
		}
		usleep(100000);
		for (cpu = 1; cpu < ncpu; cpu++)
			EXPECT_EQ(0, tu_set_online(cpu, 1));
	}
	usleep(200000);
	writers_done = 1;
	pthread_join(writer, NULL);
	for (cpu = 0; cpu < ncpu; cpu++)
		pthread_join(streams[cpu].thread, NULL);
	ASSERT_EQ(0, w.err);
	fprintf(stderr, "# %lu batches, %lu refused on offline CPUs, %lu offlinings\n",
		w.batches, w.offline_refusals, offlined);
	/* Every CPU but 0 went offline in every round. */
	EXPECT_EQ(3UL * (ncpu - 1), offlined);

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct stream_state *st = &streams[cpu];

		drain_rest(_metadata, st, &status);
		fprintf(stderr, "# cpu %d: written %llu read %llu lost %llu (refused %llu) packets %llu\n",
			cpu, (unsigned long long)w.written[cpu],
			(unsigned long long)st->read[0],
			(unsigned long long)status.events_discarded,
			(unsigned long long)w.failed[cpu],
			(unsigned long long)st->packets);
		EXPECT_LT(0, w.written[cpu]);
		EXPECT_EQ(w.written[cpu], status.events_written);
		EXPECT_EQ(w.written[cpu], st->read[0]);
		EXPECT_EQ(w.failed[cpu], status.events_discarded +
			  status.events_too_big);
		EXPECT_EQ(w.written[cpu] + w.failed[cpu],
			  st->read[0] + status.events_discarded +
			  status.events_too_big);
		tu_stream_close(&st->s);
	}
}

TEST_HARNESS_MAIN
