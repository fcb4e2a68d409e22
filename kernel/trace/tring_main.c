// SPDX-License-Identifier: GPL-2.0
/*
 * tring: module setup, and the default buffer with its knobs. Buffers
 * that other kernel code creates are instances (tring_instance.c).
 *
 * /sys/kernel/debug/tring/
 *   buffer_size_kb          per-CPU ring size of the default buffer
 *   buffer_subbuf_size_kb   its sub-buffer size
 *   overwrite               1: flight recorder, 0: drop new events when full
 *   trace_clock             [mono] local
 *   per_cpu/cpuN/stream     the default buffer's streams (tring_fs.c)
 *   instances/<name>/       buffers created with tring_buffer_create()
 *                           (tring_instance.c)
 *
 * The knobs rebuild the default buffer; they fail with EBUSY while one
 * of its streams is open or mapped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_cmd.h"
#include "tring_ctx.h"
#include "tring_events.h"
#include "tring_filter_file.h"
#include "tring_func.h"
#include "tring_instance.h"
#include "tring_persist_api.h"
#include "tring_probe_event.h"
#include "tring_track.h"

static unsigned long subbuf_size = SZ_64K;
module_param(subbuf_size, ulong, 0444);
MODULE_PARM_DESC(subbuf_size, "default buffer: bytes per sub-buffer (power of two)");

/*
 * 64 x 64 KiB = 4 MiB per CPU, LTTng's kernel channel default (4 x 1 MiB):
 * a reader stalled for 30 ms loses nothing at 2 M 64-byte events/s.
 */
static unsigned int subbuf_count = 64;
module_param(subbuf_count, uint, 0444);
MODULE_PARM_DESC(subbuf_count, "default buffer: sub-buffers per CPU (power of two)");

static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "default buffer: overwrite the oldest data when full");

static struct dentry *tring_root;

/* Serializes the knobs: reading the default buffer's shape, rebuilding it. */
static DEFINE_MUTEX(tring_config_lock);
static struct tring_instance *tring_default_inst;
/*
 * The buffer the probes and trace_marker write to. Published with
 * rcu_assign_pointer() (pairs with rcu_dereference_sched() in the
 * writers: the buffer's initialization before its use) at load and, under
 * tring_config_lock, when a knob replaces the buffer; writers read it with
 * preemption disabled, and a replaced buffer is freed only after
 * synchronize_rcu() in tring_buffer_free().
 */
struct tring_buffer __rcu *tring_default_buf;

/**
 * tring_default_buffer - the default buffer, for in-module writers
 *
 * Context: preemption disabled (an RCU-sched read section) until the
 * caller is done writing; the buffer may be replaced and freed after.
 * Return: the buffer, or NULL while the module is going away.
 */
struct tring_buffer *tring_default_buffer(void)
{
	return rcu_dereference_sched(tring_default_buf);
}
EXPORT_SYMBOL_GPL(tring_default_buffer);

/*
 * The default buffer's attributes. Its buffer is replaced only under
 * tring_config_lock, and freed after the knob files are gone.
 */
static const struct tring_buffer_attr *tring_default_attr(void)
{
	lockdep_assert_held(&tring_config_lock);
	return &tring_default_inst->buf->attr;
}

/*
 * Make @buf the buffer the events write to, with the context set @set
 * (NULL: none). Writers find it in tring_default_buf when it carries no
 * context, else in the set (tring_ctx_write.c), and tring_default_buf is
 * NULL. Called under tring_config_lock. Return: the set replaced.
 */
static struct tring_ctx_set *tring_default_publish(struct tring_buffer *buf,
						   struct tring_ctx_set *set)
{
	struct tring_ctx_set *old;

