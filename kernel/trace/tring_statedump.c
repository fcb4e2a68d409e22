// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the statedump. A write to /sys/kernel/debug/tring/statedump
 * writes into the default buffer what existed before the trace began, as
 * LTTng's statedump does, so that a viewer (Trace Compass, LTTng's
 * analyses) knows every thread's name and state, every interrupt handler
 * and every block device from the start of the trace:
 *
 *   lttng_statedump_start
 *   lttng_statedump_process_state     one per thread
 *   lttng_statedump_interrupt         one per interrupt handler
 *   lttng_statedump_block_device      one per disk and partition
 *   lttng_statedump_end
 *
 * The write returns when the dump is in the buffer. tring-record asks for
 * one at the start of every recording. The events are written whether or
 * not any event is enabled; a buffer too small for them loses the rest,
 * counted like any loss. Threads that come and go during the dump may or
 * may not be in it; the trace's own fork and exit events tell the rest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "tring_events.h"

/* One dump at a time: two at once would interleave their events. */
static DEFINE_MUTEX(tring_statedump_lock);

/* @p's status as LTTng's statedump reports it. */
static int tring_sd_status(struct task_struct *p)
{
	unsigned int state = READ_ONCE(p->__state);
	int exit_state = READ_ONCE(p->exit_state);

	if (exit_state == EXIT_ZOMBIE)
		return TRING_SD_ZOMBIE;
	if (exit_state == EXIT_DEAD)
		return TRING_SD_DEAD;
	if (state == TASK_RUNNING)
		return READ_ONCE(p->on_cpu) ? TRING_SD_RUN : TRING_SD_WAIT_CPU;
	if (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		return TRING_SD_WAIT;
	return TRING_SD_UNNAMED;
}

/* Caller holds rcu_read_lock(): @p and its parent stay. */
static void tring_sd_process(struct task_struct *p)
{
	struct pid_namespace *ns = task_active_pid_ns(p);
	struct task_struct *parent = rcu_dereference(p->real_parent);
	struct tring_sd_ids ids = {
		.ppid = task_tgid_nr(parent),
	};

	/* An exiting thread may have left its namespace: 0, as LTTng. */
	if (ns) {
		ids.vtid = task_pid_nr_ns(p, ns);
		ids.vpid = task_tgid_nr_ns(p, ns);
		ids.vppid = task_tgid_nr_ns(parent, ns);
	}
	tring_sd_write_process(p, &ids,
			       p->flags & PF_KTHREAD ? TRING_SD_KERNEL_THREAD :
						       TRING_SD_USER_THREAD,
			       tring_sd_status(p));
}

/*
 * Every thread, under RCU as /proc walks them; the walk does not sleep,
 * and the writes never do.
 */
static void tring_sd_processes(void)
{
	struct task_struct *g, *p;

	rcu_read_lock();
	for_each_process_thread(g, p)
		tring_sd_process(p);
	rcu_read_unlock();
}

/*
 * Every handler of interrupt @irq. The descriptor is freed after an RCU
 * grace period (the caller holds rcu_read_lock()); its lock keeps the
 * handler list and their names while we read them.
 */
static void tring_sd_irq(unsigned int irq)
{
	struct irq_data *data = irq_get_irq_data(irq);
	struct irqaction *action;
	struct irq_desc *desc;
	const char *chip;
	unsigned long flags;

	if (!data)
		return;
	desc = container_of(data, struct irq_desc, irq_data);
	raw_spin_lock_irqsave(&desc->lock, flags);
	chip = data->chip && data->chip->name ? data->chip->name : "";
	for (action = desc->action; action; action = action->next)
		tring_sd_write_interrupt(irq, chip, action->name);
	raw_spin_unlock_irqrestore(&desc->lock, flags);
}

static void tring_sd_interrupts(void)
{
	unsigned int irq;

	for (irq = 0; irq < nr_irqs; irq++) {
		rcu_read_lock();
		tring_sd_irq(irq);
		rcu_read_unlock();
		cond_resched();
	}
}

#ifdef CONFIG_BLOCK
/*
 * Every block device the kernel knows (disks and partitions): the inodes
 * of the block device filesystem, as the kernel's own iterate_bdevs()
 * walks them. The list's lock keeps an inode on the list but not its
 * disk alive: each inode is pinned (igrab(), which skips one being
 * freed) before its block device is used, with the list's lock dropped,
 * and released (iput(), which may sleep) only once the walk has moved
 * on from it, so that the list stays walkable from the pinned inode.
 */
static void tring_sd_block_devices(void)
{
	struct super_block *sb = blockdev_superblock;
	struct inode *inode, *prev = NULL;
	struct block_device *bdev;
	char name[BDEVNAME_SIZE];

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		spin_lock(&inode->i_lock);
		if (inode->i_state & I_NEW) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		spin_unlock(&inode->i_lock);
		if (!igrab(inode))
			continue;
		spin_unlock(&sb->s_inode_list_lock);
		iput(prev);
		prev = inode;
		bdev = I_BDEV(inode);
		if (bdev->bd_disk) {
			snprintf(name, sizeof(name), "%pg", bdev);
			tring_sd_write_block_device(bdev->bd_dev, name);
		}
		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(prev);
}
#else
static void tring_sd_block_devices(void)
{
}
#endif

static void tring_statedump(void)
{
	mutex_lock(&tring_statedump_lock);
	tring_sd_write_start();
	tring_sd_processes();
	tring_sd_interrupts();
	tring_sd_block_devices();
	tring_sd_write_end();
	mutex_unlock(&tring_statedump_lock);
}

/* Writing a true value ("1", "y") dumps; it returns when done. */
static ssize_t tring_statedump_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	if (on)
		tring_statedump();
	return count;
}

static const struct file_operations tring_statedump_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tring_statedump_write,
	.llseek	= noop_llseek,
};

/**
 * tring_statedump_init - create the statedump file
 * @root: /sys/kernel/debug/tring.
 *
 * Return: 0, or the error debugfs gave.
 */
int tring_statedump_init(struct dentry *root)
{
	return PTR_ERR_OR_ZERO(debugfs_create_file("statedump", 0200, root,
						   NULL,
						   &tring_statedump_fops));
}
