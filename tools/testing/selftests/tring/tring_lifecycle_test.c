// SPDX-License-Identifier: GPL-2.0
/*
 * tring lifecycle tests: unloading the module while a stream is open or
 * mapped, or with events enabled under load; destroying an instance
 * buffer under an open reader; enabling and disabling events while every
 * CPU runs their tracepoints; statedumps, also while threads come and go.
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

/* Reload tring.ko with module parameters @params, and tring_test.ko. */
static int reload_with(const char *params)
{
	int err;

	tu_mod_unload("tring_test");
	tu_mod_unload("tring");
	err = tu_mod_load_params("tring", params);
	return err ? err : tu_mod_load("tring_test");
}

/*
 * Reload for a test of the core: without the generic events (every
 * kernel event's debugfs directory makes a load and an unload seconds
 * slower on the debug kernels); reload_many_times and
 * tring_generic_test.sh load with them.
 */
static int reload_all(void)
{
	return reload_with("generic_events=0");
}

TEST(rmmod_refused_while_open)
{
	struct tu_stream s;
	struct stat st;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	EXPECT_NE(0, tu_mod_unload("tring"));
	EXPECT_EQ(0, stat(TRING_DIR "/per_cpu/cpu0/stream", &st));
	tu_stream_close(&s);
	EXPECT_EQ(0, tu_mod_unload("tring"));
	EXPECT_NE(0, stat(TRING_DIR, &st));
	ASSERT_EQ(0, reload_all());
}

TEST(rmmod_refused_while_mapped)
{
	struct tu_stream s;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	close(s.fd);
	s.fd = -1;
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	EXPECT_NE(0, tu_mod_unload("tring"));
	/* The mapping still reads. */
	EXPECT_TRUE(tu_all_zero(s.map, s.info.map_size));
	tu_stream_close(&s);
	EXPECT_EQ(0, tu_mod_unload("tring"));
	ASSERT_EQ(0, reload_all());
}

/*
 * The tests with a workload on every CPU, the big buffer and the loads
 * with the generic events: slow under emulation (a debug kernel, 4 vCPUs,
 * a busy host), longer than the harness's default 30 s: they get a hang
 * guard of 300 s instead.
 */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

/*
 * Every other load with the generic events, the last one with them (a
 * load and an unload of those take seconds on the debug kernels).
 */
TEST_F_TIMEOUT(slow, reload_many_times, 300)
{
	int i;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, reload_with(i % 2 ? "generic_events=0" : ""));
}

static int count_events(const uint8_t *pkt, const struct tring_subbuf *sb,
			void *arg)
{
	*(uint64_t *)arg += ((const struct tring_packet_header *)pkt)->events_count;
	return 0;
}

TEST(instance_files_and_data)
{
	static char meta[16384];
	struct tu_stream s;
	uint64_t pos, events = 0;
	struct stat st;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_instance_cmd("create lc 4 4"));
	EXPECT_EQ(-EEXIST, tu_instance_cmd("create lc 4 4"));
	EXPECT_EQ(-EINVAL, tu_instance_cmd("create bad 3 4"));
	ASSERT_EQ(0, stat(TRING_DIR "/instances/lc/per_cpu/cpu0/stream", &st));
	/* Its metadata describes what the trigger writes into it. */
	ASSERT_LT(0, tu_read_file(TRING_DIR "/instances/lc/metadata", meta,
				  sizeof(meta)));
	EXPECT_NE(NULL, strstr(meta, "buffer = \"lc\";"));
	EXPECT_NE(NULL, strstr(meta, "name = \"test\";\n\tid = 3;"));
	ASSERT_EQ(0, tu_instance_cmd("write lc 0 25 40"));
	ASSERT_EQ(0, tu_stream_open_path(&s, TRING_DIR
					 "/instances/lc/per_cpu/cpu0/stream", 0));
	EXPECT_EQ(4096, s.info.subbuf_size);
	EXPECT_EQ(4, s.info.subbuf_count);
	ASSERT_EQ(0, tu_flush(&s, &pos));
	ASSERT_LT(0, tu_drain(&s, pos, 2000, count_events, &events));
	EXPECT_EQ(25, events);
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_instance_cmd("destroy lc"));
	EXPECT_NE(0, stat(TRING_DIR "/instances/lc", &st));
}