	old = rcu_dereference_protected(tring_ctx_cur,
					lockdep_is_held(&tring_config_lock));
	if (set) {
		/* Pairs with rcu_dereference_sched() in tring_ctx_buffer(). */
		rcu_assign_pointer(set->buf, buf);
		RCU_INIT_POINTER(tring_default_buf, NULL);
		/* Pairs with rcu_dereference_sched() in tring_ctx_reserve(). */
		rcu_assign_pointer(tring_ctx_cur, set);
	} else {
		RCU_INIT_POINTER(tring_ctx_cur, NULL);
		/* Pairs with rcu_dereference_sched() in the writers. */
		rcu_assign_pointer(tring_default_buf, buf);
	}
	return old;
}

/*
 * Rebuild the default buffer with @attr and the contexts @set (it takes
 * the set, which the caller frees on error). Called under
 * tring_config_lock.
 */
static int tring_default_rebuild(const struct tring_buffer_attr *attr,
				 struct tring_ctx_set *set)
{
	struct tring_buffer *buf, *old;
	struct tring_ctx_set *old_set;

	if (tring_persist_active())
		return -EPERM;	/* its shape is the persistent region's */
	if (tring_instance_busy(tring_default_inst))
		return -EBUSY;
	buf = tring_buffer_alloc(attr);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	old = tring_instance_replace(tring_default_inst, buf);
	if (IS_ERR(old)) {
		tring_buffer_free(buf);
		return PTR_ERR(old);
	}
	old_set = tring_default_publish(buf, set);
	/* Waits for writers that still see the old buffer, or set. */
	tring_buffer_free(old);
	if (old_set != set)
		tring_ctx_set_free(old_set);
	return 0;
}

/* Rebuild the default buffer with @attr, keeping its contexts. */
static int tring_default_reconfigure(const struct tring_buffer_attr *attr)
{
	return tring_default_rebuild(attr, rcu_dereference_protected(tring_ctx_cur,
				     lockdep_is_held(&tring_config_lock)));
}

/**
 * tring_default_set_context - give the default buffer's events contexts
 * @set: the contexts, or NULL for none; taken on success.
 *
 * Makes a new default buffer, of the same shape, empty.
 *
 * Return: 0, -EBUSY while the buffer is read, -EPERM in a persistent
 * region, or an allocation's error.
 */
int tring_default_set_context(struct tring_ctx_set *set)
{
	int ret;

	mutex_lock(&tring_config_lock);
	ret = tring_default_rebuild(tring_default_attr(), set);
	mutex_unlock(&tring_config_lock);
	return ret;
}

enum tring_knob {
	TRING_KNOB_SIZE_KB,
	TRING_KNOB_SUBBUF_KB,
	TRING_KNOB_OVERWRITE,
	TRING_KNOB_CLOCK,
};

static const char *const tring_clock_names[] = {
	[TRING_CLOCK_MONO] = "mono",
	[TRING_CLOCK_LOCAL] = "local",
};

static int tring_knob_show(enum tring_knob knob, char *s, size_t n)
{
	const struct tring_buffer_attr *a = tring_default_attr();

	switch (knob) {
	case TRING_KNOB_SIZE_KB:
		return scnprintf(s, n, "%zu\n", a->subbuf_size * a->subbuf_count / 1024);
	case TRING_KNOB_SUBBUF_KB:
		return scnprintf(s, n, "%zu\n", a->subbuf_size / 1024);
	case TRING_KNOB_OVERWRITE:
		return scnprintf(s, n, "%u\n", !!(a->flags & TRING_OVERWRITE));
	case TRING_KNOB_CLOCK:
		return scnprintf(s, n, a->clock == TRING_CLOCK_MONO ?
				 "[mono] local\n" : "mono [local]\n");
	}
	return 0;
}

/* Fill @a from the text written to @knob. */
static int tring_knob_parse(enum tring_knob knob, const char *s,
			    struct tring_buffer_attr *a)
{
	size_t bytes = a->subbuf_size * a->subbuf_count;
	unsigned long v;
	int ret;

