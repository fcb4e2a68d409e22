// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the default buffer's events. Probes attached to the kernel's
 * own tracepoints write them in place with tring_reserve()/commit().
 *
 * /sys/kernel/debug/tring/
 *   events/enable                   1/0: every event (reads X if mixed)
 *   events/<group>/enable           one group
 *   events/<group>/<event>/enable   one event
 *   events/<group>/<event>/id       its id in the trace
 *   events/<group>/<event>/format   its payload's fields
 *   trace_marker                    a write becomes a tring:marker event
 *
 * Enabling registers the probe with tracepoint_probe_register();
 * disabling unregisters it and waits with tracepoint_synchronize_unregister()
 * before returning, so nothing a probe uses can go away under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "tring_events.h"

#define TRING_EVF(st, f, t)	TRING_FIELD(struct tring_ev_##st, f, t)
#define TRING_EVTAIL(st, f, t)	TRING_FIELD_TAIL(struct tring_ev_##st, f, t)
#define TRING_EVDESC(grp, nm, idv, st, flds) {					\
	.group = #grp, .name = #nm, .id = (idv),			\
	.size = sizeof(struct st), .fields = (flds),			\
}

static const struct tring_field tring_marker_fields[] = {
	TRING_EVF(marker, tid, S32),
	TRING_EVTAIL(marker, text, STRING),
	{ }
};

static const struct tring_field tring_test_fields[] = {
	TRING_FIELD(struct tring_test_payload, seq, U64),
	TRING_FIELD(struct tring_test_payload, cpu, U32),
	TRING_FIELD(struct tring_test_payload, data_len, U32),
	TRING_FIELD_TAIL(struct tring_test_payload, data, BYTES),
	{ }
};

static const struct tring_field tring_stress_fields[] = {
	TRING_FIELD(struct tring_stress_payload, seq, U64),
	TRING_FIELD(struct tring_stress_payload, cpu, U32),
	TRING_FIELD(struct tring_stress_payload, ctx, U16),
	TRING_FIELD(struct tring_stress_payload, data_len, U16),
	TRING_FIELD(struct tring_stress_payload, check, U64),
	TRING_FIELD_TAIL(struct tring_stress_payload, data, BYTES),
	{ }
};

static const struct tring_field tring_sched_switch_fields[] = {
	TRING_EVF(sched_switch, prev_comm, CHARS),
	TRING_EVF(sched_switch, prev_tid, S32),
	TRING_EVF(sched_switch, prev_prio, S32),
	TRING_EVF(sched_switch, prev_state, U32),
	TRING_EVF(sched_switch, next_comm, CHARS),
	TRING_EVF(sched_switch, next_tid, S32),
	TRING_EVF(sched_switch, next_prio, S32),
	{ }
};

static const struct tring_field tring_sched_wakeup_fields[] = {
	TRING_EVF(sched_wakeup, comm, CHARS),
	TRING_EVF(sched_wakeup, tid, S32),
	TRING_EVF(sched_wakeup, prio, S32),
	TRING_EVF(sched_wakeup, target_cpu, S32),
	{ }
};

static const struct tring_field tring_fork_fields[] = {
	TRING_EVF(sched_process_fork, parent_comm, CHARS),
	TRING_EVF(sched_process_fork, parent_tid, S32),
	TRING_EVF(sched_process_fork, child_comm, CHARS),
	TRING_EVF(sched_process_fork, child_tid, S32),
	{ }
};

static const struct tring_field tring_exec_fields[] = {
	TRING_EVF(sched_process_exec, tid, S32),
	TRING_EVF(sched_process_exec, old_tid, S32),
	TRING_EVTAIL(sched_process_exec, filename, STRING),
	{ }
};

static const struct tring_field tring_exit_fields[] = {
	TRING_EVF(sched_process_exit, comm, CHARS),
	TRING_EVF(sched_process_exit, tid, S32),
	TRING_EVF(sched_process_exit, prio, S32),
	{ }
};

