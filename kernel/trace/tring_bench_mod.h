/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_bench: what its two files share (tring_bench_mod.c: bench/run,
 * tring_bench_fill.c: bench/fill).
 */
#ifndef _TRING_BENCH_MOD_H
#define _TRING_BENCH_MOD_H

#include <linux/mutex.h>

struct dentry;

/* Held by a run or a fill: one at a time. */
extern struct mutex tring_bench_lock;

void tring_bench_fill_init(struct dentry *dir);

#endif /* _TRING_BENCH_MOD_H */
