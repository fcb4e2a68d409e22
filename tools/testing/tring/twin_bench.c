// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: write-side benchmark. trace_write_inline() of an 8-byte
 * payload in a loop, by 1 to TWIN_NR_CPUS writers at once (threads, each
 * its own "CPU" and ring: nothing shared but the cache hierarchy, as on
 * a real machine), in overwrite mode so that no write ever fails, with
 * the module's default shape (64 KiB sub-buffers, 16 of them). Built
 * without the test hooks, with 64 CPUs, so that the core's scaling can
 * be measured natively on a many-core machine.
 *
 *   twin_bench [events] [--threads N,...]  timings (twin_bench --help)
 *   twin_bench --callgrind events  only the measured loop, for callgrind:
 *                                  bench_loop() is the function to count
 *                                  (twin_callgrind.sh does it)
 */
#include <ctype.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "twin.h"

#define SUBBUF		(64 * 1024)
#define NSUBBUF		16
#define EVENT_ID	5

static struct tring_buffer *buf;

/* The measured loop; not inlined so that a profiler can find it. */
noinline void bench_loop(struct tring_buffer *b, unsigned long n);
noinline void bench_loop(struct tring_buffer *b, unsigned long n)
{
	unsigned long i, payload = 0x0123456789abcdefUL;

	for (i = 0; i < n; i++) {
		payload += i;
		if (unlikely(trace_write_inline(b, EVENT_ID, &payload,
						sizeof(payload))))
			abort();
	}
}

/* The same loop under another name, for warming up unobserved. */
noinline void warm_loop(struct tring_buffer *b, unsigned long n);
noinline void warm_loop(struct tring_buffer *b, unsigned long n)
{
	unsigned long i, payload = 0;

	for (i = 0; i < n; i++)
		if (unlikely(trace_write_inline(b, EVENT_ID, &payload,
						sizeof(payload))))
			abort();
}

/*
 * The floor: the same loop, a clock read and a plain store of the
 * timestamp and payload into per-CPU memory, no buffer. Counted apart by
 * callgrind, so tring's own cost is bench_loop's minus this.
 */
static unsigned long floor_mem[TWIN_NR_CPUS][2048];

noinline void floor_loop(unsigned long n);
noinline void floor_loop(unsigned long n)
{
	unsigned long i, payload = 0x0123456789abcdefUL, pos = 0;
	unsigned long *mem = floor_mem[twin_this_cpu];

	for (i = 0; i < n; i++) {
		payload += i;
		mem[pos] = twin_clock_ns(0);
		mem[pos + 1] = payload;
		pos = (pos + 2) & 2047;
	}
}

noinline void clock_loop(unsigned long n);
noinline void clock_loop(unsigned long n)
{
	unsigned long long sum = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		sum += twin_clock_ns(0);
	if (!sum)
		abort();
}

struct job {
	int cpu;
	unsigned long n;
	double ns;
};

/* Writers of one run start together: each waits here after warming up. */
static pthread_barrier_t start_line;

static void *job_fn(void *arg)
{
	struct job *j = arg;
	unsigned long long t0;

	twin_cpu_register(j->cpu);
	warm_loop(buf, j->n / 16);
	pthread_barrier_wait(&start_line);
	t0 = twin_mono_ns();
	bench_loop(buf, j->n);
	j->ns = (double)(twin_mono_ns() - t0) / j->n;
	twin_cpu_unregister();
	return NULL;
}

