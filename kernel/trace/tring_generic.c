// SPDX-License-Identifier: GPL-2.0
/*
 * tring: generic events, the trace events of the running kernel.
 *
 * An event becomes a tring event when it is registered: by name, through
 * events/generic_events (user space writes tracefs's available_events
 * there: tring-record does at every start), or by itself when the module
 * that defines it is loaded (a tracepoint module notifier, which also
 * reports the modules loaded before tring). Every registration goes
 * through the kernel's exported trace_get_event_file(), which finds the
 * event's trace_event_call and pins its module while tring reads it; the
 * fields come from the call's class->fields_array, with offsets laid out
 * as the kernel's own event_define_fields() does. No tracefs file is read
 * in the kernel. An event tring describes by hand (tring_event_table.h)
 * of the same group and name wins: no generic event is made for it.
 *
 * When a module is unloaded its events leave events/. One that was ever
 * enabled stays in the metadata under its id (its records may still be in
 * the buffer); tring never gives an id to a second event while loaded.
 *
 * Recording (tring_gen_perf.c): one kernel perf event per online CPU,
 * PERF_TYPE_TRACEPOINT with the id taken from the pinned call at enable
 * time. Files: tring_gen_fs.c.
 *
 * Concurrency: tring_gen_list is changed under tring_gen_lock (short
 * sections, never around perf or debugfs calls that can wait long) and
 * read under RCU or that lock; an event's names, id and field table are
 * complete before it is added and never change; events are freed after a
 * grace period (kref, then call_rcu()). Enable state: tring_gen_perf.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "tring_gen.h"
#include "tring_generic.h"

static bool generic_events = true;
module_param(generic_events, bool, 0444);
MODULE_PARM_DESC(generic_events, "offer the kernel's other trace events under events/ (generic events)");

LIST_HEAD(tring_gen_list);
/* tring_gen_list's membership, tring_gen_next_id, tring_gen_ready. */
DEFINE_MUTEX(tring_gen_lock);
static unsigned int tring_gen_next_id;	/* under tring_gen_lock */
static bool tring_gen_ready;		/* files may be made (tring_gen_lock) */

static void tring_gen_free_rcu(struct rcu_head *rcu)
{
	struct tring_gen_event *ev = container_of(rcu, struct tring_gen_event,
						  rcu);

	tring_gen_filter_free(ev);
	tring_gen_fields_free(ev->fields, ev->nr_fields);
	kfree(ev->group);
	kfree(ev);
}

static void tring_gen_release_ref(struct kref *ref)
{
	struct tring_gen_event *ev = container_of(ref, struct tring_gen_event,
						  ref);

	/*
	 * The static key of filters sleeps: turned here, in process context
	 * (every tring_gen_put() caller's), not in the callback.
	 */
	tring_gen_filter_release(ev);
	/* Readers of tring_gen_list under RCU may still see it. */
	call_rcu(&ev->rcu, tring_gen_free_rcu);
}

/**
 * tring_gen_put - drop a reference to a generic event
 * @ev: the event.
 *
 * In process context: the last reference's release may sleep.
 */
void tring_gen_put(struct tring_gen_event *ev)
{
	kref_put(&ev->ref, tring_gen_release_ref);
}

/* The listed event @group/@name that did not go away; tring_gen_lock. */
static struct tring_gen_event *tring_gen_find(const char *group,
					      const char *name)
{
	struct tring_gen_event *ev;

	list_for_each_entry(ev, &tring_gen_list, node)
		if (!ev->gone && !strcmp(ev->name, name) &&
		    !strcmp(ev->group, group))
			return ev;
	return NULL;
}

/* A new event for @call (not listed yet), or an ERR_PTR(). */
static struct tring_gen_event *tring_gen_new(struct trace_event_call *call,
					     const char *group,
					     const char *name,
					     struct module *mod)
{
	size_t glen = strlen(group) + 1;
	struct tring_gen_event *ev;
	int err;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return ERR_PTR(-ENOMEM);
	kref_init(&ev->ref);
	ev->mod = mod;
	ev->gone = true;	/* until listed (tring_gen_add()) */
	/* One allocation: "group\0name\0". */
	ev->group = kmalloc(glen + strlen(name) + 1, GFP_KERNEL);
	if (!ev->group) {
		kfree(ev);
		return ERR_PTR(-ENOMEM);
	}
	memcpy(ev->group, group, glen);
	ev->name = ev->group + glen;
	strcpy(ev->name, name);
	err = tring_gen_fields(ev, call);
	if (err == -ENOMEM) {
		kfree(ev->group);
		kfree(ev);
		return ERR_PTR(err);
	}
	/* Listed all the same: its format file says why not. */
	ev->err = err;
	return ev;
}

