// SPDX-License-Identifier: GPL-2.0
/*
 * tring ABI tests: the stream file's shape, its read-only mapping, and
 * how every ioctl treats bad input.
 */
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define SUBBUF_KB	4
#define SUBBUFS		8

FIXTURE(stream) {
	struct tu_stream s;
	long page;
};

FIXTURE_SETUP(stream)
{
	ASSERT_EQ(0, tu_reset_buffer(SUBBUF_KB, SUBBUFS, 0));
	ASSERT_EQ(0, tu_stream_open(&self->s, 0));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(stream)
{
	tu_stream_close(&self->s);
}

TEST_F(stream, info_shape)
{
	struct tring_info *i = &self->s.info;

	EXPECT_EQ(TRING_ABI_VERSION, i->abi_version);
	EXPECT_EQ(0, i->cpu);
	EXPECT_EQ(0, i->flags);
	EXPECT_EQ(SUBBUF_KB * 1024, i->subbuf_size);
	EXPECT_EQ(SUBBUFS, i->subbuf_count);
	EXPECT_EQ(sizeof(struct tring_packet_header), i->header_size);
	EXPECT_EQ(64, i->header_size);
	EXPECT_EQ(i->subbuf_size * i->subbuf_count, i->map_size);
	EXPECT_EQ(TRING_CLOCK_MONO, i->clock);
	EXPECT_EQ(SUBBUFS / 8, i->watermark);	/* the default: an eighth */
}

TEST(overwrite_mapping_has_spare)
{
	struct tu_stream s;

	ASSERT_EQ(0, tu_reset_buffer(SUBBUF_KB, SUBBUFS, 1));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	EXPECT_EQ(TRING_INFO_OVERWRITE, s.info.flags);
	EXPECT_EQ(s.info.subbuf_size * (s.info.subbuf_count + 1),
		  s.info.map_size);
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_reset_buffer(SUBBUF_KB, SUBBUFS, 0));
}

TEST_F(stream, fresh_mapping_is_zero)
{
	EXPECT_TRUE(tu_all_zero(self->s.map, self->s.info.map_size));
}

TEST_F(stream, map_part_and_offset)
{
	void *p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->s.fd,
		       self->page);

	ASSERT_NE(MAP_FAILED, p);
	munmap(p, self->page);
}

TEST_F(stream, map_past_end_fails)
{
	size_t len = self->s.info.map_size + self->page;
	void *p;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, self->s.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->s.fd,
		 self->s.info.map_size);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(stream, prot_write_fails)
{
	void *p;
	int fd;

	/* The file is open read-only: the VFS refuses a shared writable map. */
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->s.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	/* Through a read-write descriptor the module refuses it itself. */
	tu_stream_close(&self->s);
	fd = open(TRING_DIR "/per_cpu/cpu0/stream", O_RDWR);
	ASSERT_LE(0, fd);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	close(fd);
	ASSERT_EQ(0, tu_stream_open(&self->s, 0));
}

TEST_F(stream, mprotect_write_fails)
{
	EXPECT_EQ(-1, mprotect(self->s.map, self->page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
}

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, 1);
}

TEST_F(stream, store_to_mapping_faults)
{
	volatile uint8_t *p = self->s.map;
	int faulted = 0;

	signal(SIGSEGV, on_segv);
	if (sigsetjmp(segv_jmp, 1) == 0)
		*p = 1;
	else
		faulted = 1;
	signal(SIGSEGV, SIG_DFL);
	EXPECT_EQ(1, faulted);
}