static void check_written(unsigned long expect)
{
	unsigned long total = 0;
	struct tring_counts c;
	int cpu;

	for_each_possible_cpu(cpu) {
		tring_cpu_counts(twin_cb(buf, cpu), &c);
		total += c.events_written;
		if (c.events_discarded || c.events_too_big)
			abort();
	}
	if (total != expect) {
		fprintf(stderr, "wrote %lu events, counted %lu\n", expect,
			total);
		exit(1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * @nthreads writers at once, writer i as CPU i on its own ring, pinned
 * to host CPU i modulo the host's count; each writes @n events. Prints
 * the per-writer rate (median, slowest, fastest) and the total; returns
 * the median per-writer rate in M events/s.
 */
static double run_threads(int nthreads, unsigned long n, int host_cpus,
			  double one)
{
	struct job jobs[TWIN_NR_CPUS];
	pthread_t t[TWIN_NR_CPUS];
	double rate[TWIN_NR_CPUS], total = 0, med;
	cpu_set_t set;
	int i;

	pthread_barrier_init(&start_line, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		jobs[i] = (struct job){ .cpu = i, .n = n };
		if (pthread_create(&t[i], NULL, job_fn, &jobs[i]))
			abort();
		CPU_ZERO(&set);
		CPU_SET(i % host_cpus, &set);
		pthread_setaffinity_np(t[i], sizeof(set), &set);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		rate[i] = 1e3 / jobs[i].ns;
		total += rate[i];
	}
	pthread_barrier_destroy(&start_line);
	qsort(rate, nthreads, sizeof(rate[0]), cmp_double);
	med = nthreads % 2 ? rate[nthreads / 2] :
	      (rate[nthreads / 2 - 1] + rate[nthreads / 2]) / 2;
	printf("%2d writer%s %8.2f M events/s per writer (slowest %.2f, "
	       "fastest %.2f), %8.2f together", nthreads,
	       nthreads > 1 ? "s:" : ": ", med, rate[0], rate[nthreads - 1],
	       total);
	if (one > 0)
		printf(", per writer %.2fx one writer's", med / one);
	printf("\n");
	return med;
}

/* "1,2,4": the thread counts; 0 at the end. */
static int parse_threads(const char *arg, int *counts, int max)
{
	char *end;
	int k = 0;
	long v;

	while (*arg && k < max - 1) {
		v = strtol(arg, &end, 10);
		if (end == arg || v < 1 || v > TWIN_NR_CPUS ||
		    (*end && *end != ','))
			return -1;
		counts[k++] = v;
		arg = *end ? end + 1 : end;
	}
	counts[k] = 0;
	return k ? 0 : -1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: twin_bench [EVENTS] [--threads N[,N...]]\n"
		"       twin_bench --callgrind EVENTS\n"
		"trace_write_inline() of an 8-byte payload, EVENTS (20000000) per\n"
		"writer; --threads: runs of N writers at once (1..%d), each on its\n"
		"own ring as CPUs are, pinned to host CPU i modulo the host's count\n"
		"(default: 1, 2 and every host CPU).\n", TWIN_NR_CPUS);
}

/*
 * The options: events per writer in *@n, thread counts in @counts (1, 2
 * and every host CPU by default). Returns -1 to go on, else an exit code.
 */
static int parse_args(int argc, char **argv, unsigned long *n, int *counts,
		      int host_cpus)
{
	int i;

	counts[0] = 1;
	counts[1] = 2;
	counts[2] = host_cpus < TWIN_NR_CPUS ? host_cpus : TWIN_NR_CPUS;
	counts[host_cpus > 2 ? 3 : 2] = 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			if (parse_threads(argv[++i], counts, 16))
				goto bad;
		} else if (isdigit((unsigned char)argv[i][0])) {
			*n = strtoul(argv[i], NULL, 0);
		} else {
			goto bad;
		}
	}
	return -1;
bad:
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int counts[16], host_cpus = sysconf(_SC_NPROCESSORS_ONLN), i;
	unsigned long n = 20000000, total = 0;
	unsigned long long t0;
	double clock_ns, one = 0, med;

	buf = twin_buffer(SUBBUF, NSUBBUF, TRING_OVERWRITE, TRING_CLOCK_MONO,
			  0);
	if (argc > 2 && !strcmp(argv[1], "--callgrind")) {
		n = strtoul(argv[2], NULL, 0);
		/* Touch the whole ring first: the counted loop is steady. */
		warm_loop(buf, SUBBUF * NSUBBUF / 12 + 1);
		bench_loop(buf, n);
		floor_loop(n);
		tring_buffer_free(buf);
		return 0;
	}
	i = parse_args(argc, argv, &n, counts, host_cpus);
	if (i >= 0)
		return i;

	clock_loop(n / 16);
	t0 = twin_mono_ns();
	clock_loop(n);
	clock_ns = (double)(twin_mono_ns() - t0) / n;
	printf("host: %d CPUs; clock read alone: %.2f ns\n", host_cpus,
	       clock_ns);
	for (i = 0; counts[i]; i++) {
		med = run_threads(counts[i], n, host_cpus, one);
		if (counts[i] == 1 && one == 0)
			one = med;
		total += counts[i] * (n + n / 16);
	}
	check_written(total);
	tring_buffer_free(buf);
	return 0;
}
