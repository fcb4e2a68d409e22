// SPDX-License-Identifier: GPL-2.0
/*
 * tring lifecycle tests: unloading the module while a stream is open or
 * mapped, and destroying an instance buffer under an open reader.
 */
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define MODDIR	"/lib/tring"

static int mod_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static int mod_load(const char *name)
{
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), MODDIR "/%s.ko", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	err = syscall(__NR_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return err;
}

static int reload_all(void)
{
	int err;

	mod_unload("tring_test");
	mod_unload("tring");
	err = mod_load("tring");
	return err ? err : mod_load("tring_test");
}

TEST(rmmod_refused_while_open)
{
	struct tu_stream s;
	struct stat st;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, tu_stream_open(&s, 0));
	ASSERT_EQ(0, mod_unload("tring_test"));
	EXPECT_NE(0, mod_unload("tring"));
	EXPECT_EQ(0, stat(TRING_DIR "/per_cpu/cpu0/stream", &st));
	tu_stream_close(&s);
	EXPECT_EQ(0, mod_unload("tring"));
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
	ASSERT_EQ(0, mod_unload("tring_test"));
	EXPECT_NE(0, mod_unload("tring"));
	/* The mapping still reads. */
	EXPECT_TRUE(tu_all_zero(s.map, s.info.map_size));
	tu_stream_close(&s);
	EXPECT_EQ(0, mod_unload("tring"));
	ASSERT_EQ(0, reload_all());
}

TEST(reload_many_times)
{
	int i;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, reload_all());
}

static int instance_cmd(const char *fmt, ...)
{
	char cmd[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tu_write_file(TRING_TEST_DIR "/instance", cmd);
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
	ASSERT_EQ(0, instance_cmd("create lc 4 4"));
	EXPECT_EQ(-EEXIST, instance_cmd("create lc 4 4"));
	EXPECT_EQ(-EINVAL, instance_cmd("create bad 3 4"));
	ASSERT_EQ(0, stat(TRING_DIR "/instances/lc/per_cpu/cpu0/stream", &st));
	/* Its metadata describes what the trigger writes into it. */
	ASSERT_LT(0, tu_read_file(TRING_DIR "/instances/lc/metadata", meta,
				  sizeof(meta)));
	EXPECT_NE(NULL, strstr(meta, "buffer = \"lc\";"));
	EXPECT_NE(NULL, strstr(meta, "name = \"test\";\n\tid = 3;"));
	ASSERT_EQ(0, instance_cmd("write lc 0 25 40"));
	ASSERT_EQ(0, tu_stream_open_path(&s, TRING_DIR
					 "/instances/lc/per_cpu/cpu0/stream", 0));
	EXPECT_EQ(4096, s.info.subbuf_size);
	EXPECT_EQ(4, s.info.subbuf_count);
	ASSERT_EQ(0, tu_flush(&s, &pos));
	ASSERT_LT(0, tu_drain(&s, pos, 2000, count_events, &events));
	EXPECT_EQ(25, events);
	tu_stream_close(&s);
	ASSERT_EQ(0, instance_cmd("destroy lc"));
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
	ASSERT_EQ(0, instance_cmd("create gone 4 4"));
	ASSERT_EQ(0, instance_cmd("write gone 0 30 40"));
	ASSERT_EQ(0, tu_stream_open_path(&s, TRING_DIR
					 "/instances/gone/per_cpu/cpu0/stream", 0));
	ASSERT_EQ(0, instance_cmd("destroy gone"));
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
	ASSERT_EQ(0, mod_unload("tring_test"));
	EXPECT_NE(0, mod_unload("tring"));
	tu_stream_close(&s);
	ASSERT_EQ(0, reload_all());
}

TEST(unload_with_instances_left)
{
	struct stat st;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, instance_cmd("create left1 4 2"));
	ASSERT_EQ(0, instance_cmd("create left2 8 4 overwrite"));
	ASSERT_EQ(0, instance_cmd("write left2 0 500 100"));
	ASSERT_EQ(0, mod_unload("tring_test"));
	EXPECT_NE(0, stat(TRING_DIR "/instances/left1", &st));
	ASSERT_EQ(0, mod_unload("tring"));
	ASSERT_EQ(0, reload_all());
}

