// SPDX-License-Identifier: GPL-2.0
/*
 * tring: instances, a buffer with its debugfs files (tring_fs.c), from
 * creation to the last reader's close; and the kernel API for buffers
 * that other kernel code creates, which lives under instances/<name>/.
 *
 * An instance holds one reference for its files and one per open
 * stream. Destroying it (tring_buffer_destroy()) waits for the writers
 * still running, flushes every ring so its readers can take everything,
 * marks it dead, wakes its pollers and removes its files; the last
 * reference frees the buffer. A named instance keeps its name in the
 * registry until its directory is gone, so a create of the same name
 * fails with EEXIST meanwhile instead of finding the old directory.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tring_events.h"
#include "tring_instance.h"

static struct dentry *tring_instances_dir;
/* The registry: named instances, from creation until their files are gone. */
static DEFINE_MUTEX(tring_instances_lock);
static LIST_HEAD(tring_instances);

static void tring_instance_release(struct kref *ref)
{
	struct tring_instance *inst = container_of(ref, struct tring_instance,
						   ref);

	if (inst->buf)
		tring_buffer_free(inst->buf);
	kfree(inst->streams);
	kfree(inst);
}

void tring_instance_get(struct tring_instance *inst)
{
	kref_get(&inst->ref);
}

void tring_instance_put(struct tring_instance *inst)
{
	kref_put(&inst->ref, tring_instance_release);
}

/**
 * tring_instance_new - put a buffer's files under a debugfs directory
 * @dir: the directory (created by the caller).
 * @buf: the buffer; the instance owns it from now on.
 *
 * Return: the instance holding one reference, or an ERR_PTR(); on error
 * @buf is not freed and no file is left in @dir.
 */
struct tring_instance *tring_instance_new(struct dentry *dir,
					  struct tring_buffer *buf)
{
	struct tring_instance *inst;
	unsigned int cpu;
	int ret = -ENOMEM;

	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst)
		return ERR_PTR(-ENOMEM);
	inst->streams = kcalloc(nr_cpu_ids, sizeof(*inst->streams),
				GFP_KERNEL);
	if (!inst->streams)
		goto free_inst;
	kref_init(&inst->ref);
	mutex_init(&inst->lock);
	INIT_LIST_HEAD(&inst->node);
	inst->dir = dir;
	inst->buf = buf;
	for_each_possible_cpu(cpu) {
		struct tring_stream *st = &inst->streams[cpu];

		st->inst = inst;
		st->cpu = cpu;
		mutex_init(&st->lock);
		mutex_init(&st->ioctl_lock);
	}
	ret = tring_fs_add_files(inst);
	if (ret)
		goto free_streams;
	buf->priv = inst;
	return inst;

free_streams:
	kfree(inst->streams);
free_inst:
	kfree(inst);
	return ERR_PTR(ret);
}

/**
 * tring_instance_replace - swap in a new buffer while no stream is open
 * @inst: the instance.
 * @buf: the new buffer.
 *
 * Return: the old buffer (the caller frees it once writers cannot see it
 * any more), or ERR_PTR(-EBUSY) when a stream is open or mapped.
 */
struct tring_buffer *tring_instance_replace(struct tring_instance *inst,
					    struct tring_buffer *buf)
{
	struct tring_buffer *old = ERR_PTR(-EBUSY);

	mutex_lock(&inst->lock);
	if (!inst->open_streams) {
		old = inst->buf;
		inst->buf = buf;
		buf->priv = inst;
	}
	mutex_unlock(&inst->lock);
	return old;
}

/**
 * tring_instance_busy - is a stream of the instance open or mapped?
 * @inst: the instance.
 *
 * Return: true if so.
 */
bool tring_instance_busy(struct tring_instance *inst)
{
	bool busy;

	mutex_lock(&inst->lock);
	busy = inst->open_streams;
	mutex_unlock(&inst->lock);
	return busy;
}

/*
 * Close every ring's partly filled sub-buffer. No writer is left (see
 * tring_buffer_destroy()), so each is delivered before this returns.
 * Under the stream's lock: a reader's TRING_IOC_FLUSH may run meanwhile.
 */
static void tring_instance_flush(struct tring_instance *inst)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct tring_stream *st = &inst->streams[cpu];
		struct tring_cpu *cb = tring_buffer_cpu(inst->buf, cpu);

		if (!cb)
			continue;
		mutex_lock(&st->lock);
		tring_cpu_flush(cb);
		mutex_unlock(&st->lock);
	}
}

