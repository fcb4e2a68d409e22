/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: atomic_long_t and the barriers, as C11 atomics so the
 * sanitizers see the ordering the core relies on:
 *
 *   atomic_long_read/set			relaxed load/store
 *   atomic_long_read_acquire/set_release	acquire load/release store
 *   atomic_long_cmpxchg			seq_cst compare-and-swap
 *						(fully ordered, like the kernel's)
 *   smp_load_acquire/smp_store_release	acquire load/release store
 *   smp_mb					seq_cst fence
 */
#ifndef _TWIN_LINUX_ATOMIC_H
#define _TWIN_LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_LONG_INIT(i)	{ (i) }

static __always_inline long atomic_long_read(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static __always_inline void atomic_long_set(atomic_long_t *v, long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static __always_inline long atomic_long_read_acquire(const atomic_long_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);
}

static __always_inline void atomic_long_set_release(atomic_long_t *v, long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);
}

static __always_inline long atomic_long_cmpxchg(atomic_long_t *v, long old,
						long new)
{
	long cur = old;

	__atomic_compare_exchange_n(&v->counter, &cur, new, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	TWIN_WATCH(v, cur == old);
	return cur;
}

static __always_inline long atomic_long_add_return(long i, atomic_long_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static __always_inline void atomic_long_inc(atomic_long_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

/*
 * cmpxchg_local() on an 8-byte object: atomic against interrupts (signal
 * handlers) on this CPU only, like the kernel's: one non-LOCK cmpxchg,
 * or a relaxed C11 one with compiler barriers in the TSan build.
 */
#ifndef TRING_SHIM_C11
#define cmpxchg_local(ptr, o, n) ({						__typeof__(*(ptr)) __old = (o), __new = (n), __prev;			_Static_assert(sizeof(*(ptr)) == 8, "cmpxchg_local: 8 bytes");		asm volatile("cmpxchgq %2, %1"							     : "=a" (__prev), "+m" (*(ptr))					     : "r" (__new), "0" (__old)						     : "memory");						TWIN_WATCH(ptr, __prev == __old);					__prev;								})
#else
#define cmpxchg_local(ptr, o, n) ({						__typeof__(*(ptr)) __old = (o), __prev = __old;				_Static_assert(sizeof(*(ptr)) == 8, "cmpxchg_local: 8 bytes");		__atomic_signal_fence(__ATOMIC_SEQ_CST);				__atomic_compare_exchange_n((ptr), &__prev, (n), false,						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);\
	__atomic_signal_fence(__ATOMIC_SEQ_CST);				TWIN_WATCH(ptr, __prev == __old);					__prev;								})
#endif

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* _TWIN_LINUX_ATOMIC_H */
