// SPDX-License-Identifier: GPL-2.0
/*
 * tring stress test: tring_test.ko writes from a kthread, softirq,
 * hardirq, IPI and NMI context on every CPU at once, nested four deep,
 * while a reader thread per CPU drains the streams. Afterwards the test
 * proves, per CPU and writer context, that every event written was read
 * exactly once, intact and in order, or was counted as lost.
 */
#include <pthread.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define MAX_CPUS	8
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

static int check_packet(const uint8_t *pkt, const struct tring_subbuf *sb,
			void *arg)
{
	const struct tring_packet_header *h = (const void *)pkt;
	struct stream_state *st = arg;
	struct tring_dec_event ev;
	struct tring_dec d;
	uint64_t n = 0;
	uint32_t i;
	int r;

	if (tring_dec_init(&d, pkt, st->s.info.subbuf_size))
		BAD(st, "bad header at seq %llu", (unsigned long long)sb->seq);
	while ((r = tring_dec_next(&d, tu_test_len, NULL, &ev)) == 1) {
		const struct tring_stress_payload *p = (const void *)ev.payload;

		if (ev.id == TRING_ID_PADDING || ev.id == TRING_ID_NOP)
			continue;
		if (ev.id != TRING_STRESS_EVENT_ID)
			BAD(st, "event id %u", ev.id);
		if (p->cpu != (uint32_t)st->s.cpu || p->ctx >= NCTX ||
		    p->check != tring_stress_check(p->seq, p->cpu, p->ctx,
						   p->data_len))
			BAD(st, "torn event cpu %u ctx %u", p->cpu, p->ctx);
		for (i = 0; i < p->data_len; i++)
			if (ev.payload[sizeof(*p) + i] != tring_test_byte(p->seq, i))
				BAD(st, "torn payload");
		if (st->read[p->ctx] && p->seq < st->next_seq[p->ctx])
			BAD(st, "ctx %u seq %llu after %llu", p->ctx,
			    (unsigned long long)p->seq,
			    (unsigned long long)st->next_seq[p->ctx] - 1);
		st->next_seq[p->ctx] = p->seq + 1;
		st->read[p->ctx]++;
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
	char buf[8192], *line, *save = NULL;
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
	if (self->ncpu > MAX_CPUS)
		self->ncpu = MAX_CPUS;
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
	uint64_t pos, read, written, failed;
	int cpu, ctx;

	memset(streams, 0, sizeof(streams));
	writers_done = 0;
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		ASSERT_EQ(0, tu_stream_open(&streams[cpu].s, cpu));
		ASSERT_EQ(0, pthread_create(&streams[cpu].thread, NULL, reader,
					    &streams[cpu]));
	}
	snprintf(ms, sizeof(ms), "%u", variant->ms);
	ASSERT_EQ(0, tu_write_file(TRING_TEST_DIR "/stress", ms));
	writers_done = 1;
	for (cpu = 0; cpu < self->ncpu; cpu++)
		pthread_join(streams[cpu].thread, NULL);
	ASSERT_EQ(0, parse_result(&r));

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		struct stream_state *st = &streams[cpu];

		ASSERT_EQ(0, tu_flush(&st->s, &pos));
		ASSERT_LE(0, tu_drain(&st->s, pos, 5000, check_packet, st));
		if (st->bad)
			fprintf(stderr, "# cpu %d line %d: %s\n", cpu, st->bad,
				st->why);
		ASSERT_EQ(0, st->bad);
		ASSERT_EQ(0, tu_status(&st->s, &status));

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

TEST_HARNESS_MAIN
