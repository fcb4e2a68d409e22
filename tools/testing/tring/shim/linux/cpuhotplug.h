/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: CPU-hotplug states. A twin thread becomes a CPU with
 * no prepare step (twin_shim.h), so the CPUs in twin_cpus_prepared count
 * as online: adding an instance runs the startup callback for each of
 * them. A test plays a CPU coming online for the first time with
 * twin_cpu_prepare().
 */
#ifndef _TWIN_LINUX_CPUHOTPLUG_H
#define _TWIN_LINUX_CPUHOTPLUG_H

#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/types.h>

enum cpuhp_state { CPUHP_BP_PREPARE_DYN = 1 };

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)

typedef int (*twin_cpuhp_fn)(unsigned int cpu, struct hlist_node *node);

/* The one state's callback (the core sets up only one). */
extern twin_cpuhp_fn twin_cpuhp_startup;
/* CPUs "online" when an instance is added: bit n for CPU n; all at start. */
extern unsigned long twin_cpus_prepared;

/* CPU @cpu comes online: the state's startup, for @node's instance. */
static inline int twin_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	return twin_cpuhp_startup(cpu, node);
}

static inline int cpuhp_setup_state_multi(enum cpuhp_state state,
					  const char *name,
					  twin_cpuhp_fn startup,
					  twin_cpuhp_fn teardown)
{
	twin_cpuhp_startup = startup;
	return state;
}

static inline void cpuhp_remove_multi_state(enum cpuhp_state state)
{
	twin_cpuhp_startup = NULL;
}

static inline int cpuhp_state_add_instance(enum cpuhp_state state,
					   struct hlist_node *node)
{
	unsigned int cpu;
	int ret;

	for (cpu = 0; cpu < TWIN_NR_CPUS; cpu++) {
		if (!(twin_cpus_prepared & (1UL << cpu)))
			continue;
		ret = twin_cpuhp_startup(cpu, node);
		if (ret)
			return ret;
	}
	return 0;
}

static inline int cpuhp_state_remove_instance_nocalls(enum cpuhp_state state,
						      struct hlist_node *node)
{
	return 0;
}

#define num_online_cpus()	__builtin_popcountl(twin_cpus_prepared)

#endif /* _TWIN_LINUX_CPUHOTPLUG_H */