/**
 * tring_gen_event_alloc - a new event of ops, not listed yet
 * @group: its group.
 * @name: its name.
 * @ops: how it is recorded.
 * @priv: @ops' own.
 * @max_fields: room in ->fields (filled with tring_gen_field_add()).
 *
 * Return: the event, with one reference, ->gone set (for tring_gen_add())
 * and no field yet, or an ERR_PTR(-ENOMEM). tring_gen_put() frees it.
 */
struct tring_gen_event *tring_gen_event_alloc(const char *group,
					      const char *name,
					      const struct tring_gen_ops *ops,
					      void *priv,
					      unsigned int max_fields)
{
	size_t glen = strlen(group) + 1;
	struct tring_gen_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return ERR_PTR(-ENOMEM);
	kref_init(&ev->ref);
	ev->gone = true;	/* until listed (tring_gen_add()) */
	ev->ops = ops;
	ev->priv = priv;
	/* One allocation: "group\0name\0", as tring_gen_new()'s. */
	ev->group = kmalloc(glen + strlen(name) + 1, GFP_KERNEL);
	ev->fields = kcalloc(max_fields, sizeof(*ev->fields), GFP_KERNEL);
	if (!ev->group || !ev->fields) {
		tring_gen_put(ev);
		return ERR_PTR(-ENOMEM);
	}
	memcpy(ev->group, group, glen);
	ev->name = ev->group + glen;
	strcpy(ev->name, name);
	return ev;
}

/**
 * tring_gen_add - give an event an id, make its files, then list it
 * @ev: a new event (its reference the caller's), ->gone set, its names,
 *	field table and sizes (->fixed, ->rec_min) complete.
 *
 * An event is listed whole or not at all (its directory's name is taken
 * once: a second registration of the same event at once fails there,
 * -EEXIST). Until listed it counts as gone: its enable file refuses.
 * The caller holds no lock; tring_gen_lock is taken for the list only.
 *
 * Return: 0, the list holding the caller's reference; -EEXIST, -ENODEV
 * (tring unloads, or generic events are off) or another -errno, the
 * reference dropped.
 */
int tring_gen_add(struct tring_gen_event *ev)
{
	int ret = -ENODEV;

	mutex_lock(&tring_gen_lock);
	if (tring_gen_ready && tring_gen_find(ev->group, ev->name))
		ret = -EEXIST;
	else if (tring_gen_ready)
		ev->id = tring_gen_next_id++;
	mutex_unlock(&tring_gen_lock);
	if (ev->id)
		ret = tring_gen_files(ev);
	if (ret)
		goto put;
	mutex_lock(&tring_gen_lock);
	if (tring_gen_ready) {
		list_add_tail_rcu(&ev->node, &tring_gen_list);
		WRITE_ONCE(ev->gone, false);
	}
	mutex_unlock(&tring_gen_lock);
	if (!ev->gone)
		return 0;
	/* Unloading began meanwhile: its teardown does not see this one. */
	tring_gen_files_remove(ev);
	ret = -ENODEV;
put:
	tring_gen_put(ev);
	return ret;
}

/*
 * Make a generic event of @call, pinned by the caller, defined by @mod
 * (NULL: the kernel's own). Return: 0 (also when it is tring's own or
 * listed already), or -errno.
 */
static int tring_gen_register_call(struct trace_event_call *call,
				   struct module *mod)
{
	const char *name = trace_event_name(call);
	const char *group = call->class->system;
	struct tring_gen_event *ev;
	int ret;

	if (!name || !group || tring_events_builtin(group, name))
		return 0;
	mutex_lock(&tring_gen_lock);
	ev = tring_gen_find(group, name);
	mutex_unlock(&tring_gen_lock);
	if (ev)
		return 0;
	ev = tring_gen_new(call, group, name, mod);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	ret = tring_gen_add(ev);
	return ret == -EEXIST ? 0 : ret;
}

