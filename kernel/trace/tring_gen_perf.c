// SPDX-License-Identifier: GPL-2.0
/*
 * tring: recording the generic events through perf.
 *
 * Enabling an event pins the kernel's event (trace_get_event_file(),
 * which holds its module) and creates one kernel perf event per CPU in
 * tring_gen_cpus, of type PERF_TYPE_TRACEPOINT with the id the pinned
 * call has now (call->event.type: ids are handed out again when modules
 * come and go, so none is kept across an enable). The kernel's perf probe
 * runs the event's own TP_fast_assign() into perf's per-CPU scratch
 * record and calls tring_gen_overflow(), which copies the fields into the
 * default buffer with tring_reserve()/tring_commit(), turning each
 * __data_loc/__rel_loc field into its content (a string, or a count and
 * the elements) so that CTF readers decode it. A record shorter than the
 * event's fields, or larger than a sub-buffer, is counted in the CPU's
 * too_big losses: the trace's events_discarded carries it.
 *
 * CPU hotplug: a CPU going offline loses its perf events (perf detaches
 * them), one coming online has none. tring's hotplug callbacks
 * (CPUHP_AP_ONLINE_DYN) keep tring_gen_cpus, the CPUs perf events may be
 * created on, and hand the perf work to tring_gen_cpu_work: creating or
 * releasing a perf event takes the trace events' event_mutex, which is
 * taken before the CPU hotplug lock elsewhere (enabling an event there
 * enables a static key), so a hotplug callback must not take it.
 *
 * Memory: each perf event costs TRING_GEN_PE_BYTES, counted in
 * tring_gen_pe_count; an enable that would pass generic_mem_kb is refused
 * with -ENOMEM and a message naming the sizes.
 *
 * Concurrency: tring_gen_enable_lock serialises every change of an
 * event's ->on, ->file, ->pe and tring_gen_pe_count; it is taken per
 * event, never over a whole bulk enable, and never under tring_gen_lock
 * (which may be taken under it).
 * tring_gen_cpus and tring_gen_cpus_stale change with atomic bit
 * operations in the hotplug callbacks (the CPU hotplug lock held) and are
 * read under tring_gen_enable_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "tring_ctx.h"
#include "tring_events.h"
#include "tring_filter_file.h"
#include "tring_gen.h"
#include "tring_persist_api.h"
#include "tring_track.h"

/* What one perf event of ours costs: the event, its slot in ev->pe. */
#define TRING_GEN_PE_BYTES	(sizeof(struct perf_event) + sizeof(void *))

static unsigned long generic_mem_kb;
module_param(generic_mem_kb, ulong, 0644);
MODULE_PARM_DESC(generic_mem_kb, "most memory the generic events' perf events may take, in KiB (0: a 32nd of RAM)");

/* Every enable and disable, one event at a time (see above). */
DEFINE_MUTEX(tring_gen_enable_lock);
static unsigned long tring_gen_pe_count;	/* tring_gen_enable_lock */
static unsigned long tring_gen_refused_mem;	/* tring_gen_enable_lock */
static unsigned long tring_gen_cpu_attached;	/* tring_gen_enable_lock */
static struct cpumask tring_gen_cpus;
static struct cpumask tring_gen_cpus_stale;
static enum cpuhp_state tring_gen_cpuhp;
static struct workqueue_struct *tring_gen_wq;

/**
 * tring_gen_lost - count events of this CPU lost on the way into the buffer
 * @n: how many.
 *
 * They are added to the CPU's too_big losses, which the trace's
 * events_discarded carries. Any context.
 */
void tring_gen_lost(unsigned int n)
{
	struct tring_buffer *buf;

	preempt_disable_notrace();
	buf = rcu_dereference_sched(tring_default_buf) ?: tring_ctx_buffer();
	if (buf)
		local_add(n, &this_cpu_ptr(buf->cpus)->too_big);
	preempt_enable_notrace();
}