TEST(instance_destroyed_under_reader)
{
	struct pollfd pfd = { .events = POLLIN };
	struct tring_status status;
	struct tu_stream s;
	uint64_t pos, events = 0;
	struct stat st;
	int fd;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_instance_cmd("create gone 4 4"));
	ASSERT_EQ(0, tu_instance_cmd("write gone 0 30 40"));
	ASSERT_EQ(0, tu_stream_open_path(&s, TRING_DIR
					 "/instances/gone/per_cpu/cpu0/stream", 0));
	ASSERT_EQ(0, tu_instance_cmd("destroy gone"));
	/* The files are gone; a new open fails. */
	EXPECT_NE(0, stat(TRING_DIR "/instances/gone", &st));
	fd = open(TRING_DIR "/instances/gone/per_cpu/cpu0/stream", O_RDONLY);
	EXPECT_EQ(-1, fd);
	/* The open reader still gets everything that was written... */
	ASSERT_EQ(0, tu_flush(&s, &pos));
	ASSERT_LT(0, tu_drain(&s, pos, 2000, count_events, &events));
	EXPECT_EQ(30, events);
	/* ...and learns the buffer is gone: flag, then hang-up. */
	ASSERT_EQ(0, tu_status(&s, &status));
	EXPECT_EQ(TRING_STATUS_DEAD, status.flags);
	pfd.fd = s.fd;
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_EQ(POLLHUP, pfd.revents);
	/* The module cannot go while the reader is open. */
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	EXPECT_NE(0, tu_mod_unload("tring"));
	tu_stream_close(&s);
	ASSERT_EQ(0, reload_all());
}

TEST(unload_with_instances_left)
{
	struct stat st;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_instance_cmd("create left1 4 2"));
	ASSERT_EQ(0, tu_instance_cmd("create left2 8 4 overwrite"));
	ASSERT_EQ(0, tu_instance_cmd("write left2 0 500 100"));
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	EXPECT_NE(0, stat(TRING_DIR "/instances/left1", &st));
	ASSERT_EQ(0, tu_mod_unload("tring"));
	ASSERT_EQ(0, reload_all());
}

/*
 * Enabling and disabling events patches their tracepoints' call sites
 * (text_poke_bp(): int3, IPI, rewrite) while every CPU runs them: the
 * tests below do it with a workload on every CPU. (Debian 12's QEMU 7.2
 * could run a stale translation of a patched site under multi-threaded
 * TCG, an "Oops: int3" or a wedged vCPU; make check uses QEMU 10.)
 */
#define MAX_LOAD	64

/* One workload process per CPU, pinned to it, until load_stop(). */
struct load {
	int n;
	pid_t pid[MAX_LOAD];
};

/*
 * Forks, exits, system calls, yields and sleeps (timer interrupts),
 * forever: every event's site runs on the CPU, often, while leaving room
 * for the test itself (a debug kernel on 4 emulated CPUs is slow).
 */
static void __attribute__((noreturn)) load_run(int cpu)
{
	cpu_set_t cpus;
	int i, n;

	/*
	 * Die with the test: one stopped by a failed assertion never calls
	 * load_stop(), and a workload left running would hold the test's
	 * output open and keep the guest busy until it times out.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (n = 0;; n++) {
		if (n % 10 == 0 && fork() == 0)
			_exit(0);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		for (i = 0; i < 10; i++)
			getppid();
		sched_yield();
		usleep(200);
	}
}

static int load_start(struct load *l)
{
	int cpu;

	l->n = 0;
	for (cpu = 0; cpu < tu_nr_cpus() && cpu < MAX_LOAD; cpu++) {
		l->pid[l->n] = fork();
		if (l->pid[l->n] < 0)
			return -errno;
		if (l->pid[l->n] == 0)
			load_run(cpu);
		l->n++;
	}
	return 0;
}

/* Stop the workload; 0 if every process was still running. */
static int load_stop(struct load *l)
{
	int i, status, err = 0;

	for (i = 0; i < l->n; i++)
		kill(l->pid[i], SIGKILL);
	for (i = 0; i < l->n; i++)
		if (waitpid(l->pid[i], &status, 0) != l->pid[i] ||
		    !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			err = -1;
	l->n = 0;
	return err;
}

/*
 * Unloading with every event enabled while a workload (forks, exits,
 * system calls, context switches, interrupts) runs on every CPU: the
 * probes are detached, and waited for, before anything they use goes
 * away.
 */
TEST_F_TIMEOUT(slow, unload_with_events_enabled, 300)
{
	struct load l;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "1"));
	ASSERT_EQ(0, load_start(&l));
	usleep(50000);
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	EXPECT_EQ(0, tu_mod_unload("tring"));
	EXPECT_EQ(0, load_stop(&l));
	ASSERT_EQ(0, reload_all());
}

