// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the debugfs files of an instance (tring_instance.c): per-CPU
 * stream files that user space maps read-only and drives with ioctls and
 * poll(), per-CPU statistics, and the CTF metadata.
 *
 * Stream files are created with debugfs_create_file_unsafe(): debugfs
 * then proxies only open(), which it runs under debugfs_file_get() so the
 * file cannot be removed meanwhile, and leaves our other file operations
 * (.mmap among them) in place. open() takes a reference on the instance
 * under the instance's lock; from then on the open file keeps the
 * instance, its buffer and (through fops->owner) the module alive, and a
 * destroyed instance makes new opens fail.
 *
 * Locks, outermost first: a stream's ioctl_lock (held across the ioctl's
 * user copies), the instance's lock, a stream's lock (the ring's reader
 * side, never held across a user access). See struct tring_stream.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "tring_compat.h"
#include "tring_events.h"
#include "tring_instance.h"

static int tring_stream_open(struct inode *inode, struct file *file)
{
	struct tring_stream *st = inode->i_private;
	struct tring_instance *inst = st->inst;
	struct tring_subbuf *batch;
	int ret = 0;

	batch = kmalloc_array(TRING_GET_BATCH_MAX, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf) {
		ret = -ENODEV;
	} else if (!tring_buffer_cpu(inst->buf, st->cpu)) {
		/* Not online since the buffer was made: no ring yet. */
		ret = -ENXIO;
	} else if (st->open) {
		ret = -EBUSY;
	} else {
		st->open = true;
		st->batch = batch;
		inst->open_streams++;
		tring_instance_get(inst);
		file->private_data = st;
	}
	mutex_unlock(&inst->lock);
	if (ret) {
		kfree(batch);
		return ret;
	}
	return nonseekable_open(inode, file);
}

static int tring_stream_release(struct inode *inode, struct file *file)
{
	struct tring_stream *st = file->private_data;
	struct tring_instance *inst = st->inst;

	mutex_lock(&st->lock);
	tring_cpu_reader_reset(tring_stream_cpu(st));
	mutex_unlock(&st->lock);

	mutex_lock(&inst->lock);
	st->open = false;
	kfree(st->batch);
	st->batch = NULL;
	inst->open_streams--;
	mutex_unlock(&inst->lock);
	tring_instance_put(inst);
	return 0;
}

static int tring_stream_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tring_stream *st = file->private_data;
	struct tring_cpu *cb = tring_stream_cpu(st);
	unsigned long pages = tring_cpu_map_size(cb) >> PAGE_SHIFT;
	unsigned long len = vma_pages(vma);

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (vma->vm_pgoff >= pages || len > pages - vma->vm_pgoff)
		return -EINVAL;
	/* Never writable or executable, not even by a later mprotect(). */
	tring_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
			   VM_MAYWRITE | VM_MAYEXEC);
	if (!cb->pages)
		/* A ring in a persistent region: memory with no page to map. */
		return remap_pfn_range(vma, vma->vm_start,
				       cb->pfn + vma->vm_pgoff, len << PAGE_SHIFT,
				       vma->vm_page_prot);
	return vm_map_pages(vma, cb->pages, cb->nr_pages);
}

/*
 * Copy in an ioctl argument that starts with its own size: at least @ver0
 * bytes; bytes beyond @ksize must be zero. Returns the caller's size.
 */
static long tring_copy_in(void *karg, size_t ksize, size_t ver0,
			  void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0 || usize > PAGE_SIZE)
		return -EINVAL;
	/* Not "ret ?: usize": the u32 would make -E2BIG a large size. */
	ret = copy_struct_from_user(karg, ksize, uarg, usize);
	if (ret)
		return ret;
	return usize;
}

static long tring_copy_out(void __user *uarg, const void *karg, size_t ksize,
			   size_t usize)
{
	return copy_to_user(uarg, karg, min(ksize, usize)) ? -EFAULT : 0;
}