static const struct tring_field tring_irq_entry_fields[] = {
	TRING_EVF(irq_handler_entry, irq, S32),
	TRING_EVTAIL(irq_handler_entry, name, STRING),
	{ }
};

static const struct tring_field tring_irq_exit_fields[] = {
	TRING_EVF(irq_handler_exit, irq, S32),
	TRING_EVF(irq_handler_exit, ret, S32),
	{ }
};

static const struct tring_field tring_softirq_fields[] = {
	TRING_EVF(softirq, vec, U32),
	{ }
};

static const struct tring_field tring_sys_enter_fields[] = {
	TRING_EVF(sys_enter, id, S64),
	{ .name = "arg0", .type = TRING_FIELD_U64, .offset = 8 },
	{ .name = "arg1", .type = TRING_FIELD_U64, .offset = 16 },
	{ .name = "arg2", .type = TRING_FIELD_U64, .offset = 24 },
	{ .name = "arg3", .type = TRING_FIELD_U64, .offset = 32 },
	{ .name = "arg4", .type = TRING_FIELD_U64, .offset = 40 },
	{ .name = "arg5", .type = TRING_FIELD_U64, .offset = 48 },
	{ }
};

static const struct tring_field tring_sys_exit_fields[] = {
	TRING_EVF(sys_exit, id, S64),
	TRING_EVF(sys_exit, ret, S64),
	{ }
};

/* Every event the default buffer can hold: its metadata. */
const struct tring_event_desc tring_builtin_events[] = {
	TRING_EVDESC(tring, marker, TRING_EV_MARKER, tring_ev_marker,
		     tring_marker_fields),
	TRING_EVDESC(tring_test, test, TRING_EV_TEST, tring_test_payload,
		     tring_test_fields),
	TRING_EVDESC(tring_test, stress, TRING_EV_STRESS, tring_stress_payload,
		     tring_stress_fields),
	TRING_EVDESC(sched, sched_switch, TRING_EV_SCHED_SWITCH, tring_ev_sched_switch,
		     tring_sched_switch_fields),
	TRING_EVDESC(sched, sched_wakeup, TRING_EV_SCHED_WAKEUP, tring_ev_sched_wakeup,
		     tring_sched_wakeup_fields),
	TRING_EVDESC(sched, sched_process_fork, TRING_EV_SCHED_PROCESS_FORK,
		     tring_ev_sched_process_fork, tring_fork_fields),
	TRING_EVDESC(sched, sched_process_exec, TRING_EV_SCHED_PROCESS_EXEC,
		     tring_ev_sched_process_exec, tring_exec_fields),
	TRING_EVDESC(sched, sched_process_exit, TRING_EV_SCHED_PROCESS_EXIT,
		     tring_ev_sched_process_exit, tring_exit_fields),
	TRING_EVDESC(irq, irq_handler_entry, TRING_EV_IRQ_HANDLER_ENTRY,
		     tring_ev_irq_handler_entry, tring_irq_entry_fields),
	TRING_EVDESC(irq, irq_handler_exit, TRING_EV_IRQ_HANDLER_EXIT,
		     tring_ev_irq_handler_exit, tring_irq_exit_fields),
	TRING_EVDESC(irq, softirq_entry, TRING_EV_SOFTIRQ_ENTRY, tring_ev_softirq,
		     tring_softirq_fields),
	TRING_EVDESC(irq, softirq_exit, TRING_EV_SOFTIRQ_EXIT, tring_ev_softirq,
		     tring_softirq_fields),
	TRING_EVDESC(raw_syscalls, sys_enter, TRING_EV_SYS_ENTER, tring_ev_sys_enter,
		     tring_sys_enter_fields),
	TRING_EVDESC(raw_syscalls, sys_exit, TRING_EV_SYS_EXIT, tring_ev_sys_exit,
		     tring_sys_exit_fields),
};

const unsigned int tring_nr_builtin_events = ARRAY_SIZE(tring_builtin_events);