TEST_F(stream, fork_keeps_mapping)
{
	unsigned long written, failed;
	uint64_t pos;
	int status;
	pid_t pid;

	ASSERT_EQ(0, tu_trigger(0, 10, 32, 0, &written, &failed));
	ASSERT_EQ(10, written);
	ASSERT_EQ(0, tu_flush(&self->s, &pos));
	usleep(10000);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		const struct tring_packet_header *h = (const void *)self->s.map;

		/* The child sees the same pages, read-only. */
		_exit(h->magic == TRING_PACKET_MAGIC && h->events_count == 10 &&
		      mprotect(self->s.map, self->page, PROT_WRITE) == -1 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(stream, second_open_busy)
{
	int fd = open(TRING_DIR "/per_cpu/cpu0/stream", O_RDONLY);

	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
}

TEST_F(stream, knobs_busy_while_open)
{
	EXPECT_EQ(-EBUSY, tu_knob("buffer_size_kb", "%d", 64));
	EXPECT_EQ(-EBUSY, tu_knob("overwrite", "1"));
}

TEST_F(stream, knobs_busy_while_mapped)
{
	int fd = self->s.fd;

	/* Close the descriptor: the mapping alone keeps the file open. */
	close(fd);
	self->s.fd = -1;
	EXPECT_EQ(-EBUSY, tu_knob("buffer_size_kb", "%d", 64));
	munmap(self->s.map, self->s.info.map_size);
	self->s.map = NULL;
	EXPECT_EQ(0, tu_knob("buffer_size_kb", "%d", SUBBUF_KB * SUBBUFS));
	ASSERT_EQ(0, tu_stream_open(&self->s, 0));
}

TEST(knob_values)
{
	EXPECT_EQ(0, tu_reset_buffer(8, 4, 0));
	EXPECT_EQ(8, tu_knob_read("buffer_subbuf_size_kb"));
	EXPECT_EQ(32, tu_knob_read("buffer_size_kb"));
	EXPECT_EQ(0, tu_knob_read("overwrite"));
	/* Sizes round up to a power of two sub-buffers. */
	EXPECT_EQ(0, tu_knob("buffer_size_kb", "%d", 40));
	EXPECT_EQ(64, tu_knob_read("buffer_size_kb"));
	EXPECT_EQ(-EINVAL, tu_knob("buffer_subbuf_size_kb", "%d", 3));
	EXPECT_EQ(-EINVAL, tu_knob("buffer_size_kb", "%d", 0));
	EXPECT_EQ(-EINVAL, tu_knob("overwrite", "%d", 2));
	EXPECT_EQ(-EINVAL, tu_knob("trace_clock", "jiffies"));
	EXPECT_EQ(0, tu_knob("trace_clock", "local"));
	EXPECT_EQ(0, tu_knob("trace_clock", "mono"));
	EXPECT_EQ(0, tu_reset_buffer(SUBBUF_KB, SUBBUFS, 0));
}

/* A /proc/meminfo field, in KiB; -1 if missing. */
static long meminfo_kb(const char *key)
{
	char buf[4096], *p;

	if (tu_read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, key);
	if (!p || p[strlen(key)] != ':')
		return -1;
	return strtol(p + strlen(key) + 1, NULL, 10);
}

/* CPUs in /sys/devices/system/cpu/online ("0-1,4"); -1 on error. */
static int online_cpus(void)
{
	char buf[256], *p = buf;
	long a, b;
	int n = 0;

	if (tu_read_file("/sys/devices/system/cpu/online", buf,
			 sizeof(buf)) <= 0)
		return -1;
	while (*p >= '0' && *p <= '9') {
		a = strtol(p, &p, 10);
		b = *p == '-' ? strtol(p + 1, &p, 10) : a;
		n += b - a + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

/* Does a kernel message since @fd was opened contain @a and @b? */
static int kmsg_has(int fd, const char *a, const char *b)
{
	char rec[1024];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, a) && strstr(rec, b))
			return 1;
	}
	return 0;
}

FIXTURE(memory) {
	int unused;
};

FIXTURE_SETUP(memory)
{
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
	/* Left over if an earlier run failed; ENOENT otherwise. */
	tu_write_file(TRING_TEST_DIR "/instance", "destroy big");
}

FIXTURE_TEARDOWN(memory)
{
	tu_write_file(TRING_TEST_DIR "/instance", "destroy big");
	tu_reset_buffer(4, 8, 0);
}

/*
 * A buffer whose pages would leave less than an eighth of RAM available
 * is refused with ENOMEM, from the knobs and for instances, with a
 * kernel message naming the sizes, although its pages would fit; the
 * old buffer keeps working; a smaller size works. R is the largest
 * per-CPU power of two times the CPUs that leaves room for half the
 * margin; ballast memory brings what is available to R plus half the
 * margin, so R would leave 1/16 of RAM (before the guard it was taken).
 */
TEST_F_TIMEOUT(memory, buffer_too_big_for_memory, 300)
{
	long total = meminfo_kb("MemTotal"), keep = total / 8, avail;
	unsigned long written, failed, u = 4;
	int ncpu = online_cpus(), kmsg, ballast, i;
	char want[64], create[64];
	struct tring_status st;
	struct tu_stream s;
	off_t ballast_len = 0;
	uint64_t pos;
	long r;

	ASSERT_LT(0, total);
	ASSERT_LT(0, ncpu);
	avail = meminfo_kb("MemAvailable");
	while (ncpu * u * 2 <= (unsigned long)(avail - keep / 2))
		u *= 2;
	r = ncpu * u;
	/*
	 * The ballast is a memfd's pages (shmem, which no swap can take
	 * here), allocated in the kernel by fallocate() without a page
	 * fault each. Grow it until R + keep / 2 is left available.
	 */
	ballast = memfd_create("tring-ballast", 0);
	ASSERT_LE(0, ballast);
	for (i = 0; i < 8; i++) {
		avail = meminfo_kb("MemAvailable");
		if (avail <= r + keep / 2)
			break;
		ballast_len += (off_t)(avail - r - keep / 2 + 1024) * 1024;
		ASSERT_EQ(0, fallocate(ballast, 0, 0, ballast_len));
	}
	avail = meminfo_kb("MemAvailable");
	TH_LOG("MemTotal %ld KiB, keep %ld, R %ld (%lu per CPU x %d), available %ld",
	       total, keep, r, u, ncpu, avail);
	ASSERT_GT(r + keep * 3 / 4, avail);
	ASSERT_LT(r + keep / 4, avail);

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	lseek(kmsg, 0, SEEK_END);
	EXPECT_EQ(-ENOMEM, tu_knob("buffer_size_kb", "%lu", u));
	EXPECT_EQ(32, tu_knob_read("buffer_size_kb"));
	snprintf(want, sizeof(want), " %lu KiB per CPU x %d online CPUs",
		 u, ncpu);
	EXPECT_TRUE(kmsg_has(kmsg, "tring: buffer '' refused", want));
	/* Sub-buffers of 64 KiB: u is at least 128 KiB on any real guest. */
	ASSERT_LE(128, u);
	snprintf(create, sizeof(create), "create big 64 %lu", u / 64);
	EXPECT_EQ(-ENOMEM, tu_write_file(TRING_TEST_DIR "/instance", create));
	EXPECT_TRUE(kmsg_has(kmsg, "tring: buffer 'big' refused", want));
	close(kmsg);

	/* The old buffer keeps working. */
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	ASSERT_EQ(0, tu_trigger(0, 10, 32, 0, &written, &failed));
	EXPECT_EQ(10, written);
	ASSERT_EQ(0, tu_flush(&s, &pos));
	EXPECT_EQ(1, tu_drain(&s, pos, 2000, NULL, NULL));
	ASSERT_EQ(0, tu_status(&s, &st));
	EXPECT_EQ(10, st.events_written);
	tu_stream_close(&s);
	/* A size within the margin works with the ballast still there. */
	EXPECT_EQ(0, tu_knob("buffer_size_kb", "%lu", u / 8));
	EXPECT_EQ(u / 8, tu_knob_read("buffer_size_kb"));
	/* Shrink first: a new sub-buffer size would keep the total. */
	EXPECT_EQ(0, tu_knob("buffer_size_kb", "%d", 32));
	close(ballast);
}

TEST_F(stream, unknown_ioctl)
{
	EXPECT_EQ(-1, ioctl(self->s.fd, _IO(TRING_IOC_MAGIC, 0x7f), 0));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, _IOR('x', 0x01, int), 0));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(stream, null_and_unmapped_pointers)
{
	void *bad = (void *)8;	/* unmapped */
	uint64_t pos;

	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_STATUS, bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_PUT, bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_FLUSH, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_WATERMARK, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_WATERMARK, bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, tu_flush(&self->s, &pos));
}

