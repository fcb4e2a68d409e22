// SPDX-License-Identifier: GPL-2.0
/*
 * tring instance tests: what a reader sees when a buffer made with
 * tring_buffer_create() is destroyed under it, creating a name that is
 * being destroyed, and readers whose user memory never faults in
 * (userfaultfd) holding up nobody but themselves.
 */
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/userfaultfd.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define RECORD	"/tests/tring-record"
#define OUTDIR	"/tmp/tring-instance-test"
#define INST	TRING_DIR "/instances"
#define MAX_CPUS 8

/* Event payload bytes the tests write: 4 + 40 bytes a record. */
#define EV_LEN	40
/* Records of EV_LEN in a 4 KiB sub-buffer after its 64-byte header. */
#define EV_PER_SUBBUF	((4096 - 64) / (4 + EV_LEN))

/*
 * Bounds on waits for something that happens at once when the kernel is
 * right; they only keep a wrong kernel from hanging the run.
 */
#define GUARD_MS	10000

static void inst_path(char *path, size_t size, const char *name, int cpu,
		      const char *file)
{
	snprintf(path, size, INST "/%s/per_cpu/cpu%d/%s", name, cpu, file);
}

static int inst_stream_open(struct tu_stream *s, const char *name, int cpu)
{
	char path[128];

	inst_path(path, sizeof(path), name, cpu, "stream");
	return tu_stream_open_path(s, path, cpu);
}

/* Open one of an instance's files; -errno on failure. */
static int inst_open(const char *name, int cpu, const char *file)
{
	char path[128];
	int fd;

	inst_path(path, sizeof(path), name, cpu, file);
	fd = open(path, O_RDONLY);
	return fd < 0 ? -errno : fd;
}

static int inst_has_files(const char *name)
{
	char path[128];

	inst_path(path, sizeof(path), name, 0, "stream");
	return access(path, F_OK) == 0;
}

/* Events and sequence numbers read back from packets. */
struct seen {
	uint64_t events;
	uint64_t next_seq;
	uint64_t packets;
	int cpu;
	int bad;
};

/* Every event must be the next test event of @sn->cpu, intact. */
static int check_packet(const uint8_t *pkt, size_t size, struct seen *sn)
{
	struct tring_dec d;
	int bad;

	if (tring_dec_init(&d, pkt, size))
		return sn->bad = __LINE__;
	bad = tu_check_test_events(&d, sn->cpu, &sn->next_seq, &sn->events);
	if (bad)
		return sn->bad = bad;
	sn->packets++;
	return 0;
}

static int check_subbuf(const uint8_t *pkt, const struct tring_subbuf *sb,
			void *arg)
{
	return check_packet(pkt, 4096, arg) ? -EIO : 0;
}

/* Take everything complete, checking it, until none is left. */
static long drain_now(struct tu_stream *s, struct seen *sn)
{
	return tu_drain(s, 0, 0, check_subbuf, sn);
}

struct poller {
	int fd;
	int ret;
	short revents;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	p->ret = poll(&pfd, 1, GUARD_MS);
	p->revents = pfd.revents;
	return NULL;
}

/*
 * Destroying an instance under a reader that has less than the watermark
 * waiting: the partly filled sub-buffer is flushed, a poller sleeping
 * meanwhile wakes with POLLIN, everything written can be read, and then
 * poll() reports POLLHUP.
 */
