/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: local_t, x86-64.
 *
 * By default these are the kernel's instructions: one instruction each,
 * without a LOCK prefix. A signal arrives between instructions, so each
 * is atomic against the signal handlers of the same thread, which is
 * exactly the guarantee the kernel's local_t gives against interrupts
 * on the same CPU, and no more: another thread doing the same op at the
 * same time would lose updates, as another CPU would.
 *
 * The compiler barriers are the kernel's too: local_add_return() and
 * local_cmpxchg() clobber memory, local_inc()/local_add() do not.
 *
 * With TRING_SHIM_C11 (the ThreadSanitizer build) they are relaxed C11
 * atomics instead, which TSan understands, plus signal fences where the
 * kernel's asm clobbers memory so the compiler keeps the same order.
 */
#ifndef _TWIN_ASM_LOCAL_H
#define _TWIN_ASM_LOCAL_H

#include <linux/atomic.h>

#if !defined(__x86_64__) && !defined(TRING_SHIM_C11)
#error "the twin's local_t is x86-64 asm; build with -DTRING_SHIM_C11 elsewhere"
#endif

typedef struct {
	atomic_long_t a;
} local_t;

#define LOCAL_INIT(i)	{ ATOMIC_LONG_INIT(i) }

#define local_read(l)	atomic_long_read(&(l)->a)
#define local_set(l, i)	atomic_long_set(&(l)->a, (i))

#ifndef TRING_SHIM_C11

static __always_inline void local_inc(local_t *l)
{
	asm volatile("incq %0" : "+m" (l->a.counter));
}

static __always_inline void local_dec(local_t *l)
{
	asm volatile("decq %0" : "+m" (l->a.counter));
}

static __always_inline void local_add(long i, local_t *l)
{
	asm volatile("addq %1,%0" : "+m" (l->a.counter) : "er" (i));
}

static __always_inline void local_sub(long i, local_t *l)
{
	asm volatile("subq %1,%0" : "+m" (l->a.counter) : "er" (i));
}

static __always_inline long local_add_return(long i, local_t *l)
{
	long add = i;

	asm volatile("xaddq %0, %1"
		     : "+r" (i), "+m" (l->a.counter)
		     : : "memory");
	return i + add;
}

static __always_inline long local_cmpxchg(local_t *l, long old, long new)
{
	long prev;

	asm volatile("cmpxchgq %2, %1"
		     : "=a" (prev), "+m" (l->a.counter)
		     : "r" (new), "0" (old)
		     : "memory");
	TWIN_WATCH(l, prev == old);
	return prev;
}

#else /* TRING_SHIM_C11 */

static __always_inline void local_inc(local_t *l)
{
	__atomic_fetch_add(&l->a.counter, 1, __ATOMIC_RELAXED);
}

static __always_inline void local_dec(local_t *l)
{
	__atomic_fetch_sub(&l->a.counter, 1, __ATOMIC_RELAXED);
}

static __always_inline void local_add(long i, local_t *l)
{
	__atomic_fetch_add(&l->a.counter, i, __ATOMIC_RELAXED);
}

static __always_inline void local_sub(long i, local_t *l)
{
	__atomic_fetch_sub(&l->a.counter, i, __ATOMIC_RELAXED);
}

static __always_inline long local_add_return(long i, local_t *l)
{
	long v;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	v = __atomic_add_fetch(&l->a.counter, i, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return v;
}

static __always_inline long local_cmpxchg(local_t *l, long old, long new)
{
	long prev = old;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&l->a.counter, &prev, new, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	TWIN_WATCH(l, prev == old);
	return prev;
}

#endif /* TRING_SHIM_C11 */

#define local_inc_return(l)	local_add_return(1, (l))

#endif /* _TWIN_ASM_LOCAL_H */
