// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the debugfs front end of a buffer: per-CPU stream files that
 * user space maps read-only and drives with ioctls and poll(), and
 * per-CPU statistics.
 *
 * Stream files are created with debugfs_create_file_unsafe(): debugfs
 * then proxies only open(), which it runs under debugfs_file_get() so the
 * file cannot be removed meanwhile, and leaves our other file operations
 * (.mmap among them) in place. open() takes a reference on the instance
 * under the instance's lock; from then on the open file keeps the
 * instance, its buffer and (through fops->owner) the module alive, and a
 * destroyed instance makes new opens fail.
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
#include "tring_fs.h"

/* Sub-buffers one TRING_IOC_GET hands out at most. */
#define TRING_GET_BATCH_MAX	64

static void tring_instance_release(struct kref *ref)
{
	struct tring_instance *inst = container_of(ref, struct tring_instance,
						   ref);

	if (inst->buf)
		tring_buffer_free(inst->buf);
	kfree(inst->streams);
	kfree(inst);
}

void tring_instance_put(struct tring_instance *inst)
{
	kref_put(&inst->ref, tring_instance_release);
}

static struct tring_cpu *tring_stream_cpu(struct tring_stream *st)
{
	return per_cpu_ptr(st->inst->buf->cpus, st->cpu);
}

static int tring_stream_open(struct inode *inode, struct file *file)
{
	struct tring_stream *st = inode->i_private;
	struct tring_instance *inst = st->inst;
	int ret = 0;

	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf) {
		ret = -ENODEV;
	} else if (st->open) {
		ret = -EBUSY;
	} else {
		st->open = true;
		inst->open_streams++;
		kref_get(&inst->ref);
		file->private_data = st;
	}
	mutex_unlock(&inst->lock);
	return ret ? ret : nonseekable_open(inode, file);
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