/**
 * tring_default_event - the description of a default buffer's event
 * @id: its id.
 *
 * For kernel code that writes one of these events into a buffer of its
 * own and wants it in that buffer's metadata (struct tring_buffer_attr).
 *
 * Return: the description, or NULL for an unknown id.
 */
const struct tring_event_desc *tring_default_event(unsigned int id)
{
	if (id < TRING_ID_FIRST_EVENT ||
	    id - TRING_ID_FIRST_EVENT >= ARRAY_SIZE(tring_builtin_events))
		return NULL;
	return &tring_builtin_events[id - TRING_ID_FIRST_EVENT];
}
EXPORT_SYMBOL_GPL(tring_default_event);

/* Longest text a marker, a file name or an irq name is cut to. */
#define TRING_TEXT_MAX		1024

/*
 * Reserve @fixed bytes plus @text (cut to TRING_TEXT_MAX - 1 bytes and
 * NUL-terminated) in the default buffer; on success the fixed part is at
 * res->data for the caller to fill.
 */
static int tring_reserve_text(unsigned int id, unsigned int fixed,
			      const char *text, size_t n, struct tring_res *res)
{
	struct tring_buffer *buf;
	int ret = -ENODEV;

	n = min_t(size_t, n, TRING_TEXT_MAX - 1);
	/*
	 * The buffer may be replaced and freed after a grace period: look it
	 * up and reserve in one section with preemption off, whatever the
	 * tracepoint calling us guarantees (tring_reserve() nests in it).
	 */
	preempt_disable_notrace();
	buf = rcu_dereference_sched(tring_default_buf);
	if (buf)
		ret = tring_reserve(buf, id, fixed + n + 1, res);
	preempt_enable_notrace();
	if (ret)
		return ret;
	memcpy(res->data + fixed, text, n);
	((char *)res->data)[fixed + n] = '\0';
	return 0;
}

/* Reserve a fixed-size payload in the default buffer. */
static void *tring_reserve_fixed(unsigned int id, unsigned int len,
				 struct tring_res *res)
{
	struct tring_buffer *buf;
	int ret = -ENODEV;

	/* As in tring_reserve_text(). */
	preempt_disable_notrace();
	buf = rcu_dereference_sched(tring_default_buf);
	if (buf)
		ret = tring_reserve(buf, id, len, res);
	preempt_enable_notrace();
	return ret ? NULL : res->data;
}

#define TRING_RESERVE(id, type, res) \
	((struct type *)tring_reserve_fixed(id, sizeof(struct type), res))

static void tring_probe_sched_switch(void *data, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	struct tring_ev_sched_switch *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_SCHED_SWITCH, tring_ev_sched_switch, &res);
	if (!ev)
		return;
	memcpy(ev->prev_comm, prev->comm, TASK_COMM_LEN);
	ev->prev_tid = prev->pid;
	ev->prev_prio = prev->prio;
	ev->prev_state = prev_state;
	memcpy(ev->next_comm, next->comm, TASK_COMM_LEN);
	ev->next_tid = next->pid;
	ev->next_prio = next->prio;
	tring_commit(&res);
}

static void tring_probe_sched_wakeup(void *data, struct task_struct *p)
{
	struct tring_ev_sched_wakeup *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_SCHED_WAKEUP, tring_ev_sched_wakeup, &res);
	if (!ev)
		return;
	memcpy(ev->comm, p->comm, TASK_COMM_LEN);
	ev->tid = p->pid;
	ev->prio = p->prio;
	ev->target_cpu = task_cpu(p);
	tring_commit(&res);
}

static void tring_probe_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	struct tring_ev_sched_process_fork *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_SCHED_PROCESS_FORK,
			   tring_ev_sched_process_fork, &res);
	if (!ev)
		return;
	memcpy(ev->parent_comm, parent->comm, TASK_COMM_LEN);
	ev->parent_tid = parent->pid;
	memcpy(ev->child_comm, child->comm, TASK_COMM_LEN);
	ev->child_tid = child->pid;
	tring_commit(&res);
}