static long tring_ioc_info(struct tring_stream *st, void __user *uarg)
{
	struct tring_info info;
	struct tring_cpu *cb;
	long usize;

	usize = tring_copy_in(&info, sizeof(info), TRING_INFO_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	mutex_lock(&st->lock);
	cb = tring_stream_cpu(st);
	info.abi_version = TRING_ABI_VERSION;
	info.cpu = cb->cpu;
	info.flags = cb->overwrite ? TRING_INFO_OVERWRITE : 0;
	info.subbuf_size = cb->subbuf_size;
	info.subbuf_count = cb->slot_mask + 1;
	info.header_size = TRING_PACKET_HEADER_SIZE;
	info.map_size = tring_cpu_map_size(cb);
	info.clock = cb->clock;
	info.watermark = cb->watermark;
	mutex_unlock(&st->lock);
	return tring_copy_out(uarg, &info, sizeof(info), usize);
}

/*
 * Take the next complete sub-buffer into @sb, giving back unread those
 * from before the instance's last context change (@st->skip_seq: the
 * first taken after an open is the only one held then). Under @st->lock.
 */
static int tring_stream_get(struct tring_stream *st, struct tring_cpu *cb,
			    struct tring_subbuf *sb)
{
	int ret;

	for (;;) {
		ret = tring_cpu_get(cb, sb);
		if (ret || sb->seq >= st->skip_seq || cb->held != 1 ||
		    tring_cpu_put(cb, sb->seq, 1))
			return ret;
	}
}

/* Take up to @max sub-buffers into @st->batch; how many, or -errno. */
static long tring_stream_take(struct tring_stream *st, unsigned int max)
{
	struct tring_cpu *cb;
	unsigned int n;
	int ret = 0;

	mutex_lock(&st->lock);
	cb = tring_stream_cpu(st);
	for (n = 0; n < max; n++) {
		ret = tring_stream_get(st, cb, &st->batch[n]);
		if (ret)
			break;
	}
	mutex_unlock(&st->lock);
	if (!n)
		return ret;
	return n;
}

static void tring_stream_unget(struct tring_stream *st, unsigned int n)
{
	mutex_lock(&st->lock);
	tring_cpu_unget(tring_stream_cpu(st), n);
	mutex_unlock(&st->lock);
}

/*
 * The results are copied out after the stream's lock is dropped: a page
 * that faults in slowly (userfaultfd, FUSE) holds up only this reader,
 * whose other ioctls wait on @st->ioctl_lock. If they cannot be copied,
 * the sub-buffers go back as if never taken.
 */
static long tring_ioc_get(struct tring_stream *st,
			  struct tring_get __user *uarg)
{
	struct tring_get get;
	long n;

	n = tring_copy_in(&get, sizeof(get), TRING_GET_SIZE_VER0, uarg);
	if (n < 0)
		return n;
	if (get.flags || !get.max)
		return -EINVAL;
	n = tring_stream_take(st, min_t(u32, get.max, TRING_GET_BATCH_MAX));
	if (n < 0)
		return n;
	if (copy_to_user(u64_to_user_ptr(get.subbufs), st->batch,
			 n * sizeof(st->batch[0])) ||
	    put_user(n, &uarg->count)) {
		tring_stream_unget(st, n);
		return -EFAULT;
	}
	return 0;
}

static long tring_ioc_put(struct tring_stream *st, void __user *uarg)
{
	struct tring_put put;
	long ret;

	ret = tring_copy_in(&put, sizeof(put), TRING_PUT_SIZE_VER0, uarg);
	if (ret < 0)
		return ret;
	mutex_lock(&st->lock);
	ret = tring_cpu_put(tring_stream_cpu(st), put.seq, put.count);
	mutex_unlock(&st->lock);
	return ret;
}

static long tring_ioc_status(struct tring_stream *st, void __user *uarg)
{
	struct tring_status status;
	struct tring_counts c;
	long usize;

	usize = tring_copy_in(&status, sizeof(status), TRING_STATUS_SIZE_VER0,
			      uarg);
	if (usize < 0)
		return usize;
	mutex_lock(&st->lock);
	tring_cpu_counts(tring_stream_cpu(st), &c);
	mutex_unlock(&st->lock);
	status.flags = READ_ONCE(st->inst->dead) || st->inst->meta ?
		       TRING_STATUS_DEAD : 0;
	status.write_pos = c.write_pos;
	status.read_pos = c.read_pos;
	status.subbufs_delivered = c.subbufs_delivered;
	status.subbufs_ready = c.subbufs_ready;
	status.events_written = c.events_written;
	status.events_discarded = c.events_discarded;
	status.events_overwritten = c.events_overwritten;
	status.events_too_big = c.events_too_big;
	return tring_copy_out(uarg, &status, sizeof(status), usize);
}

static long tring_ioc_flush(struct tring_stream *st, void __user *uarg)
{
	struct tring_flush fl;
	long usize;

	usize = tring_copy_in(&fl, sizeof(fl), TRING_FLUSH_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (fl.flags & ~TRING_FLUSH_EMPTY)
		return -EINVAL;
	/* A frozen buffer (the last boot's) takes no packet of this boot. */
	if ((fl.flags & TRING_FLUSH_EMPTY) && st->inst->meta)
		return -EPERM;
	mutex_lock(&st->lock);
	fl.pos = tring_cpu_flush_ts(tring_stream_cpu(st),
				    fl.flags & TRING_FLUSH_EMPTY, &fl.timestamp);
	mutex_unlock(&st->lock);
	return tring_copy_out(uarg, &fl, sizeof(fl), usize);
}

static long tring_ioc_watermark(struct tring_stream *st, void __user *uarg)
{
	struct tring_watermark wm;
	struct tring_cpu *cb;
	long usize;

	usize = tring_copy_in(&wm, sizeof(wm), TRING_WATERMARK_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (!wm.watermark)
		return -EINVAL;
	mutex_lock(&st->lock);
	cb = tring_stream_cpu(st);
	tring_cpu_set_watermark(cb, wm.watermark);
	wm.watermark = cb->watermark;
	mutex_unlock(&st->lock);
	return tring_copy_out(uarg, &wm, sizeof(wm), usize);
}

/* The ABI's structures: their first published size, or the one after. */
static_assert(sizeof(struct tring_info) == TRING_INFO_SIZE_VER0);
static_assert(sizeof(struct tring_get) == TRING_GET_SIZE_VER0);
static_assert(sizeof(struct tring_put) == TRING_PUT_SIZE_VER0);
static_assert(sizeof(struct tring_status) == TRING_STATUS_SIZE_VER0);
static_assert(sizeof(struct tring_flush) == TRING_FLUSH_SIZE_VER1);
static_assert(sizeof(struct tring_watermark) == TRING_WATERMARK_SIZE_VER0);

/*
 * Each ioctl copies its argument in and its results out without the
 * stream's lock, which it takes only around its call into the core.
 */
static long tring_stream_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct tring_stream *st = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	mutex_lock(&st->ioctl_lock);
	switch (cmd) {
	case TRING_IOC_INFO:
		ret = tring_ioc_info(st, uarg);
		break;
	case TRING_IOC_GET:
		ret = tring_ioc_get(st, uarg);
		break;
	case TRING_IOC_PUT:
		ret = tring_ioc_put(st, uarg);
		break;
	case TRING_IOC_STATUS:
		ret = tring_ioc_status(st, uarg);
		break;
	case TRING_IOC_FLUSH:
		ret = tring_ioc_flush(st, uarg);
		break;
	case TRING_IOC_WATERMARK:
		ret = tring_ioc_watermark(st, uarg);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&st->ioctl_lock);
	return ret;
}

/*
 * Live: readable at the watermark (or after a flush). Destroyed: every
 * ring was flushed and no writer is left, so what is complete is all
 * there will be: readable while any of it is left, hung up after.
 */
static __poll_t tring_stream_poll(struct file *file, poll_table *wait)
{
	struct tring_stream *st = file->private_data;
	struct tring_cpu *cb = tring_stream_cpu(st);
	__poll_t mask = 0;

	poll_wait(file, &cb->waitq, wait);
	mutex_lock(&st->lock);
	/*
	 * Pairs with smp_store_release() in tring_instance_end(): seeing
	 * the instance dead, we see the deliveries of its final flush.
	 */
	if (smp_load_acquire(&st->inst->dead) || st->inst->meta)
		mask = tring_cpu_readable(cb) ? EPOLLIN | EPOLLRDNORM : EPOLLHUP;
	else if (tring_cpu_poll_ready(cb))
		mask = EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&st->lock);
	return mask;
}

static const struct file_operations tring_stream_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_stream_open,
	.release	= tring_stream_release,
	.mmap		= tring_stream_mmap,
	.unlocked_ioctl	= tring_stream_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.poll		= tring_stream_poll,
	.llseek		= noop_llseek,
};

