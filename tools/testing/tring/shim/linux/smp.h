/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: IPIs. smp_call_function_single() sends the signal
 * TWIN_SIG_IPI to the thread registered as @cpu and runs @func in its
 * handler, nested in whatever that thread was doing like an interrupt;
 * when @cpu is the caller's own CPU it runs @func right here with the
 * hardirq-level signals blocked, as the kernel runs it with interrupts
 * off; when no thread is registered as @cpu (an offline CPU), it runs
 * @func right here.
 */
#ifndef _TWIN_LINUX_SMP_H
#define _TWIN_LINUX_SMP_H

#include <linux/types.h>
#include <twin_shim.h>

typedef void (*smp_call_func_t)(void *info);

#define smp_call_function_single(cpu, func, info, wait)			\
	twin_call_on_cpu(cpu, func, info, wait)
#define smp_processor_id()	twin_this_cpu
#define raw_smp_processor_id()	twin_this_cpu
#define cpu_to_node(cpu)	((void)(cpu), 0)
#define NUMA_NO_NODE		(-1)

#endif /* _TWIN_LINUX_SMP_H */
