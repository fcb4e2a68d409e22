/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_CPUMASK_H
#define _TWIN_LINUX_CPUMASK_H

/* num_possible_cpus() and friends live with the per-CPU shim. */
#include <linux/percpu.h>

#endif /* _TWIN_LINUX_CPUMASK_H */
