/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin: what the shim headers need from the twin's run time
 * (twin_shim.c). Nothing here is kernel API; it is how user space plays
 * the parts of the kernel that tring_core.c relies on.
 *
 * Model: a fixed number of "CPUs"; a thread becomes CPU n by calling
 * twin_cpu_register(n), and signal handlers running on that thread play
 * the CPU's interrupts (task < softirq < hardirq < NMI, see twin.h). A
 * thread that registered no CPU writes as CPU twin_this_cpu (0 unless it
 * sets it), and that CPU is then "offline": nobody can send it an IPI.
 */
#ifndef _TWIN_SHIM_H
#define _TWIN_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUs (8; the benchmark's build: 64). At most BITS_PER_LONG: CPU masks. */
#ifndef TWIN_NR_CPUS
#define TWIN_NR_CPUS	8
#endif
_Static_assert(TWIN_NR_CPUS >= 1 && TWIN_NR_CPUS <= 64, "TWIN_NR_CPUS");

/*
 * The CPU this thread (and its signal handlers) writes as, and the offset
 * of its per-CPU copies (twin_set_cpu() sets both). The offset plays the
 * kernel's this_cpu_off: this_cpu_ptr() is one thread-local load and an
 * add, as the kernel's is one %gs-relative load and an add. Local-exec:
 * the twin's objects link into executables only.
 */
extern __thread int twin_this_cpu __attribute__((tls_model("local-exec")));
extern __thread size_t twin_this_cpu_off
	__attribute__((tls_model("local-exec")));

/*
 * Per-CPU memory: TWIN_NR_CPUS copies TWIN_PERCPU_UNIT bytes apart. The
 * stride is a constant, as the kernel's per-CPU offset is one add: the
 * fast path's instruction count then matches the kernel's more closely.
 */
#define TWIN_PERCPU_UNIT	4096
void *twin_alloc_percpu(size_t size, size_t align);
void twin_free_percpu(void *p);

static inline size_t twin_percpu_stride(const void *p)
{
	return TWIN_PERCPU_UNIT;
}

static inline void twin_set_cpu(int cpu)
{
	twin_this_cpu = cpu;
	twin_this_cpu_off = (size_t)cpu * TWIN_PERCPU_UNIT;
}

/*
 * The clock behind ktime_get_mono_fast_ns() (clock 0) and
 * trace_clock_local() (clock 1): CLOCK_MONOTONIC, or the test's hook.
 * Out of line on purpose, like the kernel's, so profiles can count it
 * apart from the write path.
 */
unsigned long long twin_clock_ns(int clock);

/* CPU hotplug and IPIs. */
bool twin_cpu_online(int cpu);
void twin_cpus_read_lock(void);
void twin_cpus_read_unlock(void);
int twin_call_on_cpu(int cpu, void (*fn)(void *), void *info, int wait);

/* Fault injection for allocations (see twin_fail_alloc_after()). */
bool twin_alloc_should_fail(void);

/*
 * Signals. Levels 1..TWIN_NR_LEVELS play softirq, hardirq, NMI and a
 * fourth level nested deeper still (the algorithm does not care how
 * deep); a handler of level l runs with levels 1..l blocked. The IPI
 * runs at hardirq level: it blocks levels 1 and 2 and itself, and NMI
 * levels interrupt it. Use these only where <signal.h> is included.
 */
#define TWIN_NR_LEVELS		4
#define TWIN_LEVEL_HARDIRQ	2
#define TWIN_SIG_LEVEL(l)	(SIGRTMIN + (l))
#define TWIN_SIG_IPI		(SIGRTMIN + TWIN_NR_LEVELS + 1)

#ifdef TWIN_HOOKS
/*
 * Interleaving hooks, for tests only (never in the benchmark build): when
 * a cmpxchg on the watched address succeeds, or a READ_ONCE() reads it or
 * a WRITE_ONCE() writes it,
 * twin_watch_fire() runs the test's callback once, right there, as if an
 * interrupt (or another CPU) had acted just after the instruction. The
 * callback usually raises a signal whose handler is a nested writer.
 */
extern const void *twin_watch_addr;
void twin_watch_fire(const void *addr);

#define TWIN_WATCH(p, ok)						\
	do {								\
		if ((ok) && __builtin_expect(__atomic_load_n(		\
				&twin_watch_addr, __ATOMIC_RELAXED) ==	\
				(const void *)(p), 0))			\
			twin_watch_fire(p);				\
	} while (0)
#else
#define TWIN_WATCH(p, ok)	do { } while (0)
#endif

#endif /* _TWIN_SHIM_H */