static void tring_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct tring_ev_sched_process_exec *ev;
	struct tring_res res __uninitialized;

	if (tring_reserve_text(TRING_EV_SCHED_PROCESS_EXEC, sizeof(*ev),
			       bprm->filename, strlen(bprm->filename), &res))
		return;
	ev = res.data;
	ev->tid = p->pid;
	ev->old_tid = old_pid;
	tring_commit(&res);
}

static void tring_probe_exit(void *data, struct task_struct *p)
{
	struct tring_ev_sched_process_exit *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_SCHED_PROCESS_EXIT,
			   tring_ev_sched_process_exit, &res);
	if (!ev)
		return;
	memcpy(ev->comm, p->comm, TASK_COMM_LEN);
	ev->tid = p->pid;
	ev->prio = p->prio;
	tring_commit(&res);
}

static void tring_probe_irq_entry(void *data, int irq,
				  struct irqaction *action)
{
	struct tring_ev_irq_handler_entry *ev;
	const char *name = action->name ?: "";
	struct tring_res res __uninitialized;

	if (tring_reserve_text(TRING_EV_IRQ_HANDLER_ENTRY, sizeof(*ev), name,
			       strlen(name), &res))
		return;
	ev = res.data;
	ev->irq = irq;
	tring_commit(&res);
}

static void tring_probe_irq_exit(void *data, int irq, struct irqaction *action,
				 int ret)
{
	struct tring_ev_irq_handler_exit *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_IRQ_HANDLER_EXIT, tring_ev_irq_handler_exit,
			   &res);
	if (!ev)
		return;
	ev->irq = irq;
	ev->ret = ret;
	tring_commit(&res);
}

static void tring_softirq(unsigned int id, unsigned int vec_nr)
{
	struct tring_ev_softirq *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(id, tring_ev_softirq, &res);
	if (!ev)
		return;
	ev->vec = vec_nr;
	tring_commit(&res);
}

static void tring_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	tring_softirq(TRING_EV_SOFTIRQ_ENTRY, vec_nr);
}

static void tring_probe_softirq_exit(void *data, unsigned int vec_nr)
{
	tring_softirq(TRING_EV_SOFTIRQ_EXIT, vec_nr);
}

static void tring_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct tring_ev_sys_enter *ev;
	unsigned long args[6];
	struct tring_res res __uninitialized;
	int i;

	ev = TRING_RESERVE(TRING_EV_SYS_ENTER, tring_ev_sys_enter, &res);
	if (!ev)
		return;
	syscall_get_arguments(current, regs, args);
	ev->id = id;
	for (i = 0; i < 6; i++)
		ev->args[i] = args[i];
	tring_commit(&res);
}

static void tring_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct tring_ev_sys_exit *ev;
	struct tring_res res __uninitialized;

	ev = TRING_RESERVE(TRING_EV_SYS_EXIT, tring_ev_sys_exit, &res);
	if (!ev)
		return;
	ev->id = syscall_get_nr(current, regs);
	ev->ret = ret;
	tring_commit(&res);
}

/*
 * Each probe must have exactly the prototype the kernel's headers declare
 * for its tracepoint: register_trace_<tp>() is only type-checked here
 * (sizeof does not evaluate it), and -Werror makes a mismatch a build
 * error on whichever kernel changed the prototype.
 */
