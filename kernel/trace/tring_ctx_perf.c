// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the perf counter contexts (perf:cpu:NAME).
 *
 * Each counter of a set is one pinned perf event per online CPU, made by
 * a CPU-hotplug step when the CPU comes online (and for every online CPU
 * when the set is made) and taken out of use when it goes offline: the
 * counters follow hotplug. A writer reads its own CPU's counter with the
 * PMU's read method, as LTTng does (tring_ctx_perf_read(), inline in
 * the write path, tring_ctx_write.c); a counter that is not counting on
 * this CPU (its CPU just came online, or perf took it off) reads 0.
 */
#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "tring_ctx.h"

/**
 * struct tring_ctx_counter - a counter a context may name
 * @name: after "perf:cpu:", as LTTng spells it.
 * @type: PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE.
 * @config: the counter in that type.
 */
struct tring_ctx_counter {
	const char *name;
	u32 type;
	u64 config;
};

#define TRING_HW(n, c)	{ n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define TRING_SW(n, c)	{ n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }

static const struct tring_ctx_counter tring_ctx_counters[] = {
	TRING_HW("cpu-cycles", CPU_CYCLES),
	TRING_HW("cycles", CPU_CYCLES),
	TRING_HW("instructions", INSTRUCTIONS),
	TRING_HW("cache-references", CACHE_REFERENCES),
	TRING_HW("cache-misses", CACHE_MISSES),
	TRING_HW("branch-instructions", BRANCH_INSTRUCTIONS),
	TRING_HW("branches", BRANCH_INSTRUCTIONS),
	TRING_HW("branch-misses", BRANCH_MISSES),
	TRING_HW("bus-cycles", BUS_CYCLES),
	TRING_HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	TRING_HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	TRING_HW("ref-cycles", REF_CPU_CYCLES),
	TRING_SW("cpu-clock", CPU_CLOCK),
	TRING_SW("page-fault", PAGE_FAULTS),
	TRING_SW("faults", PAGE_FAULTS),
	TRING_SW("major-faults", PAGE_FAULTS_MAJ),
	TRING_SW("minor-faults", PAGE_FAULTS_MIN),
	TRING_SW("context-switches", CONTEXT_SWITCHES),
	TRING_SW("cs", CONTEXT_SWITCHES),
	TRING_SW("cpu-migrations", CPU_MIGRATIONS),
	TRING_SW("migrations", CPU_MIGRATIONS),
	TRING_SW("alignment-faults", ALIGNMENT_FAULTS),
	TRING_SW("emulation-faults", EMULATION_FAULTS),
};

#define TRING_CTX_PERF_PREFIX	"perf:cpu:"

static enum cpuhp_state tring_ctx_cpuhp;

/**
 * tring_ctx_perf_lookup - fill a counter context from its name
 * @name: "perf:cpu:NAME".
 * @it: the item: its kind, size and counter.
 *
 * Return: 0, or -ENOENT when @name is not a counter tring knows.
 */
int tring_ctx_perf_lookup(const char *name, struct tring_ctx_item *it)
{
	const char *n = name + strlen(TRING_CTX_PERF_PREFIX);
	unsigned int i;

	if (strncmp(name, TRING_CTX_PERF_PREFIX, strlen(TRING_CTX_PERF_PREFIX)))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(tring_ctx_counters); i++) {
		if (strcmp(n, tring_ctx_counters[i].name))
			continue;
		it->kind = TRING_CTX_PERF;
		it->size = sizeof(u64);
		it->perf_type = tring_ctx_counters[i].type;
		it->perf_config = tring_ctx_counters[i].config;
		return 0;
	}
	return -ENOENT;
}

/* A pinned counter of @type/@config on @cpu. */
static struct perf_event *tring_ctx_counter_new(u32 type, u64 config,
						unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.size = sizeof(attr),
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/* Hotplug online step of @cpu, and set creation: its counters. */
static int tring_ctx_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct tring_ctx_set *set = hlist_entry(node, struct tring_ctx_set,
						cpuhp_node);
	struct tring_ctx_pev *p;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		struct tring_ctx_item *it = &set->items[i];

		if (it->kind != TRING_CTX_PERF)
			continue;
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (p)
			p->ev = tring_ctx_counter_new(it->perf_type,
						      it->perf_config, cpu);
		if (!p || IS_ERR(p->ev)) {
			int ret = p ? PTR_ERR(p->ev) : -ENOMEM;

			kfree(p);
			pr_warn("tring: context %s: no such counter on CPU %u (%d)\n",
				it->name, cpu, ret);
			/*
			 * Never fails a CPU's coming online: its events
			 * read 0. A set being made checks its counters.
			 */
			continue;
		}
		/*
		 * Read with READ_ONCE() by tring_ctx_perf_read() on @cpu
		 * only: this step runs on @cpu, or before the set is
		 * published (rcu_assign_pointer() orders the counter's
		 * making before it), so no barrier is needed here.
		 */
		WRITE_ONCE(*per_cpu_ptr(it->pcpu, cpu), p);
	}
	return 0;
}

