/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin: what the test programs share. The core (tring_core.c, the
 * kernel's own file) is compiled with the shims in shim/ and linked with
 * twin_shim.c (the shims' run time) and twin.c (this header's code).
 */
#ifndef _TWIN_H
#define _TWIN_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cpu.h>
#include <linux/tring.h>
#include "tring_internal.h"

#include <twin_shim.h>

/* ---- the run time's test interface (twin_shim.c) ---- */

void twin_cpu_register(int cpu);
void twin_cpu_unregister(void);
void twin_level_mask(int level, sigset_t *set);
void twin_level_unblock_above(int level);
void twin_task_context(void);
void twin_level_handler(int sig);
extern __thread int twin_cur_level;
extern __thread int twin_nest_depth;
extern __thread int twin_max_nest_depth;
/* Interrupts the signal masks should have held back (TSan only). */
extern unsigned long twin_mask_violations;

/* What si_mem_available() and totalram_pages() return, in pages. */
void twin_set_memory(long available, unsigned long total);

/* The @n-th allocation from now fails (1: the next one); 0: none. */
void twin_fail_alloc_after(long n);
long twin_outstanding_allocs(void);

extern unsigned long twin_warnings;
extern unsigned long twin_lost_wakeups;
extern unsigned long twin_wait_give_ups;
extern unsigned long twin_wakeups;
extern unsigned long twin_irq_work_runs;
extern unsigned long twin_ipi_count[TWIN_NR_CPUS];

#ifdef TWIN_HOOKS
void twin_set_clock_hook(unsigned long long (*hook)(int clock));
/*
 * After @skip successful cmpxchgs or READ_ONCE()s of @addr, run @fn(@arg)
 * once right after the next one, on the thread that did it.
 */
void twin_watch(const void *addr, long skip, void (*fn)(void *arg), void *arg);
bool twin_watch_pending(void);
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline unsigned long twin_load(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* ---- TAP ---- */

/*
 * A test case is a function; check() records a failure with its place
 * and keeps going, the case's TAP line says whether any check failed.
 */
extern int tap_case_failed;

void tap_plan_begin(const char *prog);
void tap_result(const char *name);
int tap_finish(void);
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool tap_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define check(cond, ...)						\
	tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define check_eq(a, b)							\
	({								\
		unsigned long long __a = (unsigned long long)(a);	\
		unsigned long long __b = (unsigned long long)(b);	\
		tap_check(__a == __b, __FILE__, __LINE__,		\
			  "%s == %s: %llu != %llu", #a, #b, __a, __b);	\
	})

/* ---- interrupts: signal handlers on the writer's thread ---- */

/* What a level's signal runs on this thread; NULL: nothing. */
extern __thread void (*twin_irq_fn[TWIN_NR_LEVELS + 1])(int level);

void twin_levels_install(void);
/* Deliver level @level's signal to this thread, now (it nests here). */
void twin_raise(int level);

/* ---- buffers and packets ---- */

struct tring_buffer *twin_buffer(size_t subbuf_size, unsigned int count,
				 unsigned int flags, unsigned int clock,
				 unsigned int watermark);

static inline struct tring_cpu *twin_cb(struct tring_buffer *buf, int cpu)
{
	return per_cpu_ptr(buf->cpus, cpu);
}

static inline const void *twin_subbuf_va(struct tring_cpu *cb,
					 const struct tring_subbuf *sb)
{
	return (const char *)cb->va + sb->offset;
}

/*
 * Check a taken sub-buffer's header against its ring and its struct
 * tring_subbuf, and that every byte after the content is zero. Returns
 * NULL or what is wrong.
 */
const char *twin_check_packet(struct tring_cpu *cb,
			      const struct tring_subbuf *sb);

/* FNV-1a, for payload and whole-sub-buffer checksums. */
static inline unsigned int twin_hash(const void *p, size_t n,
				     unsigned int h)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 16777619U;
	return h;
}
#define TWIN_HASH_SEED	2166136261U

unsigned long long twin_mono_ns(void);

#endif /* _TWIN_H */
