/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_bench: another module's buffer in the write benchmark.
 *
 * A module that writes into a buffer tring_bench cannot link against
 * (LTTng's ring-buffer library, built by DKMS for some kernels only)
 * registers it here, and bench/run then takes its name as an
 * implementation: the same kthread on CPU 0, the same repetitions and
 * median, the loop timed the same way (ktime_get_ns() around it).
 */
#ifndef _TRING_BENCH_H
#define _TRING_BENCH_H

#include <linux/types.h>

/**
 * struct tring_bench_ext - a buffer written by another module
 * @name: the implementation's name in bench/run.
 * @setup: make a per-CPU buffer of @buf_bytes per CPU in @subbuf_bytes
 *	sub-buffers, in overwrite mode, no reader; 0 or a negative errno.
 * @teardown: free what @setup made.
 * @loop: write @n events of @len bytes (8, 64 or 256) on this CPU, the
 *	payload from @payload; return the ns the loop took, timed with
 *	ktime_get_ns() around it.
 *
 * Runs with a reader or a nested hrtimer writer are refused for it.
 * A run holds tring_bench's lock, which tring_bench_ext_unregister()
 * takes: unregister from the module's exit and no run is left in its
 * code.
 */
struct tring_bench_ext {
	const char *name;
	int (*setup)(size_t buf_bytes, size_t subbuf_bytes);
	void (*teardown)(void);
	u64 (*loop)(unsigned int n, unsigned int len, const void *payload);
};

int tring_bench_ext_register(const struct tring_bench_ext *ext);
void tring_bench_ext_unregister(const struct tring_bench_ext *ext);

#endif /* _TRING_BENCH_H */