TEST_F(stream, short_and_oversized_structs)
{
	struct {
		struct tring_info info;
		uint8_t tail[16];
	} big;
	struct tring_status st;

	memset(&big, 0, sizeof(big));
	big.info.size = TRING_INFO_SIZE_VER0 - 4;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_INFO, &big));
	EXPECT_EQ(EINVAL, errno);
	big.info.size = 0;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_INFO, &big));
	EXPECT_EQ(EINVAL, errno);
	/* Larger than the kernel knows, zero tail: accepted, tail untouched. */
	big.info.size = sizeof(big);
	EXPECT_EQ(0, ioctl(self->s.fd, TRING_IOC_INFO, &big));
	EXPECT_EQ(TRING_ABI_VERSION, big.info.abi_version);
	EXPECT_TRUE(tu_all_zero(big.tail, sizeof(big.tail)));
	/* Non-zero bytes the kernel does not know: refused. */
	big.tail[3] = 1;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_INFO, &big));
	EXPECT_EQ(E2BIG, errno);
	/* Absurd sizes. */
	big.info.size = 1 << 20;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_INFO, &big));
	EXPECT_EQ(EINVAL, errno);
	memset(&st, 0, sizeof(st));
	st.size = TRING_STATUS_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_STATUS, &st));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(stream, get_bad_arguments)
{
	struct tring_subbuf sb[2];
	struct tring_get get = { .size = sizeof(get), .max = 1,
				 .subbufs = (uintptr_t)sb };

	get.flags = 1;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, &get));
	EXPECT_EQ(EINVAL, errno);
	get.flags = 0;
	get.max = 0;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, &get));
	EXPECT_EQ(EINVAL, errno);
	get.max = 1;
	/* Nothing written yet. */
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, &get));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(stream, get_to_bad_pointer_loses_nothing)
{
	struct tring_get get = { .size = sizeof(get), .max = 1,
				 .subbufs = 8 };
	unsigned long written, failed;
	struct tring_subbuf sb;
	uint64_t pos;

	ASSERT_EQ(0, tu_trigger(0, 5, 32, 0, &written, &failed));
	ASSERT_EQ(0, tu_flush(&self->s, &pos));
	usleep(10000);
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, &get));
	EXPECT_EQ(EFAULT, errno);
	get.subbufs = 0;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_GET, &get));
	EXPECT_EQ(EFAULT, errno);
	/* The sub-buffer is still there for a correct call. */
	ASSERT_EQ(1, tu_get(&self->s, &sb, 1));
	EXPECT_EQ(0, sb.seq);
	EXPECT_EQ(0, tu_put(&self->s, sb.seq, 1));
}

