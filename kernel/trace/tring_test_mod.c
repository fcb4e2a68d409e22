// SPDX-License-Identifier: GPL-2.0
/*
 * tring_test: triggers the kselftests use to write known events.
 *
 * /sys/kernel/debug/tring/test/write: write "<cpu> <count> <len> [<seq>]"
 * to write <count> test events (struct tring_test_payload, <len> payload
 * bytes) into the default buffer from a kworker bound to <cpu>, with
 * sequence numbers from <seq> (default 0). Reading the file tells how
 * many of the last batch were written and how many the buffer refused.
 *
 * plant_warn=1 at load time triggers a WARN: the harness must see it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <linux/tring.h>
#include "tring_test.h"

static bool plant_warn;
module_param(plant_warn, bool, 0444);
MODULE_PARM_DESC(plant_warn, "WARN at load (tests the test harness)");

#define TRING_TEST_MAX_LEN	4096

static struct dentry *tring_test_dir;
static DEFINE_MUTEX(tring_test_lock);

struct tring_test_batch {
	unsigned int cpu;
	unsigned long count;
	unsigned int len;
	u64 seq;
	unsigned long written;
	unsigned long failed;
};

static struct tring_test_batch tring_test_last;

static void tring_test_fill(u8 *p, unsigned int cpu, unsigned int len, u64 seq)
{
	struct tring_test_payload *tp = (void *)p;
	unsigned int i;

	tp->seq = seq;
	tp->cpu = cpu;
	tp->len = len;
	for (i = 0; i < len - sizeof(*tp); i++)
		p[sizeof(*tp) + i] = tring_test_byte(seq, i);
}

static long tring_test_run(void *arg)
{
	struct tring_test_batch *b = arg;
	struct tring_buffer *buf;
	unsigned long i;
	u8 *p;
	int ret;

	p = kmalloc(b->len, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < b->count; i++) {
		tring_test_fill(p, b->cpu, b->len, b->seq + i);
		preempt_disable();
		buf = tring_default_buffer();
		ret = buf ? trace_write_inline(buf, TRING_TEST_EVENT_ID, p, b->len) :
			    -ENODEV;
		preempt_enable();
		if (ret)
			b->failed++;
		else
			b->written++;
		cond_resched();
	}
	kfree(p);
	return 0;
}

static ssize_t tring_test_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct tring_test_batch b = { };
	char s[64];
	long ret;
	int n;

	if (!count || count >= sizeof(s))
		return -EINVAL;
	if (copy_from_user(s, ubuf, count))
		return -EFAULT;
	s[count] = '\0';
	n = sscanf(s, "%u %lu %u %llu", &b.cpu, &b.count, &b.len, &b.seq);
	if (n < 3 || b.len < sizeof(struct tring_test_payload) ||
	    b.len > TRING_TEST_MAX_LEN || b.cpu >= nr_cpu_ids)
		return -EINVAL;

	mutex_lock(&tring_test_lock);
	cpus_read_lock();
	ret = cpu_online(b.cpu) ? work_on_cpu(b.cpu, tring_test_run, &b) :
				   -ENODEV;
	cpus_read_unlock();
	if (!ret)
		tring_test_last = b;
	mutex_unlock(&tring_test_lock);
	return ret ? ret : count;
}

static ssize_t tring_test_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char s[64];
	int n;

	mutex_lock(&tring_test_lock);
	n = scnprintf(s, sizeof(s), "written %lu failed %lu\n",
		      tring_test_last.written, tring_test_last.failed);
	mutex_unlock(&tring_test_lock);
	return simple_read_from_buffer(ubuf, count, ppos, s, n);
}

static const struct file_operations tring_test_write_fops = {
	.owner	= THIS_MODULE,
	.read	= tring_test_read,
	.write	= tring_test_write,
	.llseek	= default_llseek,
};

static int __init tring_test_init(void)
{
	struct dentry *root;

	WARN(plant_warn, "tring_test: planted warning (plant_warn=1)\n");
	root = debugfs_lookup("tring", NULL);
	if (!root)
		return -ENODEV;
	tring_test_dir = debugfs_create_dir("test", root);
	dput(root);
	debugfs_create_file("write", 0600, tring_test_dir, NULL,
			    &tring_test_write_fops);
	return 0;
}

static void __exit tring_test_exit(void)
{
	debugfs_remove(tring_test_dir);
}

module_init(tring_test_init);
module_exit(tring_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: test triggers and self-tests");