/*
 * Where the content of dynamic field @f of @rec (@size bytes) is:
 * *@off, and its length, 0 if the location points outside the record.
 */
static __always_inline unsigned int
tring_gen_loc(const struct tring_gen_field *f, const u8 *rec,
	      unsigned int size, unsigned int *off)
{
	unsigned int len;
	u32 loc;

	memcpy(&loc, rec + f->src, sizeof(loc));
	len = loc >> 16;

	*off = (loc & 0xffff) + (f->rel ? f->src + 4 : 0);
	return *off + len <= size ? len : 0;
}

/* The payload's size for @rec: the fixed fields, each dynamic one's content. */
static unsigned int tring_gen_len(const struct tring_gen_event *ev,
				  const u8 *rec, unsigned int size,
				  unsigned int *dlen)
{
	const struct tring_gen_field *f;
	unsigned int i, d = 0, off, len = ev->fixed;

	if (ev->flat)
		return len;
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind == TRING_GEN_DSTR) {
			dlen[d] = tring_gen_loc(f, rec, size, &off);
			dlen[d] = strnlen(rec + off, dlen[d]);
			len += dlen[d++] + 1;
		} else if (f->kind == TRING_GEN_DARR) {
			dlen[d] = tring_gen_loc(f, rec, size, &off) / f->elem;
			len += 4 + dlen[d++] * f->elem;
		}
	}
	return len;
}

/*
 * Copy @rec's fields to the payload at @p. Inline in both writers, as it
 * was in tring_gen_record() alone: the path without contexts unchanged.
 */
static __always_inline void tring_gen_copy(const struct tring_gen_event *ev,
					   const u8 *rec, unsigned int size,
					   const unsigned int *dlen, u8 *p)
{
	const struct tring_gen_field *f;
	unsigned int i, d = 0, off;

	if (ev->flat) {
		memcpy(p, rec + ev->flat_src, ev->fixed);
		return;
	}
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind < TRING_GEN_DSTR) {
			memcpy(p, rec + f->src, f->size);
			p += f->size;
			continue;
		}
		tring_gen_loc(f, rec, size, &off);
		if (f->kind == TRING_GEN_DSTR) {
			memcpy(p, rec + off, dlen[d]);
			p[dlen[d]] = '\0';
			p += dlen[d++] + 1;
		} else {
			memcpy(p, &(u32){ dlen[d] }, sizeof(u32));
			memcpy(p + 4, rec + off, dlen[d] * f->elem);
			p += 4 + dlen[d++] * f->elem;
		}
	}
}

/*
 * perf's overflow handler, called for every hit of the event on this
 * CPU with the kernel's assigned record as raw sample data. Runs in the
 * context of the tracepoint (any, NMI included), with preemption
 * disabled by the tracepoint. Lockless: it reads the event's id and
 * field table, which never change while the event lives, and the event
 * outlives its perf events.
 */
static void tring_gen_overflow(struct perf_event *pe,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	const struct tring_gen_event *ev = pe->overflow_handler_context;
	const struct perf_raw_record *raw;

	/* Tracking and the filter, before anything is reserved. */
	if (tring_track_skip(current, NULL))
		return;
	/* perf_tp_event() gives the record: one fragment, flagged RAW. */
	raw = data->sample_flags & PERF_SAMPLE_RAW ? data->raw : NULL;
	if (!raw || !perf_raw_frag_last(&raw->frag) ||
	    raw->frag.size < ev->rec_min) {
		tring_gen_lost(1);
		return;
	}
	tring_gen_record(ev, raw->frag.data, raw->frag.size, regs);
}

/*
 * tring_gen_record()'s write while contexts are in force: a function of
 * its own, so that the reservation's address escapes here only and the
 * path without contexts compiles as it did before they existed.
 */
static noinline void tring_gen_record_ctx(const struct tring_gen_event *ev,
					  const u8 *rec, unsigned int size,
					  const unsigned int *dlen,
					  unsigned int len,
					  struct pt_regs *regs)
{
	struct tring_res res __uninitialized;