TEST_F(stream, put_without_get_and_double_put)
{
	unsigned long written, failed;
	struct tring_subbuf sb;
	uint64_t pos;

	EXPECT_EQ(-EINVAL, tu_put(&self->s, 0, 1));
	ASSERT_EQ(0, tu_trigger(0, 5, 32, 0, &written, &failed));
	ASSERT_EQ(0, tu_flush(&self->s, &pos));
	usleep(10000);
	ASSERT_EQ(1, tu_get(&self->s, &sb, 1));
	EXPECT_EQ(-EINVAL, tu_put(&self->s, sb.seq + 1, 1));	/* wrong seq */
	EXPECT_EQ(-EINVAL, tu_put(&self->s, sb.seq, 2));	/* too many */
	EXPECT_EQ(-EINVAL, tu_put(&self->s, sb.seq, 0));
	EXPECT_EQ(0, tu_put(&self->s, sb.seq, 1));
	EXPECT_EQ(-EINVAL, tu_put(&self->s, sb.seq, 1));	/* double put */
}

TEST_F(stream, watermark_bounds)
{
	EXPECT_EQ(-EINVAL, tu_watermark(&self->s, 0));
	/* Clamped to the ring, and the value in use comes back. */
	EXPECT_EQ(SUBBUFS - 1, tu_watermark(&self->s, 1000));
	self->s.info.size = sizeof(self->s.info);
	ASSERT_EQ(0, ioctl(self->s.fd, TRING_IOC_INFO, &self->s.info));
	EXPECT_EQ(SUBBUFS - 1, self->s.info.watermark);
	EXPECT_EQ(3, tu_watermark(&self->s, 3));
}

