// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: write-side benchmark. trace_write_inline() of an 8-byte
 * payload in a loop, on one "CPU" and then on two at once (two threads,
 * two rings: nothing shared but the cache hierarchy), in overwrite mode
 * so that no write ever fails, with the module's default shape (64 KiB
 * sub-buffers, 16 of them). Built without the test hooks.
 *
 *   twin_bench [events]            timings
 *   twin_bench --callgrind events  only the measured loop, for callgrind:
 *                                  bench_loop() is the function to count
 *                                  (twin_callgrind.sh does it)
 */
#include <time.h>

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

static void *job_fn(void *arg)
{
	struct job *j = arg;
	unsigned long long t0;

	twin_cpu_register(j->cpu);
	warm_loop(buf, j->n / 16);
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

int main(int argc, char **argv)
{
	unsigned long n = 20000000, warm;
	struct job jobs[2] = { { .cpu = 0 }, { .cpu = 1 } };
	unsigned long long t0;
	pthread_t t[2];
	double clock_ns;
	int i;

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
	if (argc > 1)
		n = strtoul(argv[1], NULL, 0);

	clock_loop(n / 16);
	t0 = twin_mono_ns();
	clock_loop(n);
	clock_ns = (double)(twin_mono_ns() - t0) / n;

	jobs[0].n = n;
	job_fn(&jobs[0]);
	warm = n / 16;
	printf("1 CPU:  %.2f ns/event (clock read alone: %.2f ns)\n",
	       jobs[0].ns, clock_ns);

	for (i = 0; i < 2; i++) {
		jobs[i].n = n;
		pthread_create(&t[i], NULL, job_fn, &jobs[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("2 CPUs: %.2f and %.2f ns/event per CPU, %.1f M events/s "
	       "together\n", jobs[0].ns, jobs[1].ns,
	       1e3 / jobs[0].ns + 1e3 / jobs[1].ns);
	check_written(3 * (n + warm));
	tring_buffer_free(buf);
	return 0;
}