/**
 * tring_gen_register_name - make a generic event of a kernel event by name
 * @group: its group (system).
 * @name: its name.
 *
 * The kernel's event is found, and its module pinned while it is read,
 * with trace_get_event_file().
 *
 * Return: 0 (also when it is tring's own or listed already), -ENOENT
 * when the kernel has no such event, or another -errno.
 */
int tring_gen_register_name(const char *group, const char *name)
{
	struct trace_event_file *file;
	struct trace_event_call *call;
	struct module *mod = NULL;
	int ret;

	if (tring_events_builtin(group, name))
		return 0;
	file = trace_get_event_file(NULL, group, name);
	if (IS_ERR(file))
		return PTR_ERR(file) == -EINVAL ? -ENOENT : PTR_ERR(file);
	call = file->event_call;
	if (!(call->flags & TRACE_EVENT_FL_DYNAMIC))
		mod = call->module;
	ret = tring_gen_register_call(call, mod);
	trace_put_event_file(file);
	return ret;
}

/**
 * tring_gen_unlist - an event goes away
 * @ev: a listed event, with a reference of the caller's.
 *
 * Disabled, its files removed; taken off the list (and the list's
 * reference dropped) unless it was ever enabled: then its records may
 * be in the buffer, and the metadata keeps describing it until unload.
 * Process context.
 */
void tring_gen_unlist(struct tring_gen_event *ev)
{
	bool keep;

	/*
	 * Under tring_gen_enable_lock: no enable is half done, and none
	 * starts after (tring_gen_on() tests ->gone under it). An enabled
	 * event's module cannot go, unless its init failed.
	 */
	mutex_lock(&tring_gen_enable_lock);
	WRITE_ONCE(ev->gone, true);
	if (ev->on)
		tring_gen_set(ev, false);
	mutex_unlock(&tring_gen_enable_lock);
	tring_gen_files_remove(ev);
	mutex_lock(&tring_gen_lock);
	/* Pairs with the smp_store_release() of tring_gen_perf.c. */
	keep = smp_load_acquire(&ev->described);
	if (!keep)
		list_del_rcu(&ev->node);
	mutex_unlock(&tring_gen_lock);
	if (!keep)
		tring_gen_put(ev);
}

/* The events of @mod left: unlist theirs. */
static void tring_gen_module_going(struct module *mod)
{
	struct tring_gen_event *ev;

	for (;;) {
		mutex_lock(&tring_gen_lock);
		list_for_each_entry(ev, &tring_gen_list, node)
			if (ev->mod == mod && !ev->gone)
				break;
		if (list_entry_is_head(ev, &tring_gen_list, node))
			ev = NULL;
		else
			kref_get(&ev->ref);
		mutex_unlock(&tring_gen_lock);
		if (!ev)
			return;
		tring_gen_unlist(ev);
		tring_gen_put(ev);
	}
}

/*
 * A module with tracepoints comes (also, at registration, every one
 * loaded before) or goes. Called by the tracepoint module notifier after
 * the trace events core added the module's events, and after it removed
 * them.
 */
static int tring_gen_module_notify(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct tp_module *tpm = data;
	struct module *mod = tpm->mod;
	struct trace_event_call *call;
	unsigned int i, failed = 0;
	const char *name;
	int err;

	if (val == MODULE_STATE_GOING) {
		tring_gen_module_going(mod);
		return NOTIFY_OK;
	}
	if (val != MODULE_STATE_COMING)
		return NOTIFY_OK;
	for (i = 0; i < mod->num_trace_events; i++) {
		call = mod->trace_events[i];
		name = trace_event_name(call);
		if (!name || !call->class->system)
			continue;
		err = tring_gen_register_name(call->class->system, name);
		failed += err && err != -ENODEV;
	}
	if (failed)
		pr_warn("%u events of module %s could not be made generic events\n",
			failed, mod->name);
	return NOTIFY_OK;
}

static struct notifier_block tring_gen_module_nb = {
	.notifier_call = tring_gen_module_notify,
};