TEST_F(stream, flush_empty_packet)
{
	struct tring_flush fl = { .size = sizeof(fl), .flags = TRING_FLUSH_EMPTY };
	const struct tring_packet_header *h;
	struct tring_subbuf sb[SUBBUFS];
	struct {
		uint32_t size, flags;
		uint64_t pos;
	} v0 = { .size = TRING_FLUSH_SIZE_VER0, .flags = TRING_FLUSH_EMPTY };
	int n;

	ASSERT_EQ(0, ioctl(self->s.fd, TRING_IOC_FLUSH, &fl));
	EXPECT_EQ(self->s.info.subbuf_size, fl.pos);
	EXPECT_NE(0, fl.timestamp);
	n = tu_get(&self->s, sb, SUBBUFS);
	ASSERT_EQ(1, n);
	h = (const void *)((const uint8_t *)self->s.map + sb[0].offset);
	EXPECT_EQ(0, h->events_count);
	EXPECT_EQ(self->s.info.header_size * 8, h->content_size);
	EXPECT_EQ(fl.timestamp, h->timestamp_begin);
	EXPECT_EQ(fl.timestamp, h->timestamp_end);
	EXPECT_EQ(0, tu_put(&self->s, sb[0].seq, 1));
	/* The first published size: a packet too, no timestamp. */
	ASSERT_EQ(0, ioctl(self->s.fd, TRING_IOC_FLUSH, &v0));
	EXPECT_EQ(2 * self->s.info.subbuf_size, v0.pos);
	EXPECT_EQ(1, tu_get(&self->s, sb, SUBBUFS));
	EXPECT_EQ(1, sb[0].seq);
}

TEST_F(stream, flush_bad_arguments)
{
	struct tring_flush fl = { .size = sizeof(fl), .flags = 2 };

	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_FLUSH, &fl));
	EXPECT_EQ(EINVAL, errno);
	fl.flags = 0;
	fl.size = TRING_FLUSH_SIZE_VER0 - 4;
	EXPECT_EQ(-1, ioctl(self->s.fd, TRING_IOC_FLUSH, &fl));
	EXPECT_EQ(EINVAL, errno);
}

TEST(ioctl_numbers_are_stable)
{
	/* The numbers carry the first published sizes, whatever sizeof says. */
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_INFO), TRING_INFO_SIZE_VER0);
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_GET), TRING_GET_SIZE_VER0);
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_PUT), TRING_PUT_SIZE_VER0);
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_STATUS), TRING_STATUS_SIZE_VER0);
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_FLUSH), TRING_FLUSH_SIZE_VER0);
	EXPECT_EQ(_IOC_SIZE(TRING_IOC_WATERMARK), TRING_WATERMARK_SIZE_VER0);
	EXPECT_EQ(0xC1, _IOC_TYPE(TRING_IOC_INFO));
}

TEST(files_root_only)
{
	struct stat st;

	ASSERT_EQ(0, stat(TRING_DIR "/per_cpu/cpu0/stream", &st));
	EXPECT_EQ(0400, st.st_mode & 0777);
	EXPECT_EQ(0, st.st_uid);
	ASSERT_EQ(0, stat(TRING_DIR "/buffer_size_kb", &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
}

TEST_HARNESS_MAIN