static long tring_ioc_info(struct tring_cpu *cb, void __user *uarg)
{
	struct tring_info info;
	long usize;

	usize = tring_copy_in(&info, sizeof(info), TRING_INFO_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	info.abi_version = TRING_ABI_VERSION;
	info.cpu = cb->cpu;
	info.flags = cb->overwrite ? TRING_INFO_OVERWRITE : 0;
	info.subbuf_size = cb->subbuf_size;
	info.subbuf_count = cb->slot_mask + 1;
	info.header_size = TRING_PACKET_HEADER_SIZE;
	info.map_size = tring_cpu_map_size(cb);
	info.clock = cb->clock;
	info.watermark = cb->watermark;
	return tring_copy_out(uarg, &info, sizeof(info), usize);
}

static void tring_unget(struct tring_cpu *cb, unsigned int n)
{
	if (cb->overwrite && n) {
		cb->held = 0;
		cb->retake = true;
		return;
	}
	cb->held -= n;
}

static long tring_ioc_get(struct tring_cpu *cb, struct tring_get __user *uarg)
{
	struct tring_subbuf __user *usb;
	struct tring_subbuf sb;
	struct tring_get get;
	unsigned int n;
	long ret;

	ret = tring_copy_in(&get, sizeof(get), TRING_GET_SIZE_VER0, uarg);
	if (ret < 0)
		return ret;
	if (get.flags || !get.max)
		return -EINVAL;
	usb = u64_to_user_ptr(get.subbufs);
	for (n = 0; n < min_t(u32, get.max, TRING_GET_BATCH_MAX); n++) {
		ret = tring_cpu_get(cb, &sb);
		if (ret)
			break;
		if (copy_to_user(&usb[n], &sb, sizeof(sb))) {
			tring_unget(cb, n + 1);
			return -EFAULT;
		}
	}
	if (!n)
		return ret;
	if (put_user(n, &uarg->count)) {
		tring_unget(cb, n);
		return -EFAULT;
	}
	return 0;
}

static long tring_ioc_put(struct tring_cpu *cb, void __user *uarg)
{
	struct tring_put put;
	long ret;

	ret = tring_copy_in(&put, sizeof(put), TRING_PUT_SIZE_VER0, uarg);
	if (ret < 0)
		return ret;
	return tring_cpu_put(cb, put.seq, put.count);
}

static long tring_ioc_status(struct tring_cpu *cb, void __user *uarg,
			     bool dead)
{
	struct tring_status st;
	struct tring_counts c;
	long usize;

	usize = tring_copy_in(&st, sizeof(st), TRING_STATUS_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	tring_cpu_counts(cb, &c);
	st.flags = dead ? TRING_STATUS_DEAD : 0;
	st.write_pos = c.write_pos;
	st.read_pos = c.read_pos;
	st.subbufs_delivered = c.subbufs_delivered;
	st.subbufs_ready = c.subbufs_ready;
	st.events_written = c.events_written;
	st.events_discarded = c.events_discarded;
	st.events_overwritten = c.events_overwritten;
	st.events_too_big = c.events_too_big;
	return tring_copy_out(uarg, &st, sizeof(st), usize);
}

static long tring_ioc_flush(struct tring_cpu *cb, void __user *uarg)
{
	struct tring_flush fl;
	long usize;

	usize = tring_copy_in(&fl, sizeof(fl), TRING_FLUSH_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (fl.flags)
		return -EINVAL;
	fl.pos = tring_cpu_flush(cb);
	return tring_copy_out(uarg, &fl, sizeof(fl), usize);
}

static long tring_ioc_watermark(struct tring_cpu *cb, void __user *uarg)
{
	struct tring_watermark wm;
	long usize;

	usize = tring_copy_in(&wm, sizeof(wm), TRING_WATERMARK_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (!wm.watermark)
		return -EINVAL;
	tring_cpu_set_watermark(cb, wm.watermark);
	wm.watermark = cb->watermark;
	return tring_copy_out(uarg, &wm, sizeof(wm), usize);
}

/* The ABI's structures are their first published size, for now. */
static_assert(sizeof(struct tring_info) == TRING_INFO_SIZE_VER0);
static_assert(sizeof(struct tring_get) == TRING_GET_SIZE_VER0);
static_assert(sizeof(struct tring_put) == TRING_PUT_SIZE_VER0);
static_assert(sizeof(struct tring_status) == TRING_STATUS_SIZE_VER0);
static_assert(sizeof(struct tring_flush) == TRING_FLUSH_SIZE_VER0);
static_assert(sizeof(struct tring_watermark) == TRING_WATERMARK_SIZE_VER0);

static long tring_stream_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct tring_stream *st = file->private_data;
	struct tring_cpu *cb = tring_stream_cpu(st);
	void __user *uarg = (void __user *)arg;
	long ret;

	mutex_lock(&st->lock);
	switch (cmd) {
	case TRING_IOC_INFO:
		ret = tring_ioc_info(cb, uarg);
		break;
	case TRING_IOC_GET:
		ret = tring_ioc_get(cb, uarg);
		break;
	case TRING_IOC_PUT:
		ret = tring_ioc_put(cb, uarg);
		break;
	case TRING_IOC_STATUS:
		ret = tring_ioc_status(cb, uarg, READ_ONCE(st->inst->dead));
		break;
	case TRING_IOC_FLUSH:
		ret = tring_ioc_flush(cb, uarg);
		break;
	case TRING_IOC_WATERMARK:
		ret = tring_ioc_watermark(cb, uarg);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&st->lock);
	return ret;
}

static __poll_t tring_stream_poll(struct file *file, poll_table *wait)
{
	struct tring_stream *st = file->private_data;
	struct tring_cpu *cb = tring_stream_cpu(st);
	__poll_t mask = 0;
	bool ready;

	poll_wait(file, &cb->waitq, wait);
	mutex_lock(&st->lock);
	ready = tring_cpu_poll_ready(cb);
	/* A destroyed buffer with nothing left: tell the reader to stop. */
	if (!ready && READ_ONCE(st->inst->dead) && !tring_cpu_ready(cb, 1))
		mask = EPOLLHUP;
	mutex_unlock(&st->lock);
	return ready ? EPOLLIN | EPOLLRDNORM : mask;
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

static int tring_stats_show(struct seq_file *m, void *unused)
{
	struct tring_stream *st = m->private;
	struct tring_instance *inst = st->inst;
	struct tring_counts c;
	int ret = 0;

	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf) {
		ret = -ENODEV;
		goto unlock_inst;
	}
	mutex_lock(&st->lock);
	tring_cpu_counts(tring_stream_cpu(st), &c);
	mutex_unlock(&st->lock);
	seq_printf(m, "events_written: %llu\n", c.events_written);
	seq_printf(m, "events_discarded: %llu\n", c.events_discarded);
	seq_printf(m, "events_overwritten: %llu\n", c.events_overwritten);
	seq_printf(m, "events_too_big: %llu\n", c.events_too_big);
	seq_printf(m, "subbufs_delivered: %llu\n", c.subbufs_delivered);
	seq_printf(m, "subbufs_ready: %llu\n", c.subbufs_ready);
	seq_printf(m, "write_pos: %llu\n", c.write_pos);
	seq_printf(m, "read_pos: %llu\n", c.read_pos);
unlock_inst:
	mutex_unlock(&inst->lock);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(tring_stats);

static int tring_metadata_show(struct seq_file *m, void *unused)
{
	struct tring_instance *inst = m->private;
	int ret = 0;

	mutex_lock(&inst->lock);
	if (inst->dead || !inst->buf)
		ret = -ENODEV;
	else
		tring_ctf_metadata(m, &inst->buf->attr);
	mutex_unlock(&inst->lock);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(tring_metadata);

static void tring_instance_add_cpu(struct tring_instance *inst,
				   struct dentry *per_cpu, unsigned int cpu)
{
	struct tring_stream *st = &inst->streams[cpu];
	struct dentry *dir;
	char name[16];

	st->inst = inst;
	st->cpu = cpu;
	mutex_init(&st->lock);
	snprintf(name, sizeof(name), "cpu%u", cpu);
	dir = debugfs_create_dir(name, per_cpu);
	debugfs_create_file_unsafe("stream", 0400, dir, st, &tring_stream_fops);
	debugfs_create_file("stats", 0400, dir, st, &tring_stats_fops);
}

/**
 * tring_instance_new - put a buffer's files under a debugfs directory
 * @dir: the directory (created by the caller).
 * @buf: the buffer; the instance owns it from now on.
 *
 * Return: the instance holding one reference, or an ERR_PTR(); on error
 * @buf is not freed.
 */
struct tring_instance *tring_instance_new(struct dentry *dir,
					  struct tring_buffer *buf)
{
	struct tring_instance *inst;
	struct dentry *per_cpu;
	unsigned int cpu;

	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst)
		return ERR_PTR(-ENOMEM);
	inst->streams = kcalloc(nr_cpu_ids, sizeof(*inst->streams),
				GFP_KERNEL);
	if (!inst->streams) {
		kfree(inst);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&inst->ref);
	mutex_init(&inst->lock);
	inst->dir = dir;
	inst->buf = buf;
	buf->priv = inst;
	debugfs_create_file("metadata", 0400, dir, inst, &tring_metadata_fops);
	per_cpu = debugfs_create_dir("per_cpu", dir);
	for_each_possible_cpu(cpu)
		tring_instance_add_cpu(inst, per_cpu, cpu);
	return inst;
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

/**
 * tring_instance_kill - remove an instance's files and drop its reference
 * @inst: the instance.
 *
 * Open streams keep the instance and its buffer until they are closed;
 * they read what is left, and every new open fails.
 */
void tring_instance_kill(struct tring_instance *inst)
{
	unsigned int cpu;

	mutex_lock(&inst->lock);
	WRITE_ONCE(inst->dead, true);
	mutex_unlock(&inst->lock);
	debugfs_remove(inst->dir);
	/* Wake pollers so they see the end. */
	for_each_possible_cpu(cpu)
		wake_up_all(&tring_stream_cpu(&inst->streams[cpu])->waitq);
	tring_instance_put(inst);
}