	if (knob == TRING_KNOB_CLOCK) {
		ret = match_string(tring_clock_names,
				   ARRAY_SIZE(tring_clock_names), s);
		if (ret < 0)
			return ret;
		a->clock = ret;
		return 0;
	}
	ret = kstrtoul(s, 0, &v);
	if (ret)
		return ret;
	switch (knob) {
	case TRING_KNOB_SIZE_KB:
		if (!v || v > SZ_4M)
			return -EINVAL;
		v = DIV_ROUND_UP(v * 1024, a->subbuf_size);
		a->subbuf_count = max(2UL, roundup_pow_of_two(v));
		break;
	case TRING_KNOB_SUBBUF_KB:
		if (!v || v > SZ_16K || !is_power_of_2(v))
			return -EINVAL;
		a->subbuf_size = v * 1024;
		a->subbuf_count = max_t(size_t, 2, bytes / a->subbuf_size);
		break;
	case TRING_KNOB_OVERWRITE:
		if (v > 1)
			return -EINVAL;
		a->flags = v ? TRING_OVERWRITE : 0;
		break;
	default:
		return -EINVAL;
	}
	/* The watermark defaults to an eighth of the new ring. */
	a->watermark = 0;
	return 0;
}

static ssize_t tring_knob_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	enum tring_knob knob = (uintptr_t)file->private_data;
	char s[32];
	int n;

	mutex_lock(&tring_config_lock);
	n = tring_knob_show(knob, s, sizeof(s));
	mutex_unlock(&tring_config_lock);
	return simple_read_from_buffer(ubuf, count, ppos, s, n);
}

static ssize_t tring_knob_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	enum tring_knob knob = (uintptr_t)file->private_data;
	struct tring_buffer_attr attr;
	char s[32];
	int ret;

	if (*ppos)
		return -EINVAL;
	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	mutex_lock(&tring_config_lock);
	attr = *tring_default_attr();
	ret = tring_knob_parse(knob, strim(s), &attr);
	if (!ret)
		ret = tring_default_reconfigure(&attr);
	mutex_unlock(&tring_config_lock);
	return ret ? ret : count;
}

static const struct file_operations tring_knob_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_knob_read,
	.write	= tring_knob_write,
	.llseek	= default_llseek,
};

static int tring_add_knobs(void)
{
	static const char *const names[] = {
		[TRING_KNOB_SIZE_KB] = "buffer_size_kb",
		[TRING_KNOB_SUBBUF_KB] = "buffer_subbuf_size_kb",
		[TRING_KNOB_OVERWRITE] = "overwrite",
		[TRING_KNOB_CLOCK] = "trace_clock",
	};
	struct dentry *f;
	uintptr_t knob;

	for (knob = 0; knob < ARRAY_SIZE(names); knob++) {
		f = debugfs_create_file(names[knob], 0600, tring_root,
					(void *)knob, &tring_knob_fops);
		if (IS_ERR(f))
			return PTR_ERR(f);
	}
	return 0;
}

/*
 * The default buffer, as the module parameters describe it; with
 * persist=, in the persistent region, the previous boot's trace read
 * from there first.
 */
static struct tring_buffer *__init tring_default_alloc(void)
{
	struct tring_buffer_attr attr = {
		.name = "",
		.subbuf_size = subbuf_size,
		.subbuf_count = subbuf_count,
		.flags = overwrite ? TRING_OVERWRITE : 0,
		.clock = TRING_CLOCK_MONO,
		.events = tring_builtin_events,
		.nr_events = tring_nr_builtin_events,
	};
	struct tring_ring_mem *mem;
	struct tring_buffer *buf;
	int ret;

	ret = tring_persist_init(&attr, &mem);
	if (ret)
		return ERR_PTR(ret);
	buf = tring_buffer_alloc_in(&attr, mem);
	if (IS_ERR(buf)) {
		tring_persist_exit();
		tring_persist_unmap();
	}
	return buf;
}

