/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: one thread per CPU and nothing else runs as that
 * CPU, so there is nothing to keep off it: a compiler barrier is all
 * that is left of preempt_disable(), as in a !PREEMPT kernel.
 */
#ifndef _TWIN_LINUX_PREEMPT_H
#define _TWIN_LINUX_PREEMPT_H

#include <linux/compiler.h>

#define preempt_disable()		barrier()
#define preempt_enable()		barrier()
#define preempt_disable_notrace()	barrier()
#define preempt_enable_notrace()	barrier()

#endif /* _TWIN_LINUX_PREEMPT_H */