/**
 * tring_gen_selected - is @ev one a state file of many switches or shows
 * @ev: a listed event.
 * @group: those of this group; NULL: every generic event.
 *
 * Those that went away or cannot be recorded (->err) are left out.
 *
 * Return: true if selected.
 */
bool tring_gen_selected(const struct tring_gen_event *ev, const char *group)
{
	if (READ_ONCE(ev->gone))
		return false;
	if (ev->err)
		return false;
	return !group || !strcmp(ev->group, group);
}

/**
 * tring_gen_snapshot - the events a state file of many switches
 * @group: those of this group; NULL: every generic event.
 * @nr: set to their number.
 *
 * Each with a reference, so that a bulk enable works through them
 * without a lock over them all.
 *
 * Return: an array for tring_gen_snapshot_put(), NULL when none is
 * selected, ERR_PTR(-ENOMEM).
 */
struct tring_gen_event **tring_gen_snapshot(const char *group,
					    unsigned int *nr)
{
	struct tring_gen_event *ev, **evs = NULL;
	unsigned int n = 0, cap = 0;

	*nr = 0;
	mutex_lock(&tring_gen_lock);
	list_for_each_entry(ev, &tring_gen_list, node)
		cap += tring_gen_selected(ev, group);
	if (cap)
		evs = kvmalloc_array(cap, sizeof(*evs), GFP_KERNEL);
	list_for_each_entry(ev, &tring_gen_list, node) {
		if (!evs || n == cap)
			break;
		if (!tring_gen_selected(ev, group))
			continue;
		kref_get(&ev->ref);
		evs[n++] = ev;
	}
	mutex_unlock(&tring_gen_lock);
	if (cap && !evs)
		return ERR_PTR(-ENOMEM);
	*nr = n;
	return evs;
}

/**
 * tring_gen_snapshot_put - drop a snapshot's references
 * @evs: from tring_gen_snapshot().
 * @nr: its number of events.
 */
void tring_gen_snapshot_put(struct tring_gen_event **evs, unsigned int nr)
{
	while (nr--)
		tring_gen_put(evs[nr]);
	kvfree(evs);
}

/* A CTF integer of field @f (its element for an array). */
static void tring_gen_ctf_int(struct seq_file *m,
			      const struct tring_gen_field *f)
{
	seq_printf(m, "integer { size = %u; align = 8; signed = %s; base = %u; }",
		   f->elem * 8, f->is_signed ? "true" : "false",
		   f->hex ? 16 : 10);
}

/* Whether @ev's payload may end before a multiple of 4 bytes. */
static bool tring_gen_unaligned(const struct tring_gen_event *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++)
		if (ev->fields[i].kind >= TRING_GEN_DSTR)
			return true;
	return ev->fixed % 4;
}

static void tring_gen_ctf_field(struct seq_file *m,
				const struct tring_gen_field *f)
{
	seq_puts(m, "\t\t");
	switch (f->kind) {
	case TRING_GEN_INT:
		tring_gen_ctf_int(m, f);
		seq_printf(m, " %s;\n", f->name);
		break;
	case TRING_GEN_CHARS:
		seq_printf(m, "integer { size = 8; align = 8; signed = false; encoding = UTF8; } %s[%u];\n",
			   f->name, f->size);
		break;
	case TRING_GEN_ARRAY:
		tring_gen_ctf_int(m, f);
		seq_printf(m, " %s[%u];\n", f->name, f->size / f->elem);
		break;
	case TRING_GEN_BYTES:
		seq_printf(m, "uint8_t %s[%u];\n", f->name, f->size);
		break;
	case TRING_GEN_DSTR:
		seq_printf(m, "string %s;\n", f->name);
		break;
	case TRING_GEN_DARR:
		seq_printf(m, "uint32_t _%s_len;\n\t\t", f->name);
		tring_gen_ctf_int(m, f);
		seq_printf(m, " %s[_%s_len];\n", f->name, f->name);
		break;
	}
}

/**
 * tring_generic_ctf - the CTF metadata of the generic events
 * @m: where.
 *
 * Every generic event that was enabled once, also one that went away
 * since. The default buffer's metadata ends with these. Takes no mutex:
 * a bulk enable never holds up a reader of the metadata.
 */
