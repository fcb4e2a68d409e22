/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_CPU_H
#define _TWIN_LINUX_CPU_H

#include <linux/types.h>
#include <twin_shim.h>

/* A CPU is online while a thread is registered as that CPU. */
#define cpu_online(cpu)		twin_cpu_online(cpu)
#define cpus_read_lock()	twin_cpus_read_lock()
#define cpus_read_unlock()	twin_cpus_read_unlock()

#endif /* _TWIN_LINUX_CPU_H */
