// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record end to end: events written before and while tring-record
 * runs, on every CPU, are in its files on disk, byte-exact and in order,
 * after it is stopped with SIGINT; its summary agrees.
 */
#include <signal.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define RECORD	"/tests/tring-record"
#define OUTDIR	"/tmp/tring-record-test"
#define MAX_CPUS 8

struct file_seen {
	uint64_t events;
	uint64_t next_seq;
	uint64_t packets;
	int bad;
};

/* Decode one stream file; every event must be the next test event. */
static int decode_file(const char *path, size_t subbuf, int cpu,
		       uint64_t first_seq, struct file_seen *fs)
{
	static uint8_t pkt[1 << 20];
	struct tring_dec d;
	int fd, bad;
	ssize_t n;

	memset(fs, 0, sizeof(*fs));
	fs->next_seq = first_seq;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, pkt, subbuf)) == (ssize_t)subbuf) {
		if (tring_dec_init(&d, pkt, subbuf)) {
			fs->bad = __LINE__;
			break;
		}
		bad = tu_check_test_events(&d, cpu, &fs->next_seq, &fs->events);
		if (bad)
			fs->bad = bad;
		fs->packets++;
	}
	if (n != 0)
		fs->bad = fs->bad ?: __LINE__;
	close(fd);
	return 0;
}