/*
 * The instance's lock keeps its buffer from being replaced meanwhile;
 * the stream's lock is never held long (see struct tring_stream).
 */
static int tring_stats_show(struct seq_file *m, void *unused)
{
	struct tring_stream *st = m->private;
	struct tring_instance *inst = st->inst;
	struct tring_counts c = { 0 };
	struct tring_cpu *cb;

	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf) {
		mutex_unlock(&inst->lock);
		return -ENODEV;
	}
	/* A CPU without a ring (never online) has written nothing. */
	cb = tring_buffer_cpu(inst->buf, st->cpu);
	mutex_lock(&st->lock);
	if (cb)
		tring_cpu_counts(cb, &c);
	mutex_unlock(&st->lock);
	mutex_unlock(&inst->lock);
	seq_printf(m, "events_written: %llu\n", c.events_written);
	seq_printf(m, "events_discarded: %llu\n", c.events_discarded);
	seq_printf(m, "events_overwritten: %llu\n", c.events_overwritten);
	seq_printf(m, "events_too_big: %llu\n", c.events_too_big);
	seq_printf(m, "subbufs_delivered: %llu\n", c.subbufs_delivered);
	seq_printf(m, "subbufs_ready: %llu\n", c.subbufs_ready);
	seq_printf(m, "write_pos: %llu\n", c.write_pos);
	seq_printf(m, "read_pos: %llu\n", c.read_pos);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_stats);