TEST(destroy_flushes_and_wakes_poller)
{
	const unsigned long n = EV_PER_SUBBUF + 29;
	struct pollfd pfd = { .events = POLLIN };
	struct tring_status st;
	struct seen sn = { };
	struct poller p = { };
	struct tu_stream s;
	pthread_t thr;

	ASSERT_EQ(0, tu_instance_cmd("create pw 4 8"));
	ASSERT_EQ(0, tu_instance_cmd("write pw 0 %lu %u", n, EV_LEN));
	ASSERT_EQ(0, inst_stream_open(&s, "pw", 0));
	ASSERT_EQ(1, s.info.watermark);	/* the default: an eighth */
	ASSERT_EQ(4, tu_watermark(&s, 4));
	/* One sub-buffer complete, under the watermark: nothing yet. */
	pfd.fd = s.fd;
	ASSERT_EQ(0, poll(&pfd, 1, 0));
	p.fd = s.fd;
	ASSERT_EQ(0, pthread_create(&thr, NULL, poll_thread, &p));
	/* Most likely asleep in poll() by now; either way it must see IN. */
	usleep(100000);
	ASSERT_EQ(0, tu_instance_cmd("destroy pw"));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	EXPECT_EQ(1, p.ret);
	EXPECT_EQ(POLLIN, p.revents & (POLLIN | POLLHUP));

	ASSERT_EQ(0, tu_status(&s, &st));
	EXPECT_EQ(TRING_STATUS_DEAD, st.flags);
	/* The destroy flushed the partly filled one. */
	EXPECT_EQ(2, st.subbufs_ready);
	EXPECT_EQ(1, poll(&pfd, 1, GUARD_MS));
	EXPECT_EQ(POLLIN, pfd.revents & (POLLIN | POLLHUP));
	EXPECT_EQ(2, drain_now(&s, &sn));
	EXPECT_EQ(0, sn.bad);
	EXPECT_EQ(n, sn.events);
	/* Nothing left: hang up. */
	EXPECT_EQ(1, poll(&pfd, 1, GUARD_MS));
	EXPECT_EQ(POLLHUP, pfd.revents);
	tu_stream_close(&s);
}

/* Streams of @name that process @pid has open. */
static int streams_open_by(pid_t pid, const char *name)
{
	char dir[64], link[384], target[300], want[128];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	snprintf(want, sizeof(want), INST "/%s/per_cpu/", name);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strstr(target, want) && strstr(target, "/stream"))
			n++;
	}
	closedir(d);
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -errno : st.st_size;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Wait for @pid for up to @ms; its status, or -1 (then it is killed). */
static int wait_bounded(pid_t pid, int ms)
{
	int status, i;

	for (i = 0; i < ms / 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static int decode_file(const char *path, struct seen *sn)
{
	static uint8_t pkt[4096];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, pkt, sizeof(pkt))) == (ssize_t)sizeof(pkt))
		if (check_packet(pkt, sizeof(pkt), sn))
			break;
	if (n != 0 && !sn->bad)
		sn->bad = __LINE__;
	close(fd);
	return 0;
}

/*
 * tring-record on an instance, with no duration, while the instance is
 * destroyed: it saves everything written, partly filled sub-buffers
 * included, and exits by itself.
 */
TEST(record_exits_after_destroy)
{
	int ncpu = tu_nr_cpus(), cpu, status, open;
	unsigned long count[MAX_CPUS];
	static char text[65536];
	long meta, msize, deadline;
	struct seen sn;
	char path[128];
	pid_t pid;

	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	ASSERT_EQ(0, tu_instance_cmd("create rec 4 8"));
	meta = tu_read_file(INST "/rec/metadata", text, sizeof(text));
	ASSERT_LT(0, meta);
	for (cpu = 0; cpu < ncpu; cpu++) {
		/* Under the watermark (-w 4): tring-record sleeps. */
		count[cpu] = EV_PER_SUBBUF + 20 + 7 * cpu;
		ASSERT_EQ(0, tu_instance_cmd("write rec %d %lu %u", cpu,
					  count[cpu], EV_LEN));
	}
	system("rm -rf " OUTDIR);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(RECORD, RECORD, "-q", "-w", "4", "--instance", "rec",
		      "-o", OUTDIR, (char *)NULL);
		_exit(127);
	}
	/*
	 * Recording: every stream open, the metadata copied whole. Bounded
	 * by the clock (an iteration count took 30 s under KASAN once and
	 * hit the harness's timeout), and saying what was missing.
	 */
	deadline = now_ms() + GUARD_MS;
	do {
		open = streams_open_by(pid, "rec");
		msize = file_size(OUTDIR "/kernel/metadata");
		if (open == ncpu && msize == meta)
			break;
		usleep(1000);
	} while (now_ms() < deadline);
	if (open != ncpu || msize != meta)
		wait_bounded(pid, 0);	/* kills it */
	ASSERT_EQ(ncpu, open) TH_LOG("tring-record has %d of %d streams open", open, ncpu);
	ASSERT_EQ(meta, msize) TH_LOG("metadata copied: %ld of %ld bytes", msize, meta);
	ASSERT_EQ(0, tu_instance_cmd("destroy rec"));
	status = wait_bounded(pid, GUARD_MS);
	ASSERT_NE(-1, status) TH_LOG("tring-record did not exit");
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	for (cpu = 0; cpu < ncpu; cpu++) {
		memset(&sn, 0, sizeof(sn));
		sn.cpu = cpu;
		snprintf(path, sizeof(path), OUTDIR "/kernel/stream_%d", cpu);
		ASSERT_EQ(0, decode_file(path, &sn));
		EXPECT_EQ(0, sn.bad);
		EXPECT_EQ(count[cpu], sn.events);
		EXPECT_EQ(2, sn.packets);
	}
	EXPECT_EQ(0, access(OUTDIR "/kernel/metadata", R_OK));
}

