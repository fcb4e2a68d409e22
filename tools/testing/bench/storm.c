// SPDX-License-Identifier: GPL-2.0
/*
 * storm: the fixed-work workloads of make bench's tracer race, each
 * timing itself, so a recorder's start and stop never count.
 *
 *   storm syscall N [all]   N getppid() calls on CPU 0, or N on each CPU
 *                           at once (one process pinned per CPU)
 *   storm pingpong N [apart] two processes on CPU 0 (apart: the second
 *                           on CPU 1 when there is one) pass a byte back
 *                           and forth through two pipes N times: 2N
 *                           context switches; apart, 2N cross-CPU
 *                           wakeups instead, whose time under emulation
 *                           swings with the host's scheduling
 *   storm forkexec N        N times: fork, exec storm itself ("exit"),
 *                           wait for it
 *   storm run CMD [ARG]...  run CMD and time it (hackbench)
 *   storm paced RATE MS     getppid() calls on CPU 0 at RATE calls per
 *                           second (0: as fast as it can) for MS ms: a
 *                           source of events of a known rate; adds
 *                           "calls N" to the line
 *   storm latency N         N getppid() calls on CPU 0, each timed alone
 *                           (CLOCK_MONOTONIC around it): adds "p50 N
 *                           p99 N p999 N" (ns) to the line
 *
 * Prints one line: "ns <elapsed> cpu_ns <user+sys of the workload and its
 * children>", to standard output or, when STORM_OUT names a file, there
 * (so a recorder that runs storm can keep its own output apart). CMD's
 * own standard output goes to /dev/null. When STORM_MARK is a number,
 * storm runs the instruction counter's mark (tools/testing/insn) with it
 * as the tag just after it starts its clock and just before it stops
 * it, and adds "mark TAG" to the line.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../insn/tring_insn_mark.h"

/* What a workload adds to the line. */
struct storm_result {
	unsigned long long calls;
	unsigned int pct[3];
	int paced;
	int latency;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void reap(void)
{
	int status;

	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			exit(1);
}

static void syscalls(unsigned long n)
{
	while (n--)
		syscall(SYS_getppid);
}

static void storm_syscall(unsigned long n, int all)
{
	long cpus = all ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	long c;

	for (c = 0; c < cpus; c++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			pin(c);
			syscalls(n);
			_exit(0);
		}
	}
	reap();
}

/*
 * getppid() at @rate calls a second for @ms ms, on CPU 0, in a child
 * (its CPU time counts as the other workloads'): the calls it made
 * before the time was up, behind schedule as much as it fell behind.
 */
static unsigned long long storm_paced(unsigned long rate, unsigned long ms)
{
	unsigned long long t0, t, end, done = 0, target;
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin(0);
		t0 = now_ns();
		end = t0 + ms * 1000000ULL;
		while ((t = now_ns()) < end) {
			target = rate ? (t - t0) * rate / 1000000000ULL : done + 64;
			while (done < target) {
				syscall(SYS_getppid);
				done++;
			}
		}
		if (write(fd[1], &done, sizeof(done)) != sizeof(done))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &done, sizeof(done)) != sizeof(done))
		die("paced: no count");
	close(fd[0]);
	reap();
	return done;
}

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * @n getppid() calls on CPU 0, in a child, each timed alone; the child
 * sorts the times and sends back the 50th, 99th and 99.9th percentiles.
 */
static void storm_latency(unsigned long n, unsigned int pct[3])
{
	unsigned long long t;
	unsigned int *lat;
	unsigned long i;
	int fd[2];
	pid_t pid;

	if (!n || pipe(fd))
		die("latency");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin(0);
		lat = malloc(n * sizeof(*lat));
		if (!lat)
			_exit(1);
		for (i = 0; i < n; i++) {
			t = now_ns();
			syscall(SYS_getppid);
			t = now_ns() - t;
			lat[i] = t > ~0U ? ~0U : t;
		}
		qsort(lat, n, sizeof(*lat), cmp_u32);
		pct[0] = lat[n / 2];
		pct[1] = lat[n * 99 / 100];
		pct[2] = lat[n * 999 / 1000];
		if (write(fd[1], pct, 3 * sizeof(*pct)) != 3 * sizeof(*pct))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], pct, 3 * sizeof(*pct)) != 3 * sizeof(*pct))
		die("latency: no result");
	close(fd[0]);
	reap();
}

