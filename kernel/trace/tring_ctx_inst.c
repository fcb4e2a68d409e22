// SPDX-License-Identifier: GPL-2.0
/*
 * tring: an instance's context file, instances/<name>/context.
 *
 * An instance's writers are its owner's inline code (tring_reserve()
 * compiled into another module), which knows nothing of contexts. While
 * the instance's buffer has a set (struct tring_buffer.ctx), the fast
 * path's cache is never filled for it, so every reservation goes out of
 * line, to tring_reserve_slow_v4(), which writes the contexts after the
 * header and returns their size with the header's to the inline code.
 *
 * A change of the list takes effect at a sub-buffer boundary of every
 * CPU, and the records before it are left behind: the set is published,
 * a grace period lets every writer that read the old one finish, then
 * each CPU's partly filled sub-buffer is closed (an IPI, the flush of
 * tring_cpu_flush()) and the instance's stream for that CPU starts after
 * it (struct tring_stream.skip_seq). Records written in between, with
 * either layout, are all before the cut. Refused with EBUSY while a
 * stream of the instance is open, so no reader holds a packet of the old
 * layout under metadata that describes the new one.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tring.h>

#include "tring_ctx.h"
#include "tring_instance.h"

/* What an open context file keeps: its instance, and an O_TRUNC open. */
struct tring_ctx_inst_file {
	struct tring_instance *inst;
	bool empty_at_close;
};

/* Close @cpu's partly filled sub-buffer; its stream starts after it. */
static void tring_ctx_inst_cut(struct tring_instance *inst, unsigned int cpu)
{
	struct tring_stream *st = &inst->streams[cpu];
	struct tring_cpu *cb = tring_buffer_cpu(inst->buf, cpu);
	unsigned long pos;

	/* No ring yet: the one made when the CPU comes online is empty. */
	if (!cb)
		return;
	mutex_lock(&st->lock);
	pos = tring_cpu_flush(cb);
	st->skip_seq = pos >> cb->subbuf_shift;
	mutex_unlock(&st->lock);
}

/*
 * Make @set (NULL: none) @inst's contexts. Return: 0 (the old set freed),
 * -EBUSY while a stream is open, -ENODEV once the instance is destroyed;
 * on error nothing changed and @set is the caller's.
 */
static int tring_ctx_inst_set(struct tring_instance *inst,
			      struct tring_ctx_set *set)
{
	struct tring_ctx_set *old;
	struct tring_buffer *buf;
	unsigned int cpu;

	mutex_lock(&inst->lock);
	if (inst->open_streams || READ_ONCE(inst->dead)) {
		mutex_unlock(&inst->lock);
		return inst->open_streams ? -EBUSY : -ENODEV;
	}
	buf = inst->buf;
	old = rcu_dereference_protected(buf->ctx, lockdep_is_held(&inst->lock));
	/*
	 * Pairs with rcu_dereference_sched() in tring_reserve_slow_v4(): a
	 * writer that finds the set finds it made.
	 */
	rcu_assign_pointer(buf->ctx, set);
	/* Every writer that read the old set (preemption off) is done. */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		tring_ctx_inst_cut(inst, cpu);
	mutex_unlock(&inst->lock);
	tring_ctx_set_free(old);
	return 0;
}

/**
 * tring_ctx_inst_free - free a destroyed instance's contexts
 * @buf: its buffer, which no writer uses any more.
 */
void tring_ctx_inst_free(struct tring_buffer *buf)
{
	tring_ctx_set_free(rcu_dereference_protected(buf->ctx, 1));
	RCU_INIT_POINTER(buf->ctx, NULL);
}

static int tring_ctx_inst_show(struct seq_file *m, void *unused)
{
	struct tring_ctx_inst_file *f = m->private;
	struct tring_instance *inst = f->inst;
	const struct tring_ctx_set *set;

	mutex_lock(&inst->lock);
	set = rcu_dereference_protected(inst->buf->ctx,
					lockdep_is_held(&inst->lock));
	tring_ctx_set_show(m, set);
	mutex_unlock(&inst->lock);
	return 0;
}

static int tring_ctx_inst_open(struct inode *inode, struct file *file)
{
	struct tring_ctx_inst_file *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->inst = inode->i_private;
	/* ": >context", an open for writing with O_TRUNC and no write. */
	f->empty_at_close = (file->f_mode & FMODE_WRITE) &&
			    (file->f_flags & O_TRUNC);
	ret = single_open(file, tring_ctx_inst_show, f);
	if (ret)
		kfree(f);
	return ret;
}

/*
 * debugfs does not keep a release from racing with the file's removal:
 * the instance is used only while the file is still there.
 */
static int tring_ctx_inst_release(struct inode *inode, struct file *file)
{
	struct tring_ctx_inst_file *f =
		((struct seq_file *)file->private_data)->private;
	struct dentry *dentry = file->f_path.dentry;
	int ret;

	if (f->empty_at_close && !debugfs_file_get(dentry)) {
		ret = tring_ctx_inst_set(f->inst, NULL);
		if (ret)
			pr_warn("tring: %s: context not emptied: %d\n",
				f->inst->buf->name, ret);
		debugfs_file_put(dentry);
	}
	kfree(f);
	return single_release(inode, file);
}

/* A new list: EBUSY while read, EINVAL for a bad one; nothing changed then. */
static ssize_t tring_ctx_inst_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct tring_ctx_inst_file *f =
		((struct seq_file *)file->private_data)->private;
	struct tring_ctx_set *set;
	int ret;

	f->empty_at_close = false;
	if (*ppos)
		return -EINVAL;
	set = tring_ctx_set_from_user(ubuf, count);
	if (IS_ERR(set))
		return PTR_ERR(set);
	ret = tring_ctx_inst_set(f->inst, set);
	if (ret)
		tring_ctx_set_free(set);
	return ret ? ret : count;
}

static const struct file_operations tring_ctx_inst_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_ctx_inst_open,
	.read		= seq_read,
	.write		= tring_ctx_inst_write,
	.llseek		= seq_lseek,
	.release	= tring_ctx_inst_release,
};

/**
 * tring_ctx_inst_add - create an instance's context file
 * @inst: a live instance (made by tring_buffer_create()).
 *
 * Return: 0 or -errno; the file goes with the instance's directory.
 */
int tring_ctx_inst_add(struct tring_instance *inst)
{
	struct dentry *f;

	f = debugfs_create_file("context", 0600, inst->dir, inst,
				&tring_ctx_inst_fops);
	return PTR_ERR_OR_ZERO(f);
}