void tring_generic_ctf(struct seq_file *m)
{
	const struct tring_gen_event *ev;
	unsigned long done = 0;
	unsigned int j;

	rcu_read_lock();
	list_for_each_entry_rcu(ev, &tring_gen_list, node) {
		/* Pairs with the smp_store_release() of tring_gen_perf.c. */
		if (!smp_load_acquire(&ev->described))
			continue;
		if (ev->ops && ev->ops->ctf_decl)
			ev->ops->ctf_decl(m, ev, &done);
		seq_printf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
			   ev->name, ev->id);
		for (j = 0; j < ev->nr_fields; j++)
			if (!ev->ops || !ev->ops->ctf_field ||
			    !ev->ops->ctf_field(m, ev, j))
				tring_gen_ctf_field(m, &ev->fields[j]);
		/*
		 * A payload of a length not a multiple of 4 ends in zero
		 * bytes up to the next record; at the end of a packet a CTF
		 * reader would take them for another record's header. An
		 * empty 4-byte aligned struct last makes them part of the
		 * event (babeltrace2 shows "tring_pad = { }").
		 */
		if (tring_gen_unaligned(ev))
			seq_puts(m, "\t\tstruct { } align(32) _tring_pad;\n");
		seq_puts(m, "\t};\n};\n\n");
	}
	rcu_read_unlock();
}

/* Free every event; nothing is enabled, no file is left. */
static void tring_gen_free_all(void)
{
	struct tring_gen_event *ev, *tmp;

	mutex_lock(&tring_gen_lock);
	list_for_each_entry_safe(ev, tmp, &tring_gen_list, node) {
		list_del_rcu(&ev->node);
		tring_gen_put(ev);
	}
	mutex_unlock(&tring_gen_lock);
	/* The call_rcu() callbacks run before our text goes. */
	rcu_barrier();
}

/*
 * Disable every generic event, remove the files, free the events: the
 * first half of tring_generic_exit(), also the unwinding of a failed
 * tring_generic_init(). No event can be offered or enabled after it.
 */
static void tring_gen_teardown(void)
{
	struct tring_gen_event *ev;

	mutex_lock(&tring_gen_lock);
	tring_gen_ready = false;
	mutex_unlock(&tring_gen_lock);
	/* The files first: no enable can start after this. */
	tring_gen_fs_exit();
	mutex_lock(&tring_gen_enable_lock);
	mutex_lock(&tring_gen_lock);
	list_for_each_entry(ev, &tring_gen_list, node)
		if (ev->on)
			tring_gen_set(ev, false);
	mutex_unlock(&tring_gen_lock);
	mutex_unlock(&tring_gen_enable_lock);
	/* No handler of ours runs once this returns. */
	tracepoint_synchronize_unregister();
	tring_gen_free_all();
	tring_gen_groups_free();
}

/**
 * tring_generic_init - offer the kernel's events as generic events
 * @events: /sys/kernel/debug/tring/events.
 * @first_id: the id of the first generic event; the others follow.
 *
 * Makes the files first, then registers the events of the modules
 * loaded (the kernel's own come by name through events/generic_events).
 * With the module parameter generic_events=0 there are none.
 *
 * Return: 0 or -errno; nothing is left on error.
 */
int tring_generic_init(struct dentry *events, unsigned int first_id)
{
	int ret;

	if (!generic_events)
		return 0;
	tring_gen_next_id = first_id;
	ret = tring_gen_perf_init();
	if (ret)
		return ret;
	ret = tring_gen_fs_init(events);
	if (ret)
		goto exit_perf;
	mutex_lock(&tring_gen_lock);
	tring_gen_ready = true;
	mutex_unlock(&tring_gen_lock);
	ret = register_tracepoint_module_notifier(&tring_gen_module_nb);
	if (ret)
		goto exit_fs;
	return 0;

exit_fs:
	tring_gen_teardown();
exit_perf:
	tring_gen_perf_exit();
	return ret;
}

/**
 * tring_generic_exit - disable every generic event, remove their files
 *
 * Returns when no handler runs any more and everything is freed.
 */
void tring_generic_exit(void)
{
	if (!generic_events)
		return;
	unregister_tracepoint_module_notifier(&tring_gen_module_nb);
	tring_gen_teardown();
	tring_gen_perf_exit();
}