/*
 * The files under the root once the default instance is up: knobs,
 * events, statedump. Each step undoes itself on failure; a later
 * failure undoes the earlier steps that outlive the root's removal.
 */
static int __init tring_files_init(void)
{
	int ret;

	/* Only now: a knob write rebuilds the default instance's buffer. */
	ret = tring_add_knobs();
	if (ret)
		return ret;
	ret = tring_events_init(tring_root);
	if (ret)
		return ret;
	ret = tring_track_init(tring_root);
	if (ret)
		goto exit_events;
	ret = tring_statedump_init(tring_root);
	if (ret)
		goto exit_track;
	/* Dynamic probes make generic events: after tring_events_init(). */
	ret = tring_probe_init(tring_root);
	if (ret)
		goto exit_track;
	/* The function event is a generic event too. */
	ret = tring_func_init(tring_root);
	if (ret)
		goto exit_probe;
	/* Last: nothing after it to fail, with a set in force. */
	ret = tring_ctx_init(tring_root);
	if (ret)
		goto exit_func;
	return 0;

exit_func:
	tring_func_exit();
exit_probe:
	tring_probe_exit();
exit_track:
	/* Its files were live: a set may be in force. */
	tring_track_exit();
exit_events:
	/* Its enable files were live: events may be enabled already. */
	tring_events_exit();
	return ret;
}

static int __init tring_init(void)
{
	struct tring_buffer *buf;
	int ret;

	/* Fills the event table, which the default buffer describes. */
	ret = tring_events_prepare();
	if (ret)
		return ret;
	ret = tring_core_init();
	if (ret)
		return ret;
	buf = tring_default_alloc();
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto exit_core;
	}

	tring_root = debugfs_create_dir("tring", NULL);
	if (IS_ERR(tring_root)) {
		ret = PTR_ERR(tring_root);
		goto free_buffer;
	}
	ret = tring_instances_init(tring_root);
	if (ret)
		goto remove_root;
	tring_default_inst = tring_instance_new(tring_root, buf);
	if (IS_ERR(tring_default_inst)) {
		ret = PTR_ERR(tring_default_inst);
		goto remove_root;
	}
	rcu_assign_pointer(tring_default_buf, buf);
	tring_persist_start(buf);
	ret = tring_files_init();
	if (ret)
		goto kill_default;
	return 0;

kill_default:
	RCU_INIT_POINTER(tring_default_buf, NULL);
	tring_persist_exit();
	/* Removes the root, and everything in it, too. */
	tring_instance_kill(tring_default_inst);
	tring_filter_file_exit();
	goto unmap;
remove_root:
	debugfs_remove(tring_root);
free_buffer:
	tring_buffer_free(buf);
unmap:
	tring_persist_exit();
	tring_persist_unmap();
exit_core:
	tring_core_exit();
	return ret;
}

static void __exit tring_exit(void)
{
	/* The function event's ftrace_ops is unregistered once this returns. */
	tring_func_exit();
	/* No dynamic probe is left, its handlers done, once this returns. */
	tring_probe_exit();
	/* No probe runs once this returns. */
	tring_events_exit();
	/* Then no event checks the tracking set: it can go. */
	tring_track_exit();
	RCU_INIT_POINTER(tring_default_buf, NULL);
	/* Its writers are gone too: the context set can go. */
	tring_ctx_exit();
	/* No event gets an id any more: the region's metadata is final. */
	tring_persist_exit();
	/*
	 * Instances of other modules cannot be left: those modules use our
	 * symbols, so they were unloaded first. Removing the default
	 * instance's directory, the root, removes everything.
	 */
	tring_instance_kill(tring_default_inst);
	/* The default buffer is freed: its region can go. */
	tring_persist_unmap();
	/* The replaced filters' callbacks, before the module goes. */
	tring_filter_file_exit();
	tring_core_exit();
}

module_init(tring_init);
module_exit(tring_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: per-CPU lockless trace ring buffer");