/* ---- userfaultfd: user memory that never faults in until resolved ---- */

struct uffd_page {
	int fd;
	size_t size;
	uint8_t *page;
};

/* 0, -ENOSYS without userfaultfd(2), or another -errno. */
static int uffd_setup(struct uffd_page *u)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	u->size = sysconf(_SC_PAGESIZE);
	u->page = NULL;
	u->fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u->fd < 0)
		return -errno;
	if (ioctl(u->fd, UFFDIO_API, &api))
		return -errno;
	u->page = mmap(NULL, u->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->page == MAP_FAILED)
		return -errno;
	reg.range.start = (uintptr_t)u->page;
	reg.range.len = u->size;
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

/* A thread faulted on the page and is blocked there: 0, or -errno. */
static int uffd_wait_fault(struct uffd_page *u)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, GUARD_MS) != 1)
		return -ETIMEDOUT;
	if (read(u->fd, &msg, sizeof(msg)) != sizeof(msg))
		return -errno;
	if (msg.event != UFFD_EVENT_PAGEFAULT ||
	    msg.arg.pagefault.address - (uintptr_t)u->page >= u->size)
		return -EINVAL;
	return 0;
}

/* Fill the page with @src, which wakes the blocked thread. */
static int uffd_resolve(struct uffd_page *u, const void *src)
{
	struct uffdio_copy c = {
		.dst = (uintptr_t)u->page,
		.src = (uintptr_t)src,
		.len = u->size,
	};

	return ioctl(u->fd, UFFDIO_COPY, &c) ? -errno : 0;
}

static void uffd_close(struct uffd_page *u)
{
	if (u->page && u->page != MAP_FAILED)
		munmap(u->page, u->size);
	if (u->fd >= 0)
		close(u->fd);
}

#define UFFD_SETUP(u) do {						\
	int __err = uffd_setup(u);					\
	if (__err == -ENOSYS)						\
		SKIP(return, "userfaultfd(2) is not available (ENOSYS): "	\
		     "this kernel has no CONFIG_USERFAULTFD");		\
	ASSERT_EQ(0, __err);						\
} while (0)

/*
 * What a thread does in the background. It says it is done by writing
 * to a pipe (->done[1]) that the test polls (->done[0]): a pipe, not an
 * eventfd, which the debug kernels (tinyconfig) do not have.
 */
struct job {
	pthread_t thr;
	int done[2];
	int ret;
	int err;
};

/* Two jobs' pipes, made before either starts. */
#define JOBS_SETUP(j1, j2) do {						\
	ASSERT_EQ(0, pipe2((j1)->done, O_CLOEXEC));			\
	ASSERT_EQ(0, pipe2((j2)->done, O_CLOEXEC));			\
} while (0)