/* "key=value" from the summary, or -1. */
static long long summary_value(const char *key)
{
	char buf[8192], *p;
	size_t klen = strlen(key);

	if (tu_read_file(OUTDIR "/.tring-record.summary", buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return strtoll(p + klen + 1, NULL, 10);
	return -1;
}

/* Wait up to @ms milliseconds for @path to exist: 0, or -1 on timeout. */
static int wait_for_file(const char *path, int ms)
{
	for (; ms > 0; ms -= 10) {
		if (!access(path, F_OK))
			return 0;
		usleep(10000);
	}
	return -1;
}

TEST(record_bursts_exact)
{
	int ncpu = tu_nr_cpus(), cpu, status;
	unsigned long written, failed, total[MAX_CPUS];
	struct file_seen fs;
	char path[128], key[64];
	pid_t pid;

	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	/* 1 MiB per CPU holds every burst even if the reader lags. */
	ASSERT_EQ(0, tu_reset_buffer(64, 16, 0));
	/* Before tring-record starts: the buffer keeps them. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, tu_trigger(cpu, 500, 48 + 8 * cpu, 0, &written,
					&failed));
		ASSERT_EQ(500, written);
		total[cpu] = written;
	}
	system("rm -rf " OUTDIR);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Every event must be a test event: no statedump. */
		execl(RECORD, RECORD, "-q", "-o", OUTDIR, "-w", "1",
		      "--no-statedump", (char *)NULL);
		_exit(127);
	}
	/*
	 * It catches SIGINT from before it writes the metadata: wait for
	 * that file, so the signal below cannot kill it while it starts.
	 */
	ASSERT_EQ(0, wait_for_file(OUTDIR "/kernel/metadata", 30000));
	/* While it records: several ring laps' worth. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, tu_trigger(cpu, 3000, 48 + 8 * cpu, 500, &written,
					&failed));
		ASSERT_EQ(3000, written);
		total[cpu] += written;
	}
	usleep(200000);
	ASSERT_EQ(0, kill(pid, SIGINT));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), OUTDIR "/kernel/stream_%d", cpu);
		ASSERT_EQ(0, decode_file(path, 64 * 1024, cpu, 0, &fs));
		if (fs.bad)
			fprintf(stderr, "# cpu %d: bad at line %d after %llu events\n",
				cpu, fs.bad, (unsigned long long)fs.events);
		EXPECT_EQ(0, fs.bad);
		EXPECT_EQ(total[cpu], fs.events);
		snprintf(key, sizeof(key), "cpu%d.events", cpu);
		EXPECT_EQ((long long)total[cpu], summary_value(key));
		snprintf(key, sizeof(key), "cpu%d.subbufs", cpu);
		EXPECT_EQ((long long)fs.packets, summary_value(key));
		snprintf(key, sizeof(key), "cpu%d.lost", cpu);
		EXPECT_EQ(0, summary_value(key));
	}
	EXPECT_EQ(0, access(OUTDIR "/kernel/metadata", R_OK));
	/* The summary stays in DIR, out of the trace's directory. */
	EXPECT_EQ(0, access(OUTDIR "/.tring-record.summary", R_OK));
	EXPECT_NE(0, access(OUTDIR "/metadata", F_OK));
}

TEST(record_reports_loss)
{
	unsigned long written, failed;
	struct file_seen fs;
	int status;
	pid_t pid;

	ASSERT_EQ(0, tu_reset_buffer(4, 4, 0));
	/* No reader: most of the burst is refused, and counted. */
	ASSERT_EQ(0, tu_trigger(0, 1000, 64, 0, &written, &failed));
	ASSERT_LT(0, failed);
	system("rm -rf " OUTDIR);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The loss counted must be the burst's alone. */
		execl(RECORD, RECORD, "-q", "-o", OUTDIR, "-c", "0", "-d",
		      "0.5", "--no-statedump", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, decode_file(OUTDIR "/kernel/stream_0", 4096, 0, 0, &fs));
	EXPECT_EQ(0, fs.bad);
	EXPECT_EQ(written, fs.events);
	EXPECT_EQ((long long)failed, summary_value("cpu0.discarded"));
	EXPECT_EQ((long long)failed, summary_value("cpu0.lost"));
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

struct saved {
	int fd;
	uint64_t packets;
	uint64_t last_seq;
	uint64_t gap;		/* packets missing between saved ones */
};

static int append_packet(const uint8_t *pkt, const struct tring_subbuf *sb,
			 void *arg)
{
	size_t size = ((const struct tring_packet_header *)pkt)->packet_size / 8;
	struct saved *sv = arg;

	if (sv->packets)
		sv->gap += sb->seq - sv->last_seq - 1;
	sv->last_seq = sb->seq;
	sv->packets++;
	return write(sv->fd, pkt, size) == (ssize_t)size ? 0 : -EIO;
}

/*
 * A reader that stalls while the writer laps it, in overwrite mode: the
 * trace it saves (/results/traces/overwrite_gap/kernel, laid out as
 * tring-record lays it out, checked on the host with babeltrace2) has a
 * packet sequence gap between packets it did read.
 */
TEST(overwrite_gap_trace)
{
	const char *dir = "/results/traces/overwrite_gap";
	unsigned long written, failed, total = 0;
	struct tring_status st;
	struct tring_subbuf sb;
	static char meta[256 * 1024];
	char line[128];
	struct saved sv = { };
	struct tu_stream s;
	uint64_t pos;
	int fd, efd, n;

	ASSERT_EQ(0, tu_reset_buffer(4, 4, 1));
	ASSERT_EQ(0, system("mkdir -p /results/traces"));
	system("rm -rf /results/traces/overwrite_gap*");
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, mkdir("/results/traces/overwrite_gap/kernel", 0755));
	sv.fd = open("/results/traces/overwrite_gap/kernel/stream_0",
		     O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, sv.fd);
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	/* Read the first packet... */
	ASSERT_EQ(0, tu_trigger(0, 100, 64, 0, &written, &failed));
	total += written;
	ASSERT_EQ(0, tu_flush(&s, &pos));
	usleep(20000);
	ASSERT_EQ(1, tu_get(&s, &sb, 1));
	EXPECT_EQ(0, sb.seq);
	ASSERT_EQ(0, append_packet(s.map + sb.offset, &sb, &sv));
	ASSERT_EQ(0, tu_put(&s, sb.seq, 1));
	/* ...stall while the writer laps the ring many times... */
	ASSERT_EQ(0, tu_trigger(0, 2000, 64, 100, &written, &failed));
	total += written;
	/* ...then read what is left. */
	ASSERT_EQ(0, tu_flush(&s, &pos));
	ASSERT_LT(0, tu_drain(&s, pos, 2000, append_packet, &sv));
	ASSERT_EQ(0, tu_status(&s, &st));
	EXPECT_LT(0, st.events_overwritten);
	EXPECT_LT(0, sv.gap);
	close(sv.fd);
	tu_stream_close(&s);

	n = tu_read_file(TRING_DIR "/metadata", meta, sizeof(meta));
	ASSERT_LT(0, n);
	fd = open("/results/traces/overwrite_gap/kernel/metadata",
		  O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_EQ(n, write(fd, meta, n));
	close(fd);
	efd = open("/results/traces/overwrite_gap.expect",
		   O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, efd);
	n = snprintf(line, sizeof(line), "written %lu\noverwritten %llu\ngap %llu\n",
		     total, (unsigned long long)st.events_overwritten,
		     (unsigned long long)sv.gap);
	ASSERT_EQ(n, write(efd, line, n));
	close(efd);
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

/*
 * CPU 1 offline when the buffer is made has no ring; tring-record starts
 * without it, and records it once it comes online: its events are all in
 * stream_1, and the summary counts them.
 */
TEST(record_cpu_online_late)
{
	unsigned long written, failed;
	struct file_seen fs;
	int status, ret;
	pid_t pid;

	if (tu_nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, tu_set_online(1, 0));
	ret = tu_reset_buffer(4, 16, 0);
	system("rm -rf " OUTDIR);
	pid = ret ? -1 : fork();
	if (pid == 0) {
		execl(RECORD, RECORD, "-q", "-o", OUTDIR, "-w", "1",
		      "--no-statedump", (char *)NULL);
		_exit(127);
	}
	EXPECT_EQ(0, wait_for_file(OUTDIR "/kernel/metadata", 30000));
	EXPECT_NE(0, access(OUTDIR "/kernel/stream_1", F_OK));
	ASSERT_EQ(0, tu_set_online(1, 1));
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, tu_trigger(1, 40, 48, 0, &written, &failed));
	ASSERT_EQ(40, written);
	/* Past the once-a-second look for CPUs that came online. */
	usleep(1500000);
	ASSERT_EQ(0, kill(pid, SIGINT));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, decode_file(OUTDIR "/kernel/stream_1", 4096, 1, 0, &fs));
	EXPECT_EQ(0, fs.bad);
	EXPECT_EQ(40, fs.events);
	EXPECT_EQ(40, summary_value("cpu1.events"));
	EXPECT_EQ(0, summary_value("cpu1.lost"));
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

TEST(record_refuses_nonempty_dir)
{
	int status;
	pid_t pid;

	system("mkdir -p " OUTDIR " && touch " OUTDIR "/keep");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(RECORD, RECORD, "-q", "-o", OUTDIR, "-d", "0.1",
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(0, WEXITSTATUS(status));
	EXPECT_EQ(0, access(OUTDIR "/keep", F_OK));
}

TEST_HARNESS_MAIN
