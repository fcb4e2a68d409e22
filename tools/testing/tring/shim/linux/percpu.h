/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: per-CPU data is per-"CPU" data, and the current CPU
 * is the thread's twin_this_cpu. Each copy starts on its own cache line
 * pair, as copies in different per-CPU areas would.
 */
#ifndef _TWIN_LINUX_PERCPU_H
#define _TWIN_LINUX_PERCPU_H

#include <linux/compiler.h>

#define nr_cpu_ids	TWIN_NR_CPUS

#define alloc_percpu(type)						\
	((type *)twin_alloc_percpu(sizeof(type), __alignof__(type)))
#define free_percpu(p)	twin_free_percpu(p)

#define per_cpu_ptr(ptr, cpu)						\
	((typeof(ptr))((char *)(ptr) +					\
		       (size_t)(cpu) * twin_percpu_stride(ptr)))
#define this_cpu_ptr(ptr)						\
	((typeof(ptr))((char *)(ptr) + twin_this_cpu_off))

#define for_each_possible_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < TWIN_NR_CPUS; (cpu)++)
#define num_possible_cpus()	TWIN_NR_CPUS

#endif /* _TWIN_LINUX_PERCPU_H */
