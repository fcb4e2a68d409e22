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

	if (inst->buf) {
		tring_ctx_inst_free(inst->buf);
		tring_buffer_free(inst->buf);
	}
	kvfree(inst->meta);
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

/*
 * tring_instance_new(), with @meta (or NULL) for tring_instance_add(): a
 * frozen instance whose metadata file shows @meta, which it then owns.
 */
static struct tring_instance *tring_instance_make(struct dentry *dir,
						  struct tring_buffer *buf,
						  char *meta, size_t meta_len)
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
	inst->meta = meta;
	inst->meta_len = meta_len;
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
	return tring_instance_make(dir, buf, NULL, 0);
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

/*
 * Publish @buf under instances/<its name>, frozen with @meta if that is
 * not NULL. Called with tring_instances_lock held, the name free. On
 * error @buf is not freed (nor @meta).
 */
static struct tring_instance *tring_instance_publish(struct tring_buffer *buf,
						     char *meta, size_t meta_len)
{
	struct tring_instance *inst;
	struct dentry *dir;
	int ret;

	dir = debugfs_create_dir(buf->name, tring_instances_dir);
	if (IS_ERR(dir))
		return ERR_CAST(dir);
	inst = tring_instance_make(dir, buf, meta, meta_len);
	if (IS_ERR(inst)) {
		debugfs_remove(dir);
		return inst;
	}
	/* A live instance's events may carry contexts; a frozen one's not. */
	ret = meta ? 0 : tring_ctx_inst_add(inst);
	if (ret) {
		debugfs_remove(dir);
		/* The buffer stays the caller's. */
		buf->priv = NULL;
		inst->buf = NULL;
		tring_instance_put(inst);
		return ERR_PTR(ret);
	}
	list_add(&inst->node, &tring_instances);
	return inst;
}

/**
 * tring_instance_add - publish a frozen buffer under instances/
 * @buf: the buffer (its name names the directory); nothing writes to it.
 * @meta: the metadata text its metadata file shows; the instance owns it
 *	(kvfree()) once this succeeds.
 * @meta_len: bytes of @meta.
 *
 * Return: the instance, or an ERR_PTR(): -EEXIST if the name is taken,
 * the error of debugfs, -ENOMEM. On error @buf and @meta are the
 * caller's.
 */
struct tring_instance *tring_instance_add(struct tring_buffer *buf,
					  char *meta, size_t meta_len)
{
	struct tring_instance *inst = ERR_PTR(-EEXIST);

	mutex_lock(&tring_instances_lock);
	if (!tring_name_taken(buf->name))
		inst = tring_instance_publish(buf, meta, meta_len);
	mutex_unlock(&tring_instances_lock);
	return inst;
}

/**
 * tring_instance_remove - take a published instance down
 * @inst: from tring_buffer_create() or tring_instance_add(); its
 *	owner starts no new write.
 *
 * As tring_buffer_destroy().
 */
void tring_instance_remove(struct tring_instance *inst)
{
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
	inst = tring_instance_publish(buf, NULL, 0);
	ret = PTR_ERR(inst);
	if (IS_ERR(inst))
		goto free_buffer;
	mutex_unlock(&tring_instances_lock);
	return buf;

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
	tring_instance_remove(buf->priv);
}
EXPORT_SYMBOL_GPL(tring_buffer_destroy);