	if (tring_ctx_reserve(ev->id, len, &res, regs))
		return;
	tring_gen_copy(ev, rec, size, dlen, res.data);
	tring_commit(&res);
}

/**
 * tring_gen_record - write one event from a record of the kernel's layout
 * @ev: the event; its field table says where each field lies in @rec.
 * @rec: the record, at least @ev->rec_min bytes.
 * @size: its bytes (dynamic fields' content lies inside them).
 * @regs: the registers of the hook that fired (kernel ones: a kernel
 *	call stack starts where they point), or NULL.
 *
 * The event's filter runs on @rec first. Any context; lockless.
 */
void tring_gen_record(const struct tring_gen_event *ev, const u8 *rec,
		      unsigned int size, struct pt_regs *regs)
{
	unsigned int dlen[TRING_GEN_MAX_DYN], len;
	struct tring_res res __uninitialized;
	const struct tring_filter *filter;
	struct tring_buffer *buf;
	int ret;

	/*
	 * Preemption off from the filter's and the buffer's look-up to the
	 * commit, whatever the context the handler runs in guarantees: the
	 * buffer may be freed a grace period after it is replaced, and a
	 * reservation is committed on the CPU that made it.
	 */
	preempt_disable_notrace();
	/* Rejected before anything is reserved; see tring_gen_filter.c. */
	filter = tring_filter_get(&ev->fslot);
	if (filter && !tring_filter_match(filter, rec, size))
		goto out;
	len = tring_gen_len(ev, rec, size, dlen);
	/* Losses are counted by tring_reserve(). */
	buf = rcu_dereference_sched(tring_default_buf);
	if (!buf) {
		/* Contexts in force: out of line, @res left to this path. */
		tring_gen_record_ctx(ev, rec, size, dlen, len, regs);
		goto out;
	}
	ret = tring_reserve(buf, ev->id, len, &res);
	if (ret)
		goto out;
	tring_gen_copy(ev, rec, size, dlen, res.data);
	tring_commit(&res);
out:
	preempt_enable_notrace();
}

/* The budget in bytes. */
static unsigned long tring_gen_budget(void)
{
	unsigned long kb = READ_ONCE(generic_mem_kb);

	if (kb)
		return kb << 10;
	return (totalram_pages() << PAGE_SHIFT) / 32;
}

/* A new perf event of @ev on @cpu; tring_gen_enable_lock held. */
static int tring_gen_pe_create(struct tring_gen_event *ev, unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = ev->file->event_call->event.type,
		.sample_period = 1,
		/* PERIOD: one overflow per hit, never throttled (perf_swevent_event) */
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct perf_event *pe;

	pe = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      tring_gen_overflow, ev);
	if (IS_ERR(pe))
		return PTR_ERR(pe);
	ev->pe[cpu] = pe;
	ev->nr_pe++;
	tring_gen_pe_count++;
	return 0;
}

/* Release @ev's perf event on @cpu, if any; tring_gen_enable_lock held. */
static void tring_gen_pe_release(struct tring_gen_event *ev, unsigned int cpu)
{
	if (!ev->pe[cpu])
		return;
	perf_event_release_kernel(ev->pe[cpu]);
	ev->pe[cpu] = NULL;
	ev->nr_pe--;
	tring_gen_pe_count--;
}

/* Disable @ev: release its perf events and its pin. */
static void tring_gen_off(struct tring_gen_event *ev)
{
	unsigned int cpu;

	if (ev->ops) {
		ev->ops->off(ev);
		WRITE_ONCE(ev->on, false);
		return;
	}
	for_each_possible_cpu(cpu)
		tring_gen_pe_release(ev, cpu);
	kfree(ev->pe);
	ev->pe = NULL;
	/*
	 * perf's release waited for the probes that were running; the
	 * module the pin held may go now.
	 */
	trace_put_event_file(ev->file);
	ev->file = NULL;
	WRITE_ONCE(ev->on, false);
}