#define TRING_PROBE_MATCHES(tp, probe) \
	static_assert(sizeof(register_trace_##tp(probe, NULL)) == sizeof(int))

TRING_PROBE_MATCHES(sched_switch, tring_probe_sched_switch);
TRING_PROBE_MATCHES(sched_wakeup, tring_probe_sched_wakeup);
TRING_PROBE_MATCHES(sched_process_fork, tring_probe_fork);
TRING_PROBE_MATCHES(sched_process_exec, tring_probe_exec);
TRING_PROBE_MATCHES(sched_process_exit, tring_probe_exit);
TRING_PROBE_MATCHES(irq_handler_entry, tring_probe_irq_entry);
TRING_PROBE_MATCHES(irq_handler_exit, tring_probe_irq_exit);
TRING_PROBE_MATCHES(softirq_entry, tring_probe_softirq_entry);
TRING_PROBE_MATCHES(softirq_exit, tring_probe_softirq_exit);
TRING_PROBE_MATCHES(sys_enter, tring_probe_sys_enter);
TRING_PROBE_MATCHES(sys_exit, tring_probe_sys_exit);

/**
 * struct tring_source - an event that can be enabled
 * @ev: its description (index into tring_builtin_events).
 * @tp_name: the kernel tracepoint it attaches to; NULL for the marker.
 * @probe: the probe.
 * @tp: the tracepoint, found at load; NULL if this kernel lacks it.
 * @enabled: the probe is registered (marker: writes are recorded).
 *
 * @enabled changes under tring_events_lock; the marker's is read with
 * READ_ONCE by trace_marker writers.
 */
struct tring_source {
	unsigned int ev;
	const char *tp_name;
	void *probe;
	struct tracepoint *tp;
	bool enabled;
};

#define TRING_SOURCE(idv, tpn, pr) \
	{ .ev = (idv) - TRING_ID_FIRST_EVENT, .tp_name = (tpn), .probe = (pr) }

static struct tring_source tring_sources[] = {
	TRING_SOURCE(TRING_EV_MARKER, NULL, NULL),
	TRING_SOURCE(TRING_EV_SCHED_SWITCH, "sched_switch", tring_probe_sched_switch),
	TRING_SOURCE(TRING_EV_SCHED_WAKEUP, "sched_wakeup", tring_probe_sched_wakeup),
	TRING_SOURCE(TRING_EV_SCHED_PROCESS_FORK, "sched_process_fork", tring_probe_fork),
	TRING_SOURCE(TRING_EV_SCHED_PROCESS_EXEC, "sched_process_exec", tring_probe_exec),
	TRING_SOURCE(TRING_EV_SCHED_PROCESS_EXIT, "sched_process_exit", tring_probe_exit),
	TRING_SOURCE(TRING_EV_IRQ_HANDLER_ENTRY, "irq_handler_entry", tring_probe_irq_entry),
	TRING_SOURCE(TRING_EV_IRQ_HANDLER_EXIT, "irq_handler_exit", tring_probe_irq_exit),
	TRING_SOURCE(TRING_EV_SOFTIRQ_ENTRY, "softirq_entry", tring_probe_softirq_entry),
	TRING_SOURCE(TRING_EV_SOFTIRQ_EXIT, "softirq_exit", tring_probe_softirq_exit),
	TRING_SOURCE(TRING_EV_SYS_ENTER, "sys_enter", tring_probe_sys_enter),
	TRING_SOURCE(TRING_EV_SYS_EXIT, "sys_exit", tring_probe_sys_exit),
};

/**
 * struct tring_enable - what an enable file switches
 * @group: a group's events, or NULL.
 * @one: one event, or NULL. Both NULL: every event.
 */
struct tring_enable {
	const char *group;
	struct tring_source *one;
};

static DEFINE_MUTEX(tring_events_lock);	/* enabling and disabling */
static struct dentry *tring_events_dir;

/* Targets of the enable files: all, each group, each source. */
static struct tring_enable tring_enable_all;
static struct tring_enable tring_enable_groups[ARRAY_SIZE(tring_sources)];
static struct tring_enable tring_enable_one[ARRAY_SIZE(tring_sources)];

static const struct tring_event_desc *tring_source_desc(struct tring_source *s)
{
	return &tring_builtin_events[s->ev];
}

/* Set one source; the caller holds tring_events_lock. */
static int tring_source_set(struct tring_source *s, bool on)
{
	int ret = 0;

	if (s->enabled == on)
		return 0;
	if (s->tp_name && !s->tp)
		return -ENODEV;
	if (s->tp && on)
		ret = tracepoint_probe_register(s->tp, s->probe, NULL);
	else if (s->tp)
		ret = tracepoint_probe_unregister(s->tp, s->probe, NULL);
	if (!ret)
		WRITE_ONCE(s->enabled, on);
	return ret;
}

/*
 * Enable or disable every source in @group (NULL: all), or just @one.
 * Sources this kernel lacks are skipped when setting several.
 */
static int tring_sources_set(const char *group, struct tring_source *one,
			     bool on)
{
	bool unregistered = false;
	int ret = 0, err;
	unsigned int i;

	mutex_lock(&tring_events_lock);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		struct tring_source *s = &tring_sources[i];

		if (one ? s != one :
		    group && strcmp(tring_source_desc(s)->group, group))
			continue;
		if (!one && s->tp_name && !s->tp)
			continue;
		unregistered |= !on && s->enabled && s->tp;
		err = tring_source_set(s, on);
		ret = ret ?: err;
	}
	/* No probe runs any more once this returns. */
	if (unregistered)
		tracepoint_synchronize_unregister();
	mutex_unlock(&tring_events_lock);
	return ret;
}

/* '1', '0' or 'X' (mixed) for @group (NULL: all) or @one. */
static char tring_sources_state(const char *group, struct tring_source *one)
{
	bool any_on = false, any_off = false;
	unsigned int i;

	mutex_lock(&tring_events_lock);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		struct tring_source *s = &tring_sources[i];

		if (one ? s != one :
		    group && strcmp(tring_source_desc(s)->group, group))
			continue;
		if (s->enabled)
			any_on = true;
		else
			any_off = true;
	}
	mutex_unlock(&tring_events_lock);
	return any_on && any_off ? 'X' : any_on ? '1' : '0';
}