/*
 * Enabling and disabling events patches their tracepoints' call sites
 * (text_poke_bp(): int3, IPI, rewrite). Under QEMU's TCG a vCPU that runs
 * such a site while another vCPU patches it can execute the int3 after
 * the patch is complete, from a stale translation ("Oops: int3" with the
 * finished instruction in memory, seen in __schedule() and in
 * syscall_trace_enter()), or wedge. So these tests run on CPU 0 with
 * their workload, and enable only events whose sites nothing on the
 * other CPU runs meanwhile (not the scheduler's, not the irq group's);
 * the guest trace tests enable every event once.
 */
static int enable_events(const char *val)
{
	static const char * const paths[] = {
		TRING_DIR "/events/syscalls/enable",
		TRING_DIR "/events/sched/sched_process_fork/enable",
		TRING_DIR "/events/sched/sched_process_exec/enable",
		TRING_DIR "/events/sched/sched_process_exit/enable",
	};
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		err = tu_write_file(paths[i], val);
		if (err)
			return err;
	}
	return 0;
}

/* Run on CPU 0 from now on, and so do children forked later. */
static int stay_on_cpu0(void)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus) ? -errno : 0;
}

/*
 * Unloading with events enabled while a workload (forks, exits, system
 * calls) runs: the probes are detached, and waited for, before anything
 * they use goes away. The workload shares CPU 0 with the unload (see
 * enable_events()): it runs whenever the unload sleeps, in the middle of
 * detaching.
 */
TEST(unload_with_events_enabled)
{
	pid_t pid;
	int i, status;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, stay_on_cpu0());
	ASSERT_EQ(0, enable_events("1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		for (i = 0; i < 2000; i++) {
			if (fork() == 0)
				_exit(0);
			wait(NULL);
			getppid();
		}
		_exit(0);
	}
	usleep(50000);
	ASSERT_EQ(0, mod_unload("tring_test"));
	EXPECT_EQ(0, mod_unload("tring"));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, reload_all());
	EXPECT_EQ(0, enable_events("0"));
}

/* Events written on every CPU, from the streams' counters. */
static long events_written_all(void)
{
	struct tring_status st;
	struct tu_stream s;
	long sum = 0;
	int cpu;

	for (cpu = 0; cpu < tu_nr_cpus(); cpu++) {
		if (tu_stream_open(&s, cpu))
			return -1;
		if (tu_status(&s, &st)) {
			tu_stream_close(&s);
			return -1;
		}
		sum += st.events_written;
		tu_stream_close(&s);
	}
	return sum;
}

static void make_syscalls(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		getppid();
}

/*
 * Enabling and disabling while events fire: events flow while enabled
 * and stop when disabled (on CPU 0: see enable_events()).
 */
TEST(enable_disable_while_tracing)
{
	const char *sys = TRING_DIR "/events/syscalls/enable";
	long before, after;
	char val[8];
	int i;

	ASSERT_EQ(0, reload_all());
	ASSERT_EQ(0, stay_on_cpu0());
	for (i = 0; i < 3; i++) {
		before = events_written_all();
		ASSERT_LE(0, before);
		ASSERT_EQ(0, tu_write_file(sys, "1"));
		ASSERT_LT(0, tu_read_file(sys, val, sizeof(val)));
		EXPECT_EQ('1', val[0]);
		make_syscalls();
		after = events_written_all();
		/* 1000 getppid() calls: 2000 sys_getppid/exit_syscall. */
		EXPECT_LE(before + 2000, after);
		ASSERT_EQ(0, tu_write_file(sys, "0"));
		ASSERT_LT(0, tu_read_file(TRING_DIR "/events/enable", val,
					  sizeof(val)));
		EXPECT_EQ('0', val[0]);
		before = events_written_all();
		make_syscalls();
		EXPECT_EQ(before, events_written_all());
	}
}

TEST(big_buffer)
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

TEST_HARNESS_MAIN
