// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the run time behind the shim headers (shim/).
 *
 * Everything here may be reached from a signal handler playing an
 * interrupt is async-signal-safe: the clock, irq_work_queue() and the
 * IPI handler use only atomics, clock_gettime() and write().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/atomic.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "twin.h"
#include "tring_internal.h"

twin_cpuhp_fn twin_cpuhp_startup;
unsigned long twin_cpus_prepared = ~0UL >> (64 - TWIN_NR_CPUS);

/* As the module's load does, before any buffer is made. */
__attribute__((constructor)) static void twin_core_setup(void)
{
	if (tring_core_init())
		abort();
}

__thread int twin_this_cpu;
__thread size_t twin_this_cpu_off;
/* current (shim/linux/sched.h): one task per thread. */
__thread struct task_struct twin_task;
unsigned long twin_warnings;

static unsigned long long twin_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void twin_pause_us(long us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };

	nanosleep(&ts, NULL);
}

/* ---- clock ---- */

#ifdef TWIN_HOOKS
static unsigned long long (*twin_clock_hook)(int clock);

void twin_set_clock_hook(unsigned long long (*hook)(int clock))
{
	__atomic_store_n(&twin_clock_hook, hook, __ATOMIC_RELEASE);
}
#endif

noinline unsigned long long twin_clock_ns(int clock)
{
#ifdef TWIN_HOOKS
	unsigned long long (*hook)(int) =
		__atomic_load_n(&twin_clock_hook, __ATOMIC_ACQUIRE);

	if (hook)
		return hook(clock);
#endif
	(void)clock;
	return twin_now_ns();
}

/* ---- interleaving hooks ---- */

#ifdef TWIN_HOOKS
const void *twin_watch_addr;
static void (*twin_watch_fn)(void *arg);
static void *twin_watch_arg;
static long twin_watch_skip;

void twin_watch(const void *addr, long skip, void (*fn)(void *arg), void *arg)
{
	twin_watch_fn = fn;
	twin_watch_arg = arg;
	twin_watch_skip = skip;
	__atomic_store_n(&twin_watch_addr, addr, __ATOMIC_RELEASE);
}