static ssize_t tring_enable_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	char s[2];

	s[0] = tring_sources_state(en->group, en->one);
	s[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, s, 2);
}

static ssize_t tring_enable_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = tring_sources_set(en->group, en->one, on);
	return ret ? ret : count;
}

static const struct file_operations tring_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_enable_read,
	.write	= tring_enable_write,
	.llseek	= default_llseek,
};

static int tring_format_show(struct seq_file *m, void *unused)
{
	tring_ctf_format(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_format);

static int tring_id_show(struct seq_file *m, void *unused)
{
	const struct tring_event_desc *ev = m->private;

	seq_printf(m, "%u\n", ev->id);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_id);

/*
 * The text of a trace_marker write of @count bytes, the first @n of them
 * at @text: up to the first NUL (the metadata declares a NUL-terminated
 * string, so bytes after one would decode as further records), without
 * one trailing newline (echo's) unless the write was cut at @n. A write
 * with a NUL in its first @n bytes is taken whole (*@taken = @count), the
 * bytes after the NUL dropped; one cut with no NUL takes @n, and the
 * rest comes as the next write.
 */
static size_t tring_marker_text_len(const char *text, size_t n, size_t count,
				    size_t *taken)
{
	size_t len = strnlen(text, n);

	*taken = len < n ? count : n;
	if (*taken == count && len && text[len - 1] == '\n')
		len--;
	return len;
}

static ssize_t tring_marker_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_ev_marker *ev;
	struct tring_res res __uninitialized;
	size_t n = min_t(size_t, count, TRING_TEXT_MAX - 1), len, taken;
	char *text;
	int ret;

	if (!READ_ONCE(tring_sources[0].enabled))
		return -EINVAL;
	text = memdup_user(ubuf, n);
	if (IS_ERR(text))
		return PTR_ERR(text);
	len = tring_marker_text_len(text, n, count, &taken);
	preempt_disable_notrace();
	ret = tring_reserve_text(TRING_EV_MARKER, sizeof(*ev), text, len, &res);
	if (!ret) {
		ev = res.data;
		ev->tid = current->pid;
		tring_commit(&res);
	}
	preempt_enable_notrace();
	kfree(text);
	return ret ? ret : taken;
}

static const struct file_operations tring_marker_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tring_marker_write,
	.llseek	= noop_llseek,
};

static void tring_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].tp_name &&
		    !strcmp(tring_sources[i].tp_name, tp->name))
			tring_sources[i].tp = tp;
}

