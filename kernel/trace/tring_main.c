// SPDX-License-Identifier: GPL-2.0
/*
 * tring: module setup, the default buffer and its knobs, and the kernel
 * API for buffers that other kernel code creates (debugfs instances/).
 *
 * /sys/kernel/debug/tring/
 *   buffer_size_kb          per-CPU ring size of the default buffer
 *   buffer_subbuf_size_kb   its sub-buffer size
 *   overwrite               1: flight recorder, 0: drop new events when full
 *   trace_clock             [mono] local
 *   per_cpu/cpuN/stream     the default buffer's streams (tring_fs.c)
 *   instances/<name>/       buffers created with tring_buffer_create()
 *
 * The knobs rebuild the default buffer; they fail with EBUSY while one
 * of its streams is open or mapped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_cmd.h"
#include "tring_events.h"
#include "tring_fs.h"

static unsigned long subbuf_size = SZ_64K;
module_param(subbuf_size, ulong, 0444);
MODULE_PARM_DESC(subbuf_size, "default buffer: bytes per sub-buffer (power of two)");

static unsigned int subbuf_count = 16;
module_param(subbuf_count, uint, 0444);
MODULE_PARM_DESC(subbuf_count, "default buffer: sub-buffers per CPU (power of two)");

static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "default buffer: overwrite the oldest data when full");

static struct dentry *tring_root;
static struct dentry *tring_instances_dir;

/* Guards the default buffer's attributes and the instance list. */
static DEFINE_MUTEX(tring_config_lock);
static struct tring_buffer_attr tring_default_attr;
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