/* Whether enabling @ev stays within the budget; says so if not. */
static bool tring_gen_mem_ok(const struct tring_gen_event *ev)
{
	unsigned long need = cpumask_weight(&tring_gen_cpus) *
			     TRING_GEN_PE_BYTES;
	unsigned long used = tring_gen_pe_count * TRING_GEN_PE_BYTES;

	if (used + need <= tring_gen_budget())
		return true;
	tring_gen_refused_mem++;
	pr_warn_ratelimited("%s:%s not enabled: its %u perf events need %lu bytes, %lu are in use, the budget (generic_mem_kb) is %lu\n",
			    ev->group, ev->name, cpumask_weight(&tring_gen_cpus),
			    need, used, tring_gen_budget());
	return false;
}

/* Pin @ev's kernel event, if it is still the one @ev was made from. */
static int tring_gen_pin(struct tring_gen_event *ev)
{
	struct trace_event_file *file;
	struct trace_event_call *call;
	void *mod = NULL;

	file = trace_get_event_file(NULL, ev->group, ev->name);
	if (IS_ERR(file))
		return -ENOENT;
	call = file->event_call;
	if (!(call->flags & TRACE_EVENT_FL_DYNAMIC))
		mod = call->module;
	/* Another module's event of the same name: not this one. */
	if (mod != ev->mod) {
		trace_put_event_file(file);
		return -ENOENT;
	}
	ev->file = file;
	return 0;
}

/* In the metadata from now on, before any record of @ev can exist. */
static void tring_gen_describe(struct tring_gen_event *ev)
{
	if (ev->described)
		return;
	/*
	 * Pairs with the smp_load_acquire()s of tring_generic.c: a reader
	 * of the metadata that sees @described sees the event whole, and
	 * it is set before any record of it can exist.
	 */
	smp_store_release(&ev->described, true);
	/* Its layout in a persistent region too, before any record. */
	tring_persist_gen_event(ev);
}

/* Enable @ev of @ev->ops; tring_gen_enable_lock held. */
static int tring_gen_on_ops(struct tring_gen_event *ev)
{
	int ret;

	tring_gen_describe(ev);
	WRITE_ONCE(ev->on, true);
	ret = ev->ops->on(ev);
	if (ret)
		WRITE_ONCE(ev->on, false);
	return ret;
}

/* Enable @ev; tring_gen_enable_lock held. */
static int tring_gen_on(struct tring_gen_event *ev)
{
	unsigned int cpu;
	int ret;

	if (READ_ONCE(ev->gone))
		return -ENOENT;
	if (ev->err)
		return ev->err;
	if (ev->ops)
		return tring_gen_on_ops(ev);
	if (!tring_gen_mem_ok(ev))
		return -ENOMEM;
	ev->pe = kcalloc(nr_cpu_ids, sizeof(*ev->pe), GFP_KERNEL);
	if (!ev->pe)
		return -ENOMEM;
	ret = tring_gen_pin(ev);
	if (ret) {
		kfree(ev->pe);
		ev->pe = NULL;
		return ret;
	}
	tring_gen_describe(ev);
	WRITE_ONCE(ev->on, true);
	for_each_cpu(cpu, &tring_gen_cpus) {
		ret = tring_gen_pe_create(ev, cpu);
		if (ret) {
			tring_gen_off(ev);
			return ret;
		}
	}
	return 0;
}

/**
 * tring_gen_set - enable or disable a generic event
 * @ev: the event.
 * @on: the new state.
 *
 * Context: process; the caller holds tring_gen_enable_lock.
 * Return: 0, -ENOENT when its kernel event went away, -ENOMEM past the
 * budget or out of memory, the error of an event that cannot be recorded
 * (->err), or perf's.
 */
int tring_gen_set(struct tring_gen_event *ev, bool on)
{
	lockdep_assert_held(&tring_gen_enable_lock);
	if (ev->on == on)
		return 0;
	if (!on) {
		tring_gen_off(ev);
		return 0;
	}
	return tring_gen_on(ev);
}