/* A debugfs file: 0, or the error debugfs_create_file() gave. */
static int tring_create_file(const char *name, umode_t mode,
			     struct dentry *parent, void *data,
			     const struct file_operations *fops)
{
	return PTR_ERR_OR_ZERO(debugfs_create_file(name, mode, parent, data,
						   fops));
}

/*
 * The directory of source @i's group under @events, created with its
 * enable file by the group's first source. Return: the directory with a
 * reference the caller puts with dput(), or an ERR_PTR().
 */
static struct dentry *tring_event_group_dir(struct dentry *events,
					    unsigned int i)
{
	const char *group = tring_source_desc(&tring_sources[i])->group;
	struct dentry *dir;
	int ret;

	dir = debugfs_lookup(group, events);
	if (dir)
		return dir;
	dir = debugfs_create_dir(group, events);
	if (IS_ERR(dir))
		return dir;
	/* The group name lives in the static event table. */
	tring_enable_groups[i].group = group;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_groups[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	return dget(dir);

remove_dir:
	debugfs_remove(dir);
	return ERR_PTR(ret);
}

/*
 * events/<group>/<event>/ of source @i. On error what this call created
 * for the event is removed; a group directory it created stays for the
 * caller, which removes all of events/.
 */
static int tring_add_event_files(struct dentry *events, unsigned int i)
{
	struct tring_source *s = &tring_sources[i];
	const struct tring_event_desc *ev = tring_source_desc(s);
	struct dentry *group, *dir;
	int ret;

	group = tring_event_group_dir(events, i);
	if (IS_ERR(group))
		return PTR_ERR(group);
	dir = debugfs_create_dir(ev->name, group);
	ret = PTR_ERR_OR_ZERO(dir);
	if (ret)
		goto put_group;
	tring_enable_one[i].one = s;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_one[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	ret = tring_create_file("id", 0400, dir, (void *)ev, &tring_id_fops);
	if (ret)
		goto remove_dir;
	ret = tring_create_file("format", 0400, dir, (void *)ev,
				&tring_format_fops);
	if (ret)
		goto remove_dir;
	dput(group);
	return 0;

remove_dir:
	debugfs_remove(dir);
put_group:
	dput(group);
	return ret;
}

/**
 * tring_events_init - check the event table and create the files
 * @root: /sys/kernel/debug/tring.
 *
 * Every debugfs creation is checked; on error what was created here is
 * removed again.
 *
 * Return: 0 or -errno (-ENOMEM and the like from debugfs).
 */
int tring_events_init(struct dentry *root)
{
	unsigned int i;
	int ret;

	for (i = 0; i < tring_nr_builtin_events; i++) {
		ret = tring_event_desc_check(&tring_builtin_events[i]);
		if (WARN(ret, "bad event description %s\n",
			 tring_builtin_events[i].name))
			return ret;
		if (WARN_ON(tring_builtin_events[i].id != i + TRING_ID_FIRST_EVENT))
			return -EINVAL;
	}
	for_each_kernel_tracepoint(tring_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].tp_name && !tring_sources[i].tp)
			pr_info("no tracepoint %s in this kernel\n",
				tring_sources[i].tp_name);

	tring_events_dir = debugfs_create_dir("events", root);
	if (IS_ERR(tring_events_dir))
		return PTR_ERR(tring_events_dir);
	ret = tring_create_file("enable", 0600, tring_events_dir,
				&tring_enable_all, &tring_enable_fops);
	if (ret)
		goto remove_events;
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		ret = tring_add_event_files(tring_events_dir, i);
		if (ret)
			goto remove_events;
	}
	ret = tring_create_file("trace_marker", 0200, root, NULL,
				&tring_marker_fops);
	if (ret)
		goto remove_events;
	return 0;

remove_events:
	debugfs_remove(tring_events_dir);
	tring_events_dir = NULL;
	return ret;
}

/**
 * tring_events_exit - detach every probe
 *
 * Returns when no probe runs any more. The files go with the root.
 */
void tring_events_exit(void)
{
	tring_sources_set(NULL, NULL, false);
}