/* Rebuild the default buffer with @attr. Called under tring_config_lock. */
static int tring_default_reconfigure(const struct tring_buffer_attr *attr)
{
	struct tring_buffer *buf, *old;

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
	rcu_assign_pointer(tring_default_buf, buf);
	tring_default_attr = *attr;
	/* Waits for writers that still see the old buffer. */
	tring_buffer_free(old);
	return 0;
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
	const struct tring_buffer_attr *a = &tring_default_attr;

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
	/* The watermark defaults to half of the new ring. */
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
	attr = tring_default_attr;
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

static void tring_add_knob(const char *name, enum tring_knob knob)
{
	debugfs_create_file(name, 0600, tring_root, (void *)(uintptr_t)knob,
			    &tring_knob_fops);
}

/* Instances created through the kernel API. */
static LIST_HEAD(tring_instances);

struct tring_named {
	struct list_head node;
	struct tring_buffer *buf;
};

/* A directory name and a CTF string: letters, digits, '_', '-', '.'. */
static bool tring_name_valid(const char *name)
{
	const char *p;

	if (!name || !*name || strlen(name) >= sizeof_field(struct tring_buffer, name) ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && !strchr("_-.", *p))
			return false;
	return true;
}

/* The events an instance declares: valid and with distinct ids. */
static int tring_check_events(const struct tring_buffer_attr *attr)
{
	unsigned int i, j;

	for (i = 0; i < attr->nr_events; i++) {
		if (tring_event_desc_check(&attr->events[i]))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (attr->events[j].id == attr->events[i].id)
				return -EINVAL;
	}
	return 0;
}

static bool tring_name_taken(const char *name)
{
	struct tring_named *n;

	list_for_each_entry(n, &tring_instances, node)
		if (!strcmp(n->buf->name, name))
			return true;
	return false;
}

/**
 * tring_buffer_create - create a buffer and publish it under instances/
 * @attr: its attributes; @attr->name names the debugfs directory.
 *
 * The buffer gets a ring on every possible CPU and stream files in
 * /sys/kernel/debug/tring/instances/<name>/per_cpu/cpuN/.
 *
 * Context: process; may sleep.
 * Return: the buffer, or an ERR_PTR(): -EINVAL for bad attributes, a name
 * not made of letters, digits, '_', '-' and '.', or bad event
 * descriptions; -EEXIST if the name is taken, -ENOMEM.
 */
struct tring_buffer *tring_buffer_create(const struct tring_buffer_attr *attr)
{
	struct tring_instance *inst;
	struct tring_buffer *buf;
	struct tring_named *n;
	struct dentry *dir;
	int ret = -EEXIST;

	if (!tring_name_valid(attr->name) || tring_check_events(attr))
		return ERR_PTR(-EINVAL);
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&tring_config_lock);
	if (tring_name_taken(attr->name))
		goto free_entry;
	buf = tring_buffer_alloc(attr);
	ret = PTR_ERR(buf);
	if (IS_ERR(buf))
		goto free_entry;
	dir = debugfs_create_dir(attr->name, tring_instances_dir);
	inst = tring_instance_new(dir, buf);
	ret = PTR_ERR(inst);
	if (IS_ERR(inst))
		goto free_buffer;
	n->buf = buf;
	list_add(&n->node, &tring_instances);
	mutex_unlock(&tring_config_lock);
	return buf;

free_buffer:
	debugfs_remove(dir);
	tring_buffer_free(buf);
free_entry:
	mutex_unlock(&tring_config_lock);
	kfree(n);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(tring_buffer_create);

/**
 * tring_buffer_destroy - remove a buffer made by tring_buffer_create()
 * @buf: the buffer; the caller has stopped starting new writes on it.
 *
 * Its files go away at once. Writers still running on it finish safely;
 * readers that have a stream open keep reading what is left, and the
 * memory is freed when the last of them closes.
 *
 * Context: process; may sleep.
 */
void tring_buffer_destroy(struct tring_buffer *buf)
{
	struct tring_named *n, *tmp;

	mutex_lock(&tring_config_lock);
	list_for_each_entry_safe(n, tmp, &tring_instances, node) {
		if (n->buf == buf) {
			list_del(&n->node);
			kfree(n);
		}
	}
	mutex_unlock(&tring_config_lock);
	tring_instance_kill(buf->priv);
}
EXPORT_SYMBOL_GPL(tring_buffer_destroy);

static int __init tring_init(void)
{
	struct tring_buffer *buf;
	int ret;

	ret = tring_events_prepare();
	if (ret)
		return ret;
	tring_default_attr = (struct tring_buffer_attr) {
		.name = "",
		.subbuf_size = subbuf_size,
		.subbuf_count = subbuf_count,
		.flags = overwrite ? TRING_OVERWRITE : 0,
		.clock = TRING_CLOCK_MONO,
		.events = tring_builtin_events,
		.nr_events = tring_nr_builtin_events,
	};
	buf = tring_buffer_alloc(&tring_default_attr);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	tring_root = debugfs_create_dir("tring", NULL);
	if (IS_ERR(tring_root)) {
		ret = PTR_ERR(tring_root);
		goto free_buffer;
	}
	tring_instances_dir = debugfs_create_dir("instances", tring_root);
	tring_default_inst = tring_instance_new(tring_root, buf);
	if (IS_ERR(tring_default_inst)) {
		ret = PTR_ERR(tring_default_inst);
		goto remove_root;
	}
	rcu_assign_pointer(tring_default_buf, buf);
	/* Only now: a knob write rebuilds the default instance's buffer. */
	tring_add_knob("buffer_size_kb", TRING_KNOB_SIZE_KB);
	tring_add_knob("buffer_subbuf_size_kb", TRING_KNOB_SUBBUF_KB);
	tring_add_knob("overwrite", TRING_KNOB_OVERWRITE);
	tring_add_knob("trace_clock", TRING_KNOB_CLOCK);
	ret = tring_events_init(tring_root);
	if (ret)
		goto kill_default;
	return 0;

kill_default:
	RCU_INIT_POINTER(tring_default_buf, NULL);
	tring_instance_kill(tring_default_inst);
	return ret;
remove_root:
	debugfs_remove(tring_root);
free_buffer:
	tring_buffer_free(buf);
	return ret;
}

static void __exit tring_exit(void)
{
	/* No probe runs once this returns. */
	tring_events_exit();
	RCU_INIT_POINTER(tring_default_buf, NULL);
	/*
	 * Instances of other modules cannot be left: those modules use our
	 * symbols, so they were unloaded first. Removing the default
	 * instance's directory, the root, removes everything.
	 */
	tring_instance_kill(tring_default_inst);
}

module_init(tring_init);
module_exit(tring_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: per-CPU lockless trace ring buffer");