/*
 * Bring every enabled event's perf events in line with tring_gen_cpus:
 * release those of CPUs that went offline since they were made, create
 * those of CPUs in the mask that have none.
 */
static void tring_gen_cpu_work_fn(struct work_struct *work)
{
	struct tring_gen_event *ev;
	unsigned int cpu;
	int err;

	mutex_lock(&tring_gen_enable_lock);
	/* The list, which an enabled event stays on, does not change. */
	mutex_lock(&tring_gen_lock);
	for_each_possible_cpu(cpu) {
		if (!cpumask_test_and_clear_cpu(cpu, &tring_gen_cpus_stale))
			continue;
		list_for_each_entry(ev, &tring_gen_list, node)
			if (ev->on && !ev->ops)
				tring_gen_pe_release(ev, cpu);
	}
	/* A probe's event is recorded on every CPU: none of its own. */
	list_for_each_entry(ev, &tring_gen_list, node) {
		if (!ev->on || ev->ops)
			continue;
		for_each_cpu(cpu, &tring_gen_cpus) {
			if (ev->pe[cpu])
				continue;
			err = tring_gen_pe_create(ev, cpu);
			if (err)
				pr_warn_ratelimited("%s:%s: no perf event on CPU %u (error %d): not recorded there\n",
						    ev->group, ev->name, cpu, err);
			else
				tring_gen_cpu_attached++;
		}
	}
	mutex_unlock(&tring_gen_lock);
	mutex_unlock(&tring_gen_enable_lock);
}

static DECLARE_WORK(tring_gen_cpu_work, tring_gen_cpu_work_fn);

static int tring_gen_cpu_online(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &tring_gen_cpus);
	queue_work(tring_gen_wq, &tring_gen_cpu_work);
	return 0;
}

static int tring_gen_cpu_offline(unsigned int cpu)
{
	cpumask_clear_cpu(cpu, &tring_gen_cpus);
	cpumask_set_cpu(cpu, &tring_gen_cpus_stale);
	queue_work(tring_gen_wq, &tring_gen_cpu_work);
	return 0;
}

/**
 * tring_gen_mem_show - the generic events' memory account
 * @m: where (events/generic_stats).
 */
void tring_gen_mem_show(struct seq_file *m)
{
	mutex_lock(&tring_gen_enable_lock);
	seq_printf(m, "perf_events: %lu\nbytes_per_perf_event: %zu\nbytes: %lu\nbudget_bytes: %lu\nrefused_for_memory: %lu\ncpu_attachments: %lu\n",
		   tring_gen_pe_count, TRING_GEN_PE_BYTES,
		   tring_gen_pe_count * TRING_GEN_PE_BYTES, tring_gen_budget(),
		   tring_gen_refused_mem, tring_gen_cpu_attached);
	mutex_unlock(&tring_gen_enable_lock);
}

/**
 * tring_gen_perf_init - start following CPU hotplug
 *
 * Return: 0 or -errno.
 */
int tring_gen_perf_init(void)
{
	int ret;

	tring_gen_wq = alloc_ordered_workqueue("tring_generic", 0);
	if (!tring_gen_wq)
		return -ENOMEM;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "trace/tring:generic",
				tring_gen_cpu_online, tring_gen_cpu_offline);
	if (ret < 0) {
		destroy_workqueue(tring_gen_wq);
		return ret;
	}
	tring_gen_cpuhp = ret;
	/* No event is enabled yet: nothing for the work to do. */
	flush_workqueue(tring_gen_wq);
	return 0;
}

/**
 * tring_gen_perf_exit - stop following CPU hotplug
 *
 * Every event is disabled already.
 */
void tring_gen_perf_exit(void)
{
	cpuhp_remove_state_nocalls(tring_gen_cpuhp);
	destroy_workqueue(tring_gen_wq);
}
