// SPDX-License-Identifier: GPL-2.0
/*
 * tring data tests: events written in the kernel come back through the
 * mapping byte-exact, in order, in well-formed packets; losses are
 * counted exactly, in the counters and in the stream itself; poll()
 * wakes at the watermark, held sub-buffers included; CPU hotplug loses
 * nothing.
 */
#include <pthread.h>
#include <sched.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

/* What a drain saw. */
struct seen {
	uint64_t packets;
	uint64_t events;	/* test events */
	uint64_t other;		/* padding and nop records */
	uint64_t first_seq;	/* of the first test event */
	uint64_t next_seq;	/* expected next test event seq */
	uint64_t first_pkt_seq;
	uint64_t last_pkt_seq;
	uint64_t last_discarded;
	uint64_t last_ts;
	uint64_t gaps;		/* packet sequence gaps */
	size_t subbuf_size;
	int cpu;
	int bad;		/* first problem found, as a line number */
	char why[160];
};

#define BAD(s, ...) do {						\
	if (!(s)->bad) {						\
		(s)->bad = __LINE__;					\
		snprintf((s)->why, sizeof((s)->why), __VA_ARGS__);	\
	}								\
	return 0;							\
} while (0)

static int check_packet(const uint8_t *pkt, const struct tring_subbuf *sb,
			void *arg)
{
	const struct tring_packet_header *h = (const void *)pkt;
	struct seen *s = arg;
	struct tring_dec_event ev;
	struct tring_dec d;
	uint64_t count = 0;
	int r;

	if (tring_dec_init(&d, pkt, s->subbuf_size))
		BAD(s, "bad packet header");
	if (h->cpu_id != (uint32_t)s->cpu || h->packet_seq_num != sb->seq ||
	    h->content_size / 8 != sb->length)
		BAD(s, "header cpu %u seq %llu len %llu", h->cpu_id,
		    (unsigned long long)h->packet_seq_num,
		    (unsigned long long)h->content_size);
	if (!s->packets)
		s->first_pkt_seq = h->packet_seq_num;
	if (s->packets && h->packet_seq_num != s->last_pkt_seq + 1)
		s->gaps += h->packet_seq_num - s->last_pkt_seq - 1;
	if (h->events_discarded < s->last_discarded)
		BAD(s, "events_discarded went back");
	if (h->timestamp_begin > h->timestamp_end ||
	    h->timestamp_begin < s->last_ts)
		BAD(s, "packet times");
	while ((r = tring_dec_next(&d, tu_test_len, NULL, &ev)) == 1) {
		const struct tring_test_payload *tp = (const void *)ev.payload;

		if (ev.ts < h->timestamp_begin || ev.ts > h->timestamp_end)
			BAD(s, "event time outside its packet");
		if (ev.id == TRING_ID_PADDING || ev.id == TRING_ID_NOP) {
			s->other++;
			continue;
		}
		if (ev.id != TRING_TEST_EVENT_ID ||
		    tu_test_payload_ok(ev.payload, ev.len))
			BAD(s, "bad event id %u", ev.id);
		if (!s->events)
			s->first_seq = tp->seq;
		else if (tp->seq != s->next_seq)
			BAD(s, "seq %llu, expected %llu",
			    (unsigned long long)tp->seq,
			    (unsigned long long)s->next_seq);
		if (tp->cpu != (uint32_t)s->cpu)
			BAD(s, "event from cpu %u", tp->cpu);
		s->next_seq = tp->seq + 1;
		s->events++;
		count++;
	}
	if (r < 0)
		BAD(s, "undecodable packet %llu",
		    (unsigned long long)h->packet_seq_num);
	if (count != h->events_count)
		BAD(s, "events_count %u, decoded %llu", h->events_count,
		    (unsigned long long)count);
	if (!tu_all_zero(pkt + sb->length, h->packet_size / 8 - sb->length))
		BAD(s, "tail not zero");
	s->last_ts = h->timestamp_end;
	s->last_pkt_seq = h->packet_seq_num;
	s->last_discarded = h->events_discarded;
	s->packets++;
	return 0;
}

/* Flush and drain @s, checking every packet. */
static long drain_all(struct tu_stream *s, struct seen *seen)
{
	uint64_t pos;
	long n;

	memset(seen, 0, sizeof(*seen));
	seen->cpu = s->cpu;
	seen->subbuf_size = s->info.subbuf_size;
	if (tu_flush(s, &pos))
		return -errno;
	n = tu_drain(s, pos, 2000, check_packet, seen);
	if (seen->bad)
		fprintf(stderr, "# line %d: %s\n", seen->bad, seen->why);
	return n;
}