static int job_wait(struct job *j)
{
	struct pollfd pfd = { .fd = j->done[0], .events = POLLIN };

	return poll(&pfd, 1, GUARD_MS) == 1 ? 0 : -ETIMEDOUT;
}

static void job_finish(struct job *j, int ret)
{
	j->ret = ret;
	j->err = errno;
	if (write(j->done[1], "", 1) != 1)
		j->err = errno;
}

struct stats_read {
	struct job job;
	const char *name;
	void *buf;
	size_t size;
};

static void *stats_read_thread(void *arg)
{
	struct stats_read *r = arg;
	int fd = inst_open(r->name, 0, "stats");

	job_finish(&r->job, fd < 0 ? fd : read(fd, r->buf, r->size));
	if (fd >= 0)
		close(fd);
	return NULL;
}

struct destroyer {
	struct job job;
	const char *name;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	job_finish(&d->job, tu_instance_cmd("destroy %s", d->name));
	return NULL;
}

/*
 * A create of a name whose destroy is still removing its files fails
 * cleanly, or succeeds with every file: never without them. A stats
 * read whose user buffer never faults in holds the destroy up in the
 * files' removal (debugfs waits for the read), so the window is open
 * for as long as the test needs.
 */
TEST(create_while_destroying)
{
	struct destroyer d = { .name = "race" };
	struct stats_read r = { .name = "race" };
	struct uffd_page u;
	static char zero[65536];
	int i, fd, ret;

	UFFD_SETUP(&u);
	JOBS_SETUP(&r.job, &d.job);
	ASSERT_EQ(0, tu_instance_cmd("create race 4 2"));
	r.buf = u.page;
	r.size = u.size;
	ASSERT_EQ(0, pthread_create(&r.job.thr, NULL, stats_read_thread, &r));
	ASSERT_EQ(0, uffd_wait_fault(&u));
	ASSERT_EQ(0, pthread_create(&d.job.thr, NULL, destroy_thread, &d));
	/* Until the destroy has begun: the streams refuse new opens. */
	for (i = 0; i < GUARD_MS; i++) {
		fd = inst_open("race", 0, "stream");
		if (fd < 0)
			break;
		close(fd);
		usleep(1000);
	}
	ret = tu_instance_cmd("create race 4 2");
	if (ret) {
		EXPECT_EQ(-EEXIST, ret);
	}

	ASSERT_EQ(0, uffd_resolve(&u, zero));
	ASSERT_EQ(0, pthread_join(r.job.thr, NULL));
	ASSERT_EQ(0, pthread_join(d.job.thr, NULL));
	EXPECT_LT(0, r.job.ret);
	EXPECT_EQ(0, d.job.ret);
	/* The old files are gone now: a create that succeeded has its own. */
	if (!ret) {
		EXPECT_TRUE(inst_has_files("race"));
		EXPECT_EQ(0, tu_instance_cmd("destroy race"));
	}
	/* Once the destroy is over the name is free again. */
	ASSERT_EQ(0, tu_instance_cmd("create race 4 2"));
	EXPECT_TRUE(inst_has_files("race"));
	EXPECT_EQ(0, tu_instance_cmd("destroy race"));
	uffd_close(&u);
}

/* The rest of the system, while a GET is blocked on user memory. */
struct others {
	struct job job;
	char stats[1024];
	int stats_ret;
	int open_ret;
	int knob_ret;
	int destroy_ret;
};

static void *others_thread(void *arg)
{
	struct others *o = arg;
	char path[128];
	int fd;

	inst_path(path, sizeof(path), "uf", 0, "stats");
	o->stats_ret = tu_read_file(path, o->stats, sizeof(o->stats));
	o->open_ret = 0;
	if (tu_nr_cpus() > 1) {
		fd = inst_open("uf", 1, "stream");
		o->open_ret = fd < 0 ? fd : close(fd);
	}
	o->knob_ret = tu_knob("trace_clock", "mono");
	o->destroy_ret = tu_instance_cmd("destroy uf");
	job_finish(&o->job, 0);
	return NULL;
}

