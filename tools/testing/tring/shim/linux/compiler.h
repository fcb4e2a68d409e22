/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: compiler helpers, READ_ONCE()/WRITE_ONCE().
 *
 * READ_ONCE()/WRITE_ONCE() are relaxed C11 atomic accesses: the same
 * single load or store as the kernel's volatile access on x86-64, and
 * the sanitizers know they are meant to race. The core uses them on
 * scalars only. In test builds (TWIN_HOOKS) a READ_ONCE() or WRITE_ONCE()
 * of the watched address is an interleaving point, like a successful
 * cmpxchg.
 */
#ifndef _TWIN_LINUX_COMPILER_H
#define _TWIN_LINUX_COMPILER_H

/* glibc's <sys/cdefs.h> has its own __always_inline: take it first. */
#include <stddef.h>
#include <stdint.h>

#include <twin_shim.h>

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
/* As the kernel's: no automatic zeroing of this variable. */
#define __uninitialized	__attribute__((__uninitialized__))
#define noinline	__attribute__((__noinline__))
#define notrace
#define __percpu
#define __rcu
#define __user
#define __iomem
#define __must_check	__attribute__((__warn_unused_result__))
#define __maybe_unused	__attribute__((__unused__))
#define fallthrough	__attribute__((__fallthrough__))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define barrier()	__asm__ __volatile__("" : : : "memory")

#ifdef TWIN_HOOKS
/* Test builds: a watched address also fires right after a READ_ONCE(). */
#define READ_ONCE(x) ({							\
	__typeof__(x) __v = __atomic_load_n(&(x), __ATOMIC_RELAXED);	\
	TWIN_WATCH(&(x), 1);						\
	__v;								\
})
#elif defined(TRING_SHIM_C11)
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#else
/* The benchmark's build: the kernel's own volatile load. */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#endif
#ifdef TWIN_HOOKS
/* Test builds: and right after a WRITE_ONCE(). */
#define WRITE_ONCE(x, val) do {						\
	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED);		\
	TWIN_WATCH(&(x), 1);						\
} while (0)
#else
#define WRITE_ONCE(x, val)	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#endif

/*
 * data_race(): a plain access the kernel's KCSAN is told to ignore. The
 * core uses it on lvalues only. Test builds make it a READ_ONCE(), an
 * interleaving point the sanitizers know is meant to race; the
 * benchmark's build leaves it plain, as the kernel's is.
 */
#ifdef TWIN_HOOKS
#define data_race(x)		READ_ONCE(x)
#else
#define data_race(x)		(x)
#endif

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/printk.h>

#endif /* _TWIN_LINUX_COMPILER_H */