FIXTURE(data) {
	struct tu_stream s[2];
	int ncpu;
};

FIXTURE_SETUP(data)
{
	int i;

	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
	self->ncpu = tu_nr_cpus() > 1 ? 2 : 1;
	for (i = 0; i < self->ncpu; i++)
		ASSERT_EQ(0, tu_stream_open(&self->s[i], i));
}

FIXTURE_TEARDOWN(data)
{
	int i;

	for (i = 0; i < self->ncpu; i++)
		tu_stream_close(&self->s[i]);
}

TEST_F(data, exact_events_each_cpu)
{
	unsigned long written, failed;
	struct seen seen;
	int cpu;

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		ASSERT_EQ(0, tu_trigger(cpu, 300, 40 + cpu * 13, 1000 * (cpu + 1),
					&written, &failed));
		ASSERT_EQ(300, written);
		ASSERT_EQ(0, failed);
	}
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		ASSERT_LT(0, drain_all(&self->s[cpu], &seen));
		EXPECT_EQ(0, seen.bad);
		EXPECT_EQ(300, seen.events);
		EXPECT_EQ(1000 * (cpu + 1), seen.first_seq);
		EXPECT_EQ(0, seen.gaps);
		EXPECT_EQ(0, seen.last_discarded);
		EXPECT_EQ(0, seen.other);
	}
}