static void make_syscalls(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		getppid();
}

/*
 * Disable every event: once that returns, not one more is written, on
 * any CPU (the workload still runs).
 */
static void disable_all_exactly(struct __test_metadata *_metadata)
{
	char val[8];
	long before;

	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
	ASSERT_LT(0, tu_read_file(TRING_DIR "/events/enable", val, sizeof(val)));
	EXPECT_EQ('0', val[0]);
	before = tu_events_written_all();
	ASSERT_LE(0, before);
	make_syscalls();
	usleep(20000);
	EXPECT_EQ(before, tu_events_written_all());
}

/*
 * Enabling and disabling every event while a workload runs on every
 * CPU: events flow while enabled, and once disabling returns not one
 * more is written, on any CPU.
 */
TEST_F_TIMEOUT(slow, enable_disable_while_tracing, 300)
{
	long before, after;
	struct load l;
	char val[8];
	int i;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, load_start(&l));
	for (i = 0; i < 3; i++) {
		before = tu_events_written_all();
		ASSERT_LE(0, before);
		ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "1"));
		ASSERT_LT(0, tu_read_file(TRING_DIR "/events/enable", val,
					  sizeof(val)));
		EXPECT_EQ('1', val[0]);
		make_syscalls();
		after = tu_events_written_all();
		/* 1000 getppid() calls: at least 2000 sys_getppid/exit_syscall. */
		EXPECT_LE(before + 2000, after);
		disable_all_exactly(_metadata);
		fprintf(stderr, "# round %d: %ld events while enabled\n", i,
			after - before);
	}
	EXPECT_EQ(0, load_stop(&l));
}

/*
 * A generic event (one of the kernel's, recorded through perf): its
 * format file names the kernel's id. Their enable files cost a perf
 * event per CPU each and are tested in tring_generic_test.sh.
 */
static bool generic_event(const char *dir)
{
	char path[700], text[256];

	snprintf(path, sizeof(path), "%s/format", dir);
	if (tu_read_file(path, text, sizeof(text)) <= 0)
		return false;
	return strstr(text, "kernel_id:");
}

/*
 * Every enable file under events/ of tring's own events: the switch,
 * each group's, each event's.
 */
static int enable_files(char paths[][640], int max)
{
	struct dirent *g, *e;
	DIR *dg, *de;
	char dir[300];
	struct stat st;
	int n = 0, first;

	snprintf(paths[n++], 640, TRING_DIR "/events/enable");
	dg = opendir(TRING_DIR "/events");
	if (!dg)
		return -errno;
	while ((g = readdir(dg)) && n < max) {
		if (g->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), TRING_DIR "/events/%s", g->d_name);
		de = opendir(dir);
		if (!de)
			continue;
		first = n;
		while ((e = readdir(de)) && n + 1 < max) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(paths[n], 640, "%s/%s", dir, e->d_name);
			if (generic_event(paths[n]))
				continue;
			snprintf(paths[n], 640, "%s/%s/enable", dir, e->d_name);
			if (!stat(paths[n], &st))
				n++;
		}
		/*
		 * The group's own switch, if it has one of tring's events (a
		 * group of generic events only switches those).
		 */
		snprintf(paths[n], 640, "%s/enable", dir);
		if (n > first && !stat(paths[n], &st))
			n++;
		closedir(de);
	}
	closedir(dg);
	return n;
}

/*
 * Toggling every enable file (the switch, the groups, the events) on
 * and off, over and over, while a workload runs on every CPU: every
 * write succeeds, and after the last "0" to events/enable not one
 * event more is written.
 */
/* An event's own enable file (events/<group>/<event>/enable)? */
static int is_event_file(const char *path)
{
	const char *p = path + strlen(TRING_DIR "/events/");
	int slashes = 0;

	for (; *p; p++)
		slashes += *p == '/';
	return slashes == 2;
}

/*
 * Rounds of toggle_under_load: 3, or TRING_TOGGLE_ROUNDS (make check's
 * 4-vCPU run, where a round takes 40 s, runs 1).
 */