/*
 * Hotplug offline step of @cpu, and set removal: its writers stop using
 * the counters, which are freed with the set.
 */
static int tring_ctx_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct tring_ctx_set *set = hlist_entry(node, struct tring_ctx_set,
						cpuhp_node);
	struct tring_ctx_pev *p;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		struct tring_ctx_item *it = &set->items[i];

		if (it->kind != TRING_CTX_PERF)
			continue;
		p = *per_cpu_ptr(it->pcpu, cpu);
		if (!p)
			continue;
		WRITE_ONCE(*per_cpu_ptr(it->pcpu, cpu), NULL);
		llist_add(&p->dead, &it->dead);
	}
	return 0;
}

/* Free the counters on the items' dead lists, and the per-CPU slots. */
static void tring_ctx_perf_stop_free(struct tring_ctx_set *set)
{
	struct tring_ctx_pev *p, *next;
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		struct tring_ctx_item *it = &set->items[i];

		if (it->kind != TRING_CTX_PERF || !it->pcpu)
			continue;
		llist_for_each_entry_safe(p, next, llist_del_all(&it->dead),
					  dead) {
			perf_event_release_kernel(p->ev);
			kfree(p);
		}
		free_percpu(it->pcpu);
		it->pcpu = NULL;
	}
}

/* Has every online CPU each counter of @set? -ENOENT if not. */
static int tring_ctx_perf_check(struct tring_ctx_set *set)
{
	unsigned int i, cpu;

	for (i = 0; i < set->nr; i++) {
		if (set->items[i].kind != TRING_CTX_PERF)
			continue;
		for_each_online_cpu(cpu)
			if (!*per_cpu_ptr(set->items[i].pcpu, cpu))
				return -ENOENT;
	}
	return 0;
}

/**
 * tring_ctx_perf_start - make a set's counters on every online CPU
 * @set: the set, not yet in force.
 *
 * Return: 0, or an error (a counter this machine lacks: -ENOENT or
 * perf's error), everything undone.
 */
int tring_ctx_perf_start(struct tring_ctx_set *set)
{
	unsigned int i;
	int ret;

	if (!set->perf)
		return 0;
	for (i = 0; i < set->nr; i++) {
		if (set->items[i].kind != TRING_CTX_PERF)
			continue;
		set->items[i].pcpu = alloc_percpu(struct tring_ctx_pev *);
		if (!set->items[i].pcpu)
			goto free_pcpu;
		init_llist_head(&set->items[i].dead);
	}
	ret = cpuhp_state_add_instance(tring_ctx_cpuhp, &set->cpuhp_node);
	if (!ret) {
		set->perf_on = true;
		cpus_read_lock();
		ret = tring_ctx_perf_check(set);
		cpus_read_unlock();
	}
	if (!ret)
		return 0;
	/* Its offline steps move the counters made to the dead lists. */
	if (set->perf_on)
		cpuhp_state_remove_instance(tring_ctx_cpuhp, &set->cpuhp_node);
	set->perf_on = false;
	tring_ctx_perf_stop_free(set);
	return ret;
free_pcpu:
	tring_ctx_perf_stop_free(set);
	return -ENOMEM;
}

/**
 * tring_ctx_perf_stop - release a set's counters
 * @set: the set, out of force for a grace period (no writer reads them).
 */
void tring_ctx_perf_stop(struct tring_ctx_set *set)
{
	if (!set->perf)
		return;
	if (set->perf_on)
		cpuhp_state_remove_instance(tring_ctx_cpuhp, &set->cpuhp_node);
	tring_ctx_perf_stop_free(set);
}

/* Does this machine count @c on the first online CPU? */
static bool tring_ctx_counter_works(const struct tring_ctx_counter *c)
{
	struct perf_event *ev;

	ev = tring_ctx_counter_new(c->type, c->config, cpumask_first(cpu_online_mask));
	if (IS_ERR(ev))
		return false;
	perf_event_release_kernel(ev);
	return true;
}

/**
 * tring_ctx_perf_list - the counters this machine has, one name a line
 * @m: where.
 */
void tring_ctx_perf_list(struct seq_file *m)
{
	unsigned int i;

	cpus_read_lock();
	for (i = 0; i < ARRAY_SIZE(tring_ctx_counters); i++)
		if (tring_ctx_counter_works(&tring_ctx_counters[i]))
			seq_printf(m, TRING_CTX_PERF_PREFIX "%s\n",
				   tring_ctx_counters[i].name);
	cpus_read_unlock();
}

int tring_ctx_perf_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "tring/ctx:online",
				      tring_ctx_cpu_online,
				      tring_ctx_cpu_offline);
	if (ret < 0)
		return ret;
	tring_ctx_cpuhp = ret;
	return 0;
}

void tring_ctx_perf_exit(void)
{
	cpuhp_remove_multi_state(tring_ctx_cpuhp);
}