static void storm_pingpong(unsigned long n, int apart)
{
	int ab[2], ba[2];
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin(apart && sysconf(_SC_NPROCESSORS_ONLN) > 1);
		while (n--)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	pin(0);
	while (n--)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pipe i/o");
	reap();
}

static void storm_forkexec(unsigned long n, const char *self)
{
	while (n--) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			execl(self, self, "exit", (char *)NULL);
			_exit(127);
		}
		reap();
	}
}

static void storm_run(char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	reap();
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: storm syscall N [all] | pingpong N [apart] | forkexec N\n"
		"       storm run CMD [ARG]...\n"
		"       storm paced RATE MS | latency N\n"
		"Runs a fixed amount of work and prints \"ns ELAPSED cpu_ns CPU\"\n"
		"(the workload's and its children's user+sys time), to the file\n"
		"STORM_OUT names if set. STORM_MARK=TAG: the instruction counter's\n"
		"mark (tools/testing/insn) with TAG around the work; adds \"mark TAG\".\n"
		"  syscall N [all]  N getppid() calls on CPU 0, or on each CPU at once\n"
		"  pingpong N [apart]  a byte passed back and forth N times through\n"
		"                   pipes by two processes on CPU 0 (apart: on CPU 0\n"
		"                   and 1)\n"
		"  forkexec N       N times fork, exec storm (\"exit\") and wait\n"
		"  run CMD...       run CMD (e.g. hackbench) and time it\n"
		"  paced RATE MS    getppid() at RATE calls/s (0: full speed) on CPU 0\n"
		"                   for MS ms; adds \"calls N\" (the calls made)\n"
		"  latency N        N getppid() calls on CPU 0, each timed; adds\n"
		"                   \"p50 N p99 N p999 N\" (ns per call)\n");
}

/* Runs the workload argv names; 2 for a usage error. */
static int storm_workload(int argc, char **argv, struct storm_result *res)
{
	unsigned long n = strtoul(argv[2], NULL, 0);

	if (!strcmp(argv[1], "syscall"))
		storm_syscall(n, argc > 3 && !strcmp(argv[3], "all"));
	else if (!strcmp(argv[1], "pingpong"))
		storm_pingpong(n, argc > 3 && !strcmp(argv[3], "apart"));
	else if (!strcmp(argv[1], "forkexec"))
		storm_forkexec(n, "/proc/self/exe");
	else if (!strcmp(argv[1], "run"))
		storm_run(argv + 2);
	else if (!strcmp(argv[1], "latency")) {
		res->latency = 1;
		storm_latency(n, res->pct);
	} else if (!strcmp(argv[1], "paced") && argc == 4) {
		res->paced = 1;
		res->calls = storm_paced(n, strtoul(argv[3], NULL, 0));
	} else {
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct storm_result res = { 0 };
	const char *mark = getenv("STORM_MARK");
	unsigned long tag = mark ? strtoul(mark, NULL, 0) : 0;
	unsigned long long t0, t1;
	struct rusage ru;

	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	t0 = now_ns();
	if (mark)
		tring_insn_mark_tag(tag);
	if (storm_workload(argc, argv, &res)) {
		usage(stderr);
		return 2;
	}
	if (mark)
		tring_insn_mark_tag(tag);
	t1 = now_ns();
	getrusage(RUSAGE_CHILDREN, &ru);
	if (getenv("STORM_OUT") && !freopen(getenv("STORM_OUT"), "w", stdout))
		die("STORM_OUT");
	printf("ns %llu cpu_ns %llu", t1 - t0,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL);
	if (res.paced)
		printf(" calls %llu", res.calls);
	if (res.latency)
		printf(" p50 %u p99 %u p999 %u", res.pct[0], res.pct[1], res.pct[2]);
	if (mark)
		printf(" mark %lu", tag);
	printf("\n");
	return 0;
}