static int tring_metadata_show(struct seq_file *m, void *unused)
{
	struct tring_instance *inst = m->private;
	int ret = 0;

	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf)
		ret = -ENODEV;
	else if (inst->meta)
		seq_write(m, inst->meta, inst->meta_len);
	else
		tring_ctf_metadata(m, &inst->buf->attr);
	mutex_unlock(&inst->lock);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(tring_metadata);

/* per_cpu/cpuN/{stream,stats}; 0 or -errno, having removed what it made. */
static int tring_fs_add_cpu(struct tring_stream *st, struct dentry *per_cpu)
{
	struct dentry *dir, *f;
	char name[16];

	snprintf(name, sizeof(name), "cpu%u", st->cpu);
	dir = debugfs_create_dir(name, per_cpu);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	f = debugfs_create_file_unsafe("stream", 0400, dir, st,
				       &tring_stream_fops);
	if (IS_ERR(f))
		goto remove_dir;
	f = debugfs_create_file("stats", 0400, dir, st, &tring_stats_fops);
	if (IS_ERR(f))
		goto remove_dir;
	return 0;

remove_dir:
	debugfs_remove(dir);
	return PTR_ERR(f);
}

/**
 * tring_fs_add_files - create an instance's files in its directory
 * @inst: the instance, with its streams set up.
 *
 * metadata and per_cpu/cpuN/{stream,stats} for every possible CPU.
 *
 * Return: 0, or -errno having removed every file it created.
 */
int tring_fs_add_files(struct tring_instance *inst)
{
	struct dentry *meta, *per_cpu;
	unsigned int cpu;
	int ret;

	meta = debugfs_create_file("metadata", 0400, inst->dir, inst,
				   &tring_metadata_fops);
	if (IS_ERR(meta))
		return PTR_ERR(meta);
	per_cpu = debugfs_create_dir("per_cpu", inst->dir);
	ret = PTR_ERR(per_cpu);
	if (IS_ERR(per_cpu))
		goto remove_metadata;
	for_each_possible_cpu(cpu) {
		ret = tring_fs_add_cpu(&inst->streams[cpu], per_cpu);
		if (ret)
			goto remove_per_cpu;
	}
	return 0;

remove_per_cpu:
	debugfs_remove(per_cpu);
remove_metadata:
	debugfs_remove(meta);
	return ret;
}