/*
 * Mark @inst dead, wake its pollers and remove its files, keeping the
 * files' reference: the readers that have a stream open take what is
 * left, then get a hang-up.
 */
static void tring_instance_end(struct tring_instance *inst)
{
	unsigned int cpu;

	mutex_lock(&inst->lock);
	/*
	 * Pairs with smp_load_acquire() in tring_stream_poll(): a poller
	 * that sees the instance dead sees the deliveries of the flush
	 * before (tring_buffer_destroy()).
	 */
	smp_store_release(&inst->dead, true);
	mutex_unlock(&inst->lock);
	for_each_possible_cpu(cpu) {
		struct tring_cpu *cb = tring_buffer_cpu(inst->buf, cpu);

		/* No ring, so no stream open on it and no poller. */
		if (cb)
			wake_up_all(&cb->waitq);
	}
	debugfs_remove(inst->dir);
}

/**
 * tring_instance_kill - remove the default instance at module unload
 * @inst: the instance; nothing writes to its buffer any more.
 *
 * No stream can be open (an open stream keeps the module), so nothing is
 * flushed: its files go and the last reference frees the buffer.
 *
 * Context: process; may sleep.
 */
void tring_instance_kill(struct tring_instance *inst)
{
	tring_instance_end(inst);
	tring_instance_put(inst);
}

/**
 * tring_instances_init - create the instances/ directory
 * @root: tring's debugfs directory.
 *
 * Return: 0 or -errno.
 */
int tring_instances_init(struct dentry *root)
{
	tring_instances_dir = debugfs_create_dir("instances", root);
	return PTR_ERR_OR_ZERO(tring_instances_dir);
}

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

/* Called with tring_instances_lock held. */
static bool tring_name_taken(const char *name)
{
	struct tring_instance *inst;

	list_for_each_entry(inst, &tring_instances, node)
		if (!strcmp(inst->buf->name, name))
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
 * descriptions; -EEXIST if the name is taken (also while a buffer of
 * that name is being destroyed); -ENOMEM; the error of debugfs.
 */
struct tring_buffer *tring_buffer_create(const struct tring_buffer_attr *attr)
{
	struct tring_instance *inst;
	struct tring_buffer *buf;
	struct dentry *dir;
	int ret = -EEXIST;

	if (!tring_name_valid(attr->name) || tring_check_events(attr))
		return ERR_PTR(-EINVAL);
	mutex_lock(&tring_instances_lock);
	if (tring_name_taken(attr->name))
		goto unlock;
	buf = tring_buffer_alloc(attr);
	ret = PTR_ERR(buf);
	if (IS_ERR(buf))
		goto unlock;
	dir = debugfs_create_dir(attr->name, tring_instances_dir);
	ret = PTR_ERR(dir);
	if (IS_ERR(dir))
		goto free_buffer;
	inst = tring_instance_new(dir, buf);
	ret = PTR_ERR(inst);
	if (IS_ERR(inst))
		goto remove_dir;
	list_add(&inst->node, &tring_instances);
	mutex_unlock(&tring_instances_lock);
	return buf;

remove_dir:
	debugfs_remove(dir);
free_buffer:
	tring_buffer_free(buf);
unlock:
	mutex_unlock(&tring_instances_lock);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(tring_buffer_create);

/**
 * tring_buffer_destroy - remove a buffer made by tring_buffer_create()
 * @buf: the buffer; the caller has stopped starting new writes on it.
 *
 * Waits for the writes still running, flushes every CPU's partly filled
 * sub-buffer, then removes the files. Readers that have a stream open
 * keep reading what is left: poll() reports POLLIN while a complete
 * sub-buffer is left, then POLLHUP. The memory is freed when the last of
 * them closes. The name is free again when this returns.
 *
 * Context: process; may sleep.
 */
void tring_buffer_destroy(struct tring_buffer *buf)
{
	struct tring_instance *inst = buf->priv;

	/*
	 * The owner starts no new write; those still running have
	 * preemption disabled, so they are done after a grace period.
	 */
	synchronize_rcu();
	tring_instance_flush(inst);
	tring_instance_end(inst);
	mutex_lock(&tring_instances_lock);
	list_del(&inst->node);
	mutex_unlock(&tring_instances_lock);
	tring_instance_put(inst);
}
EXPORT_SYMBOL_GPL(tring_buffer_destroy);