static int toggle_rounds(void)
{
	const char *env = getenv("TRING_TOGGLE_ROUNDS");
	int n = env ? atoi(env) : 0;

	return n > 0 ? n : 3;
}

TEST_F_TIMEOUT(slow, toggle_under_load, 300)
{
	static char paths[64][640];
	int n, i, round, err, missing, rounds = toggle_rounds();
	struct load l;

	ASSERT_EQ(0, reload_all());
	n = enable_files(paths, 64);
	/* The switch, 3 groups and their 11 events at least. */
	ASSERT_LE(15, n);
	ASSERT_EQ(0, load_start(&l));
	for (round = 0; round < rounds; round++) {
		missing = 0;
		for (i = 0; i < n; i++) {
			err = tu_write_file(paths[i], "1");
			/*
			 * An event whose tracepoint this kernel lacks (net
			 * without CONFIG_NET) refuses; the switch and the
			 * groups skip it.
			 */
			if (err == -ENODEV && is_event_file(paths[i])) {
				missing++;
				continue;
			}
			ASSERT_EQ(0, err);
			ASSERT_EQ(0, tu_write_file(paths[i], "0"));
		}
		fprintf(stderr, "# round %d: %d enable files toggled, %d events this kernel lacks\n",
			round, n - missing, missing);
		ASSERT_GT(n / 2, missing);
	}
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "1"));
	disable_all_exactly(_metadata);
	EXPECT_EQ(0, load_stop(&l));
}

TEST_F_TIMEOUT(slow, big_buffer, 300)
{
	struct tu_stream s;

	ASSERT_EQ(0, reload_all());
	/* 64 MiB per CPU, allocated page by page. */
	ASSERT_EQ(0, tu_reset_buffer(64, 1024, 0));
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	EXPECT_EQ(64ULL << 20, s.info.map_size);
	EXPECT_TRUE(tu_all_zero(s.map, s.info.map_size));
	tu_stream_close(&s);
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

/* Threads /proc lists now. */
static int nr_threads(void)
{
	struct dirent *p, *t;
	char path[300];
	DIR *dp, *dt;
	int n = 0;

	dp = opendir("/proc");
	if (!dp)
		return -1;
	while ((p = readdir(dp))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		dt = opendir(path);
		while (dt && (t = readdir(dt)))
			n += t->d_name[0] != '.';
		if (dt)
			closedir(dt);
	}
	closedir(dp);
	return n;
}

/*
 * A statedump writes start, a thread's state for each thread, the
 * interrupts and block devices, and end: on a quiet machine two dumps
 * write the same number of events, at least the threads plus two.
 */
TEST(statedump_counts)
{
	long before, mid, after;
	int threads;

	ASSERT_EQ(0, reload_all());
	threads = nr_threads();
	ASSERT_LT(10, threads);
	before = tu_events_written_all();
	ASSERT_LE(0, before);
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/statedump", "1"));
	mid = tu_events_written_all();
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/statedump", "1"));
	after = tu_events_written_all();
	fprintf(stderr, "# %d threads; statedumps of %ld and %ld events\n",
		threads, mid - before, after - mid);
	EXPECT_LE(before + 2 + threads, mid);
	EXPECT_EQ(mid - before, after - mid);
	/* "0" asks for nothing; anything else is refused. */
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/statedump", "0"));
	EXPECT_EQ(after, tu_events_written_all());
	EXPECT_NE(0, tu_write_file(TRING_DIR "/statedump", "dump"));
}

/*
 * Statedumps while threads are born and die on every CPU, with every
 * event enabled: the walk of the thread list, the interrupts and the
 * block devices holds up (no splat on the debug kernels), and each dump
 * completes.
 */
TEST_F_TIMEOUT(slow, statedump_under_load, 300)
{
	long before;
	struct load l;
	int i;

	ASSERT_EQ(0, reload_all());
	/* Overwrite mode: with no reader, writes go on when it is full. */
	ASSERT_EQ(0, tu_reset_buffer(16, 16, 1));
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "1"));
	ASSERT_EQ(0, load_start(&l));
	for (i = 0; i < 20; i++) {
		before = tu_events_written_all();
		ASSERT_EQ(0, tu_write_file(TRING_DIR "/statedump", "1"));
		EXPECT_LT(before + 10, tu_events_written_all());
	}
	disable_all_exactly(_metadata);
	EXPECT_EQ(0, load_stop(&l));
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

TEST_HARNESS_MAIN