TEST_F(data, payload_lengths)
{
	static const unsigned int lens[] = { 16, 17, 18, 19, 20, 255, 1024,
					     4000 };
	unsigned long written, failed;
	struct seen seen;
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ASSERT_EQ(0, tu_trigger(0, 3, lens[i], i * 3, &written,
					&failed));
		ASSERT_EQ(3, written);
	}
	ASSERT_LT(0, drain_all(&self->s[0], &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(3 * i, seen.events);
}

TEST_F(data, flush_returns_partial)
{
	unsigned long written, failed;
	struct tring_subbuf sb;
	uint64_t pos;

	ASSERT_EQ(0, tu_trigger(0, 3, 32, 7, &written, &failed));
	EXPECT_EQ(-EAGAIN, tu_get(&self->s[0], &sb, 1));
	ASSERT_EQ(0, tu_flush(&self->s[0], &pos));
	EXPECT_EQ(4096, pos);
	usleep(20000);
	ASSERT_EQ(1, tu_get(&self->s[0], &sb, 1));
	EXPECT_EQ(0, sb.seq);
	EXPECT_EQ(0, sb.offset);
	EXPECT_EQ(64 + 3 * (4 + 32), sb.length);
	EXPECT_EQ(0, tu_put(&self->s[0], 0, 1));
	/* Nothing new: a second flush closes nothing. */
	ASSERT_EQ(0, tu_flush(&self->s[0], &pos));
	EXPECT_EQ(4096, pos);
	EXPECT_EQ(-EAGAIN, tu_get(&self->s[0], &sb, 1));
}

TEST_F(data, discard_mode_exact_loss)
{
	unsigned long written, failed;
	struct tring_status st;
	struct seen seen;

	/* 8 x 4 KiB hold 8 x 59 records of 68 bytes: most are refused. */
	ASSERT_EQ(0, tu_trigger(0, 2000, 64, 0, &written, &failed));
	EXPECT_EQ(2000, written + failed);
	EXPECT_LT(0, failed);
	ASSERT_EQ(0, tu_status(&self->s[0], &st));
	EXPECT_EQ(failed, st.events_discarded);
	EXPECT_EQ(written, st.events_written);
	EXPECT_EQ(0, st.events_overwritten);
	EXPECT_EQ(7, st.subbufs_ready);
	ASSERT_LT(0, drain_all(&self->s[0], &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(written, seen.events);
	EXPECT_EQ(0, seen.first_seq);
	EXPECT_EQ(0, seen.gaps);
	/* In-band: the last packet carries every loss. */
	EXPECT_EQ(failed, seen.last_discarded);
	/* Room again: everything written now arrives. */
	ASSERT_EQ(0, tu_trigger(0, 50, 64, 5000, &written, &failed));
	EXPECT_EQ(50, written);
	ASSERT_LT(0, drain_all(&self->s[0], &seen));
	EXPECT_EQ(50, seen.events);
	EXPECT_EQ(5000, seen.first_seq);
}

TEST(overwrite_mode_exact_loss)
{
	unsigned long written, failed;
	struct tring_status st;
	struct tu_stream s;
	struct seen seen;

	ASSERT_EQ(0, tu_reset_buffer(4, 8, 1));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	ASSERT_EQ(0, tu_trigger(0, 2000, 64, 0, &written, &failed));
	ASSERT_EQ(0, tu_status(&s, &st));
	EXPECT_EQ(2000, written);
	EXPECT_EQ(0, failed);
	EXPECT_LT(0, st.events_overwritten);
	EXPECT_EQ(0, st.events_discarded);
	ASSERT_LT(0, drain_all(&s, &seen));
	EXPECT_EQ(0, seen.bad);
	/* The newest events survive, the oldest were overwritten. */
	EXPECT_EQ(written, seen.events + st.events_overwritten);
	EXPECT_EQ(st.events_overwritten, seen.first_seq);
	EXPECT_EQ(2000, seen.next_seq);
	/* In-band, overwritten packets are a gap; nothing was refused. */
	EXPECT_EQ(0, seen.last_discarded);
	EXPECT_LT(0, seen.first_pkt_seq);
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

TEST(overwrite_mode_held_subbuf_is_stable)
{
	unsigned long written, failed;
	struct tring_subbuf sb;
	struct tu_stream s;
	uint8_t copy[4096];
	uint64_t pos;

	ASSERT_EQ(0, tu_reset_buffer(4, 4, 1));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	ASSERT_EQ(0, tu_trigger(0, 100, 64, 0, &written, &failed));
	ASSERT_EQ(0, tu_flush(&s, &pos));
	usleep(20000);
	ASSERT_EQ(1, tu_get(&s, &sb, 1));
	memcpy(copy, s.map + sb.offset, sizeof(copy));
	EXPECT_EQ(-EBUSY, tu_get(&s, &sb, 1));
	/* Many laps of the ring while the reader holds its sub-buffer. */
	ASSERT_EQ(0, tu_trigger(0, 3000, 64, 100, &written, &failed));
	EXPECT_EQ(3000, written);
	EXPECT_EQ(0, memcmp(copy, s.map + sb.offset, sizeof(copy)));
	EXPECT_EQ(0, tu_put(&s, sb.seq, 1));
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

TEST_F(data, reader_reset_hands_back_held)
{
	unsigned long written, failed;
	struct tring_subbuf sb, again;
	uint64_t pos;

	ASSERT_EQ(0, tu_trigger(0, 10, 32, 0, &written, &failed));
	ASSERT_EQ(0, tu_flush(&self->s[0], &pos));
	usleep(20000);
	ASSERT_EQ(1, tu_get(&self->s[0], &sb, 1));
	tu_stream_close(&self->s[0]);
	ASSERT_EQ(0, tu_stream_open(&self->s[0], 0));
	ASSERT_EQ(1, tu_get(&self->s[0], &again, 1));
	EXPECT_EQ(sb.seq, again.seq);
	EXPECT_EQ(sb.offset, again.offset);
	EXPECT_EQ(0, tu_put(&self->s[0], again.seq, 1));
}

TEST_F(data, poll_at_watermark)
{
	struct pollfd pfd = { .fd = self->s[0].fd, .events = POLLIN };
	unsigned long written, failed;
	uint64_t pos;

	ASSERT_EQ(3, tu_watermark(&self->s[0], 3));
	/* 59 records of 68 bytes fit a 4 KiB packet: 120 close two. */
	ASSERT_EQ(0, tu_trigger(0, 120, 64, 0, &written, &failed));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	ASSERT_EQ(0, tu_trigger(0, 60, 64, 120, &written, &failed));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_LT(0, tu_drain(&self->s[0], 0, 0, NULL, NULL) + 1);
	ASSERT_EQ(0, tu_flush(&self->s[0], &pos));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
}

TEST_F(data, poll_after_flush)
{
	struct pollfd pfd = { .fd = self->s[0].fd, .events = POLLIN };
	unsigned long written, failed;
	uint64_t pos;

	ASSERT_EQ(0, tu_trigger(0, 1, 32, 0, &written, &failed));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, tu_flush(&self->s[0], &pos));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_TRUE(pfd.revents & POLLIN);
}

struct late_trigger {
	unsigned long count, seq, written, failed;
	int err;
};

/* Writes on CPU 0, most likely once the test thread sleeps in poll(). */
static void *late_trigger_fn(void *arg)
{
	struct late_trigger *t = arg;

	usleep(200000);
	t->err = tu_trigger(0, t->count, 64, t->seq, &t->written, &t->failed);
	return NULL;
}

/*
 * Discard mode, 4 sub-buffers, watermark 3: the reader takes the first
 * complete sub-buffer and keeps it while it polls. The writer completes
 * two more and fills the last, and can then only drop events until a
 * sub-buffer comes back: poll() must wake and report readable, because
 * held sub-buffers count toward the watermark. (Whether the writes land
 * before or during the poll() does not change the outcome.)
 */
TEST(poll_ready_while_holding)
{
	struct late_trigger t = { .count = 120, .seq = 60 };
	unsigned long written, failed;
	struct tring_status st;
	struct tring_subbuf sb;
	struct tu_stream s;
	struct pollfd pfd;
	struct seen seen;
	pthread_t th;

	ASSERT_EQ(0, tu_reset_buffer(4, 4, 0));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	pfd = (struct pollfd){ .fd = s.fd, .events = POLLIN };
	ASSERT_EQ(3, tu_watermark(&s, 3));
	/* 59 records of 68 bytes fill a 4 KiB packet: 60 complete one. */
	ASSERT_EQ(0, tu_trigger(0, 60, 64, 0, &written, &failed));
	ASSERT_EQ(60, written);
	ASSERT_EQ(1, tu_get(&s, &sb, 1));
	EXPECT_EQ(0, sb.seq);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	/* 120 more: packets 1 and 2 complete, packet 3 holds 3 events. */
	ASSERT_EQ(0, pthread_create(&th, NULL, late_trigger_fn, &t));
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	pthread_join(th, NULL);
	ASSERT_EQ(0, t.err);
	ASSERT_EQ(120, t.written);
	/*
	 * Packet 3 takes 56 more; then the writer can only drop. 55 when
	 * this batch's first record came over 2^23 ns after the last one
	 * and took the 16-byte extended header (a slow guest between two
	 * batches): every event is still either written or counted lost.
	 */
	ASSERT_EQ(0, tu_trigger(0, 100, 64, 180, &written, &failed));
	EXPECT_TRUE(written == 56 || written == 55);
	EXPECT_EQ(100 - written, failed);
	ASSERT_EQ(0, tu_status(&s, &st));
	EXPECT_EQ(3, st.subbufs_delivered);
	EXPECT_EQ(failed, st.events_discarded);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	/* Given back, every event written arrives, the losses in band. */
	ASSERT_EQ(0, tu_put(&s, sb.seq, 1));
	ASSERT_LT(0, drain_all(&s, &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(59, seen.first_seq);
	EXPECT_EQ(2 * 59 + 3 + written, seen.events);
	EXPECT_EQ(failed, seen.last_discarded);
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

/* Markers decoded from one stream, as a CTF reader sees them. */
struct markers {
	uint32_t id;
	size_t subbuf_size;
	int n;
	char text[8][64];
	int32_t tid[8];
	uint64_t decoded, counted;	/* events found, events_count sums */
	int undecodable;
};

/* The metadata's rule: tid, then text up to and including a NUL. */
static long marker_len(uint32_t id, const uint8_t *payload, size_t avail,
		       void *arg)
{
	struct markers *m = arg;

	if (id != m->id || avail <= 4)
		return -1;
	return 4 + strnlen((const char *)payload + 4, avail - 4) + 1;
}

static int collect_markers(const uint8_t *pkt, const struct tring_subbuf *sb,
			   void *arg)
{
	const struct tring_packet_header *h = (const void *)pkt;
	struct tring_dec_event ev;
	struct markers *m = arg;
	struct tring_dec d;
	int r;

	if (tring_dec_init(&d, pkt, m->subbuf_size)) {
		m->undecodable++;
		return 0;
	}
	m->counted += h->events_count;
	while ((r = tring_dec_next(&d, marker_len, m, &ev)) == 1) {
		if (ev.id == TRING_ID_PADDING || ev.id == TRING_ID_NOP)
			continue;
		m->decoded++;
		if (ev.id != m->id || m->n == 8)
			continue;
		memcpy(&m->tid[m->n], ev.payload, 4);
		snprintf(m->text[m->n], sizeof(m->text[0]), "%s",
			 (const char *)ev.payload + 4);
		m->n++;
	}
	if (r < 0)
		m->undecodable++;
	return 0;
}

/*
 * A marker's text ends at the first NUL of the write: bytes after it,
 * which could be a forged record header and payload, are not stored.
 * Each write is one event; what decodes is what events_count says.
 */
TEST(marker_text_ends_at_nul)
{
	/* "A", NUL padding, then a record header, a tid and "XY". */
	uint8_t forged[] = { 'A', 0, 0, 0, 0, 0, 0, 0,
			     0x39, 0x05, 0, 0, 'X', 'Y', 0 };
	static const char newline_nul[] = "hi\n\0junk";
	struct markers m = { 0 };
	struct tu_stream s;
	char buf[32];
	cpu_set_t cpus;
	uint64_t pos;
	int fd;

	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
	ASSERT_LT(0, tu_read_file(TRING_DIR "/events/tring/marker/id", buf,
				  sizeof(buf)));
	m.id = strtoul(buf, NULL, 0);
	/* A compact header: the id in bits 0-4, timestamp bits zero. */
	forged[4] = m.id;
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	m.subbuf_size = s.info.subbuf_size;
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/tring/marker/enable",
				   "1"));
	fd = open(TRING_DIR "/trace_marker", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(sizeof(forged), write(fd, forged, sizeof(forged)));
	EXPECT_EQ(6, write(fd, "hello\n", 6));
	EXPECT_EQ(sizeof(newline_nul) - 1,
		  write(fd, newline_nul, sizeof(newline_nul) - 1));
	close(fd);
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/tring/marker/enable",
				   "0"));
	ASSERT_EQ(0, tu_flush(&s, &pos));
	ASSERT_LT(0, tu_drain(&s, pos, 2000, collect_markers, &m));
	EXPECT_EQ(0, m.undecodable);
	EXPECT_EQ(m.counted, m.decoded);
	ASSERT_EQ(3, m.n);
	EXPECT_STREQ("A", m.text[0]);
	EXPECT_STREQ("hello", m.text[1]);
	EXPECT_STREQ("hi", m.text[2]);
	EXPECT_EQ(getpid(), m.tid[0]);
	tu_stream_close(&s);
}

TEST_F(data, cpu_offline_online_loses_nothing)
{
	unsigned long written, failed;
	struct seen seen;

	if (self->ncpu < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, tu_trigger(1, 100, 48, 0, &written, &failed));
	ASSERT_EQ(100, written);
	ASSERT_EQ(0, tu_set_online(1, 0));
	/* Flushing an offline CPU's stream closes its packet in place. */
	ASSERT_LT(0, drain_all(&self->s[1], &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(100, seen.events);
	ASSERT_EQ(0, tu_set_online(1, 1));
	ASSERT_EQ(0, tu_trigger(1, 50, 48, 100, &written, &failed));
	ASSERT_EQ(50, written);
	ASSERT_LT(0, drain_all(&self->s[1], &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(50, seen.events);
	EXPECT_EQ(100, seen.first_seq);
}

/*
 * A buffer made while CPU 1 is offline has no ring for it: its stream
 * refuses to open (ENXIO) and its stats are zero. When CPU 1 comes
 * online the ring is made before it runs anything, and records.
 */
TEST_F(data, ring_made_when_cpu_comes_online)
{
	unsigned long written, failed;
	struct seen seen;
	char buf[512];

	if (self->ncpu < 2)
		SKIP(return, "needs two CPUs");
	tu_stream_close(&self->s[0]);
	tu_stream_close(&self->s[1]);
	ASSERT_EQ(0, tu_set_online(1, 0));
	/* A new size: the default buffer is made again, CPU 1 offline. */
	EXPECT_EQ(0, tu_reset_buffer(4, 16, 0));
	EXPECT_EQ(-ENXIO, tu_stream_open(&self->s[1], 1));
	ASSERT_LT(0, tu_read_file(TRING_DIR "/per_cpu/cpu1/stats", buf,
				  sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "events_written: 0\n"));
	ASSERT_EQ(0, tu_set_online(1, 1));
	ASSERT_EQ(0, tu_stream_open(&self->s[0], 0));
	ASSERT_EQ(0, tu_stream_open(&self->s[1], 1));
	EXPECT_EQ(16, self->s[1].info.subbuf_count);
	ASSERT_EQ(0, tu_trigger(1, 60, 40, 500, &written, &failed));
	ASSERT_EQ(60, written);
	ASSERT_LT(0, drain_all(&self->s[1], &seen));
	EXPECT_EQ(0, seen.bad);
	EXPECT_EQ(60, seen.events);
	EXPECT_EQ(500, seen.first_seq);
}

TEST_F(data, stats_file_matches_status)
{
	unsigned long written, failed;
	struct tring_status st;
	char buf[512];
	unsigned long long w = 0;
	char *p;

	ASSERT_EQ(0, tu_trigger(0, 77, 32, 0, &written, &failed));
	ASSERT_EQ(0, tu_status(&self->s[0], &st));
	EXPECT_EQ(77, st.events_written);
	ASSERT_LT(0, tu_read_file(TRING_DIR "/per_cpu/cpu0/stats", buf,
				  sizeof(buf)));
	p = strstr(buf, "events_written: ");
	ASSERT_NE(NULL, p);
	w = strtoull(p + 16, NULL, 10);
	EXPECT_EQ(77, w);
}

TEST_HARNESS_MAIN