void twin_watch_fire(const void *addr)
{
	const void *expect = addr;

	if (__atomic_fetch_sub(&twin_watch_skip, 1, __ATOMIC_RELAXED) > 0)
		return;
	if (__atomic_compare_exchange_n(&twin_watch_addr, &expect, NULL, false,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		twin_watch_fn(twin_watch_arg);
}

bool twin_watch_pending(void)
{
	return __atomic_load_n(&twin_watch_addr, __ATOMIC_ACQUIRE) != NULL;
}
#endif

/* ---- irq_work ---- */

static struct irq_work *twin_irq_work_list;
static int twin_irq_work_pipe[2] = { -1, -1 };
unsigned long twin_irq_work_runs;

bool irq_work_queue(struct irq_work *work)
{
	unsigned int old;
	struct irq_work *head;
	int saved = errno;
	ssize_t n;

	old = __atomic_fetch_or(&work->flags, IRQ_WORK_PENDING | IRQ_WORK_BUSY,
				__ATOMIC_SEQ_CST);
	if (old & IRQ_WORK_PENDING)
		return false;
	head = __atomic_load_n(&twin_irq_work_list, __ATOMIC_RELAXED);
	do {
		work->next = head;
	} while (!__atomic_compare_exchange_n(&twin_irq_work_list, &head, work,
					      true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	/* Non-blocking: a full pipe already has the thread's attention. */
	n = write(twin_irq_work_pipe[1], "", 1);
	(void)n;
	errno = saved;
	return true;
}

static void twin_irq_work_run(struct irq_work *work)
{
	unsigned int flags;

	/* The kernel's protocol: clear PENDING, run, clear BUSY unless requeued. */
	flags = __atomic_fetch_and(&work->flags, ~IRQ_WORK_PENDING,
				   __ATOMIC_SEQ_CST) & ~IRQ_WORK_PENDING;
	/* Counted first: whoever the callback wakes sees it counted. */
	__atomic_fetch_add(&twin_irq_work_runs, 1, __ATOMIC_RELAXED);
	work->func(work);
	__atomic_compare_exchange_n(&work->flags, &flags,
				    flags & ~IRQ_WORK_BUSY, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static void *twin_irq_work_thread(void *arg)
{
	struct irq_work *w, *next, *fifo;
	sigset_t all;
	char buf[256];

	(void)arg;
	/* Not a CPU: no interrupts (signals) here. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		if (read(twin_irq_work_pipe[0], buf, sizeof(buf)) <= 0 &&
		    errno != EINTR && errno != EAGAIN)
			abort();
		w = __atomic_exchange_n(&twin_irq_work_list, NULL,
					__ATOMIC_ACQUIRE);
		/* Run in the order they were queued. */
		for (fifo = NULL; w; w = next) {
			next = w->next;
			w->next = fifo;
			fifo = w;
		}
		for (w = fifo; w; w = next) {
			next = w->next;
			twin_irq_work_run(w);
		}
	}
	return NULL;
}

void irq_work_sync(struct irq_work *work)
{
	while (__atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) & IRQ_WORK_BUSY)
		twin_pause_us(20);
}

/* ---- wait queues ---- */

#define TWIN_WAIT_LOST_MS	1000
#define TWIN_WAIT_GIVE_UP_MS	20000

unsigned long twin_lost_wakeups;
unsigned long twin_wait_give_ups;
unsigned long twin_wakeups;

void init_waitqueue_head(struct wait_queue_head *wq)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&wq->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wq->cond, &attr);
	pthread_condattr_destroy(&attr);
	wq->wakeups = 0;
	wq->sleepers = 0;
}

void wake_up_all(struct wait_queue_head *wq)
{
	pthread_mutex_lock(&wq->lock);
	wq->wakeups++;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
	__atomic_fetch_add(&twin_wakeups, 1, __ATOMIC_RELAXED);
}

void twin_wait_begin(struct wait_queue_head *wq, struct twin_waiter *w)
{
	pthread_mutex_lock(&wq->lock);
	wq->sleepers++;
	w->seen = wq->wakeups;
	w->timed_out = false;
	w->deadline_ns = twin_now_ns() + TWIN_WAIT_GIVE_UP_MS * 1000000ULL;
}

int twin_wait_sleep(struct wait_queue_head *wq, struct twin_waiter *w)
{
	unsigned long long now = twin_now_ns(), until;
	struct timespec ts;
	int r;

	if (now >= w->deadline_ns) {
		__atomic_fetch_add(&twin_wait_give_ups, 1, __ATOMIC_RELAXED);
		return -ETIMEDOUT;
	}
	until = now + TWIN_WAIT_LOST_MS * 1000000ULL;
	if (until > w->deadline_ns)
		until = w->deadline_ns;
	ts.tv_sec = until / 1000000000ULL;
	ts.tv_nsec = until % 1000000000ULL;
	r = pthread_cond_timedwait(&wq->cond, &wq->lock, &ts);
	if (wq->wakeups != w->seen) {
		w->seen = wq->wakeups;
		w->timed_out = false;
	} else if (r == ETIMEDOUT) {
		w->timed_out = true;
	}
	return 0;
}

void twin_wait_end(struct wait_queue_head *wq, struct twin_waiter *w,
		   bool cond)
{
	/* True after a sleep that no wakeup ended: the wakeup was lost. */
	if (cond && w->timed_out) {
		__atomic_fetch_add(&twin_lost_wakeups, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "twin: lost wakeup on wait queue %p\n",
			(void *)wq);
	}
	wq->sleepers--;
	pthread_mutex_unlock(&wq->lock);
}

/* ---- CPUs, hotplug, IPIs ---- */

struct twin_ipi {
	pthread_mutex_t lock;		/* one caller at a time */
	void (*fn)(void *info);
	void *info;
	int done;
};

static struct twin_ipi twin_ipis[TWIN_NR_CPUS];
static pthread_t twin_cpu_thread[TWIN_NR_CPUS];
static int twin_cpu_up[TWIN_NR_CPUS];
static pthread_rwlock_t twin_hotplug = PTHREAD_RWLOCK_INITIALIZER;
unsigned long twin_ipi_count[TWIN_NR_CPUS];

void twin_level_mask(int level, sigset_t *set)
{
	int l;

	sigemptyset(set);
	for (l = 1; l <= level && l <= TWIN_NR_LEVELS; l++)
		sigaddset(set, TWIN_SIG_LEVEL(l));
	if (level >= TWIN_LEVEL_HARDIRQ)
		sigaddset(set, TWIN_SIG_IPI);
}

/*
 * ThreadSanitizer runs every handler with all signals blocked, whatever
 * sa_mask says: open the levels above @level again, as the kernel's mask
 * would have left them, so that handlers still nest under TSan.
 */
void twin_level_unblock_above(int level)
{
#ifdef __SANITIZE_THREAD__
	sigset_t set;
	int l;

	sigemptyset(&set);
	for (l = level + 1; l <= TWIN_NR_LEVELS; l++)
		sigaddset(&set, TWIN_SIG_LEVEL(l));
	if (level < TWIN_LEVEL_HARDIRQ)
		sigaddset(&set, TWIN_SIG_IPI);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
#else
	(void)level;
#endif
}

/*
 * Task context: no interrupt level is blocked. ThreadSanitizer can lose
 * a thread's signal mask (its deferred-signal code saves the mask in one
 * per-thread slot, and an intercepted call inside a handler re-enters it
 * and overwrites the slot), leaving interrupts blocked for good; writers
 * call this where they know they are in task context to repair that.
 */
void twin_task_context(void)
{
	sigset_t set;

	twin_level_mask(TWIN_NR_LEVELS, &set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- interrupt dispatch ---- */

#define TWIN_IPI_BIT	(TWIN_NR_LEVELS + 1)

__thread void (*twin_irq_fn[TWIN_NR_LEVELS + 1])(int level);
__thread int twin_cur_level;		/* 0: task context */
__thread int twin_nest_depth;		/* interrupt handlers on the stack */
__thread int twin_max_nest_depth;
static __thread unsigned int twin_held_back;
unsigned long twin_mask_violations;

static void twin_ipi_run(void)
{
	int cpu = twin_this_cpu;
	struct twin_ipi *ipi;
	void (*fn)(void *);

	if (cpu < 0 || cpu >= TWIN_NR_CPUS)
		return;
	ipi = &twin_ipis[cpu];
	fn = __atomic_exchange_n(&ipi->fn, NULL, __ATOMIC_ACQUIRE);
	if (fn) {
		fn(ipi->info);
		__atomic_fetch_add(&twin_ipi_count[cpu], 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ipi->done, 1, __ATOMIC_RELEASE);
	}
}

static void twin_run(int bit)
{
	int level = bit == TWIN_IPI_BIT ? TWIN_LEVEL_HARDIRQ : bit;
	void (*fn)(int);

	twin_level_unblock_above(level);
	twin_cur_level = level;
	if (++twin_nest_depth > twin_max_nest_depth)
		twin_max_nest_depth = twin_nest_depth;
	if (bit == TWIN_IPI_BIT) {
		twin_ipi_run();
	} else {
		fn = twin_irq_fn[level];
		if (fn)
			fn(level);
	}
	twin_nest_depth--;
}

/*
 * An interrupt of @bit (a level, or the IPI at hardirq level) arrives.
 * The signal masks keep a level from interrupting itself or a higher
 * one, as the kernel's interrupt masking does; but ThreadSanitizer runs
 * signals it deferred at its own safe points, ignoring the masks. Such
 * an interrupt is held back here and run as soon as the level drops
 * below it, which is what unmasking would have done.
 */
/* The highest interrupt held back that may run above level @prev. */
static int twin_pick_held(int prev)
{
	unsigned int held = __atomic_load_n(&twin_held_back, __ATOMIC_RELAXED);
	int l;

	for (l = TWIN_NR_LEVELS; l > prev; l--) {
		if (held & (1U << l))
			return l;
		if (l == TWIN_LEVEL_HARDIRQ && (held & (1U << TWIN_IPI_BIT)))
			return TWIN_IPI_BIT;
	}
	return 0;
}

static void twin_interrupt(int bit)
{
	int level = bit == TWIN_IPI_BIT ? TWIN_LEVEL_HARDIRQ : bit;
	int saved = errno, prev = twin_cur_level;

	if (level <= prev) {
		__atomic_fetch_or(&twin_held_back, 1U << bit, __ATOMIC_RELAXED);
		__atomic_fetch_add(&twin_mask_violations, 1, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
	do {
		twin_run(bit);
		twin_cur_level = prev;
		bit = twin_pick_held(prev);
		if (bit)
			__atomic_fetch_and(&twin_held_back, ~(1U << bit),
					   __ATOMIC_RELAXED);
	} while (bit);
	errno = saved;
}

void twin_level_handler(int sig)
{
	int level = sig - SIGRTMIN;

	if (level >= 1 && level <= TWIN_NR_LEVELS)
		twin_interrupt(level);
}

static void twin_ipi_handler(int sig)
{
	(void)sig;
	twin_interrupt(TWIN_IPI_BIT);
}

bool twin_cpu_online(int cpu)
{
	return cpu >= 0 && cpu < TWIN_NR_CPUS &&
	       __atomic_load_n(&twin_cpu_up[cpu], __ATOMIC_ACQUIRE);
}

/*
 * Taking the hotplug lock for writing polls with sleeps rather than
 * blocking: a CPU thread going offline must still take IPIs meanwhile
 * (a flush may hold the read side waiting for it), and ThreadSanitizer
 * only delivers signals promptly in calls it knows may block.
 */
static void twin_hotplug_write_lock(void)
{
	while (pthread_rwlock_trywrlock(&twin_hotplug))
		twin_pause_us(50);
}

void twin_cpu_register(int cpu)
{
	if (cpu < 0 || cpu >= TWIN_NR_CPUS)
		abort();
	twin_hotplug_write_lock();
	if (twin_cpu_up[cpu]) {
		fprintf(stderr, "twin: CPU %d registered twice\n", cpu);
		abort();
	}
	twin_set_cpu(cpu);
	twin_cpu_thread[cpu] = pthread_self();
	__atomic_store_n(&twin_cpu_up[cpu], 1, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&twin_hotplug);
}

void twin_cpu_unregister(void)
{
	int cpu = twin_this_cpu;

	twin_hotplug_write_lock();
	if (twin_cpu_up[cpu] &&
	    pthread_equal(twin_cpu_thread[cpu], pthread_self()))
		__atomic_store_n(&twin_cpu_up[cpu], 0, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&twin_hotplug);
}

void twin_cpus_read_lock(void)
{
	pthread_rwlock_rdlock(&twin_hotplug);
}

void twin_cpus_read_unlock(void)
{
	pthread_rwlock_unlock(&twin_hotplug);
}

/*
 * Signal @cpu's thread and wait until it has run the function of @ipi.
 * The kernel never loses an IPI, but ThreadSanitizer, which queues a
 * signal that arrives outside a blocking call and runs it later, was
 * seen to lose one: the target thread waited in usleep() with nothing
 * pending or blocked and the function still posted (a few times in a
 * hundred runs under load). So the signal is sent again while the
 * function has not been taken; a signal that finds it taken runs
 * nothing (twin_ipi_run() takes it with an exchange).
 */
static void twin_ipi_send(int cpu, struct twin_ipi *ipi)
{
	unsigned long long resend = 0;
	int sent = 0;

	while (!__atomic_load_n(&ipi->done, __ATOMIC_ACQUIRE)) {
		if (twin_now_ns() >= resend &&
		    __atomic_load_n(&ipi->fn, __ATOMIC_ACQUIRE)) {
			if (sent++)
				fprintf(stderr, "twin: IPI to CPU %d sent again\n",
					cpu);
			if (pthread_kill(twin_cpu_thread[cpu], TWIN_SIG_IPI))
				abort();
			resend = twin_now_ns() + 50000000ULL;	/* 50 ms */
		}
		twin_pause_us(10);
	}
}

int twin_call_on_cpu(int cpu, void (*fn)(void *), void *info, int wait)
{
	struct twin_ipi *ipi;
	sigset_t block, old;

	(void)wait;	/* always waits: the core only asks for that */
	if (!twin_cpu_online(cpu)) {
		fn(info);
		return 0;
	}
	if (pthread_equal(twin_cpu_thread[cpu], pthread_self())) {
		/* Our own CPU: run it here with "interrupts off". */
		twin_level_mask(TWIN_LEVEL_HARDIRQ, &block);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		fn(info);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return 0;
	}
	ipi = &twin_ipis[cpu];
	pthread_mutex_lock(&ipi->lock);
	ipi->info = info;
	__atomic_store_n(&ipi->done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ipi->fn, fn, __ATOMIC_RELEASE);
	twin_ipi_send(cpu, ipi);
	pthread_mutex_unlock(&ipi->lock);
	return 0;
}

__attribute__((constructor))
static void twin_shim_init(void)
{
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t thread;
	int i;

	for (i = 0; i < TWIN_NR_CPUS; i++)
		pthread_mutex_init(&twin_ipis[i].lock, NULL);
	if (pipe2(twin_irq_work_pipe, O_CLOEXEC) ||
	    fcntl(twin_irq_work_pipe[1], F_SETFL, O_NONBLOCK))
		abort();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = twin_ipi_handler;
	twin_level_mask(TWIN_LEVEL_HARDIRQ, &sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(TWIN_SIG_IPI, &sa, NULL))
		abort();

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, twin_irq_work_thread, NULL))
		abort();
	pthread_attr_destroy(&attr);
}

/*
 * tring_reserve_slow_v4() of a buffer with contexts (tring_ctx_write.c,
 * not in the twin): no twin buffer has any (struct tring_buffer.ctx).
 */
long tring_ctx_reserve_slow(struct tring_cpu *cb,
			    const struct tring_ctx_set *set, unsigned int id,
			    unsigned int len)
{
	abort();
}