struct getter {
	struct job job;
	int fd;
	struct tring_get *get;
};

static void *get_thread(void *arg)
{
	struct getter *g = arg;

	job_finish(&g->job, ioctl(g->fd, TRING_IOC_GET, g->get));
	return NULL;
}

/*
 * A GET blocked on user memory that never faults in, at @where: its
 * argument (copied in) or its result array (copied out). Meanwhile
 * another thread reads the instance's stats, opens another CPU's stream,
 * writes a knob and destroys the instance: none of that may wait for
 * the GET. Then the fault is resolved and the GET completes.
 */
enum where { ARG_BLOCKS, RESULT_BLOCKS };

static void get_blocked(struct __test_metadata *_metadata, enum where where)
{
	const unsigned long n = 2 * EV_PER_SUBBUF + 18;
	struct tring_subbuf sb[4], *usb;
	struct tring_get get, *uget;
	static uint8_t src[65536];
	struct others o = { };
	struct getter g = { };
	struct seen sn = { };
	struct uffd_page u;
	struct tu_stream s;
	unsigned int i, taken;

	UFFD_SETUP(&u);
	JOBS_SETUP(&g.job, &o.job);
	ASSERT_EQ(0, tu_instance_cmd("create uf 4 8"));
	ASSERT_EQ(0, tu_instance_cmd("write uf 0 %lu %u", n, EV_LEN));
	ASSERT_EQ(0, inst_stream_open(&s, "uf", 0));
	g.fd = s.fd;
	memset(&get, 0, sizeof(get));
	get.size = sizeof(get);
	get.max = 4;
	if (where == ARG_BLOCKS) {
		/* The argument faults in with these contents. */
		get.subbufs = (uintptr_t)sb;
		memcpy(src, &get, sizeof(get));
		uget = (void *)u.page;
		usb = sb;
	} else {
		get.subbufs = (uintptr_t)u.page;
		uget = &get;
		usb = (void *)u.page;
	}
	g.get = uget;
	ASSERT_EQ(0, pthread_create(&g.job.thr, NULL, get_thread, &g));
	ASSERT_EQ(0, uffd_wait_fault(&u));

	ASSERT_EQ(0, pthread_create(&o.job.thr, NULL, others_thread, &o));
	EXPECT_EQ(0, job_wait(&o.job)) TH_LOG("blocked behind the GET");
	/* Whatever happened, let the GET go. */
	ASSERT_EQ(0, uffd_resolve(&u, src));
	ASSERT_EQ(0, pthread_join(g.job.thr, NULL));
	ASSERT_EQ(0, pthread_join(o.job.thr, NULL));
	EXPECT_LT(0, o.stats_ret);
	EXPECT_NE(NULL, strstr(o.stats, "events_written: "));
	EXPECT_EQ(0, o.open_ret);
	EXPECT_EQ(0, o.knob_ret);
	EXPECT_EQ(0, o.destroy_ret);

	/*
	 * Copied out after the fault: the two complete sub-buffers taken
	 * before it; copied in after it: those and the one the destroy
	 * flushed meanwhile.
	 */
	ASSERT_EQ(0, g.job.ret);
	taken = where == ARG_BLOCKS ? 3 : 2;
	ASSERT_EQ(taken, uget->count);
	for (i = 0; i < taken; i++) {
		EXPECT_EQ(i, usb[i].seq);
		check_packet(s.map + usb[i].offset, 4096, &sn);
	}
	EXPECT_EQ(0, tu_put(&s, 0, taken));
	EXPECT_EQ(3 - taken, drain_now(&s, &sn));
	EXPECT_EQ(0, sn.bad);
	EXPECT_EQ(n, sn.events);
	tu_stream_close(&s);
	uffd_close(&u);
}

TEST(get_blocked_copying_in)
{
	get_blocked(_metadata, ARG_BLOCKS);
}

TEST(get_blocked_copying_out)
{
	get_blocked(_metadata, RESULT_BLOCKS);
}

TEST_HARNESS_MAIN
