// SPDX-License-Identifier: GPL-2.0
/*
 * tring_test: triggers the kselftests use, under
 * /sys/kernel/debug/tring/test/:
 *
 * write     "<cpu> <count> <len> [<seq>]" writes <count> test events
 *           (struct tring_test_payload, <len> payload bytes) into the
 *           default buffer from a kworker bound to <cpu>, sequence numbers
 *           from <seq>. Reading tells how many of the last batch were
 *           written and how many the buffer refused.
 * instance  "create <name> <subbuf_kb> <count> [overwrite]",
 *           "destroy <name>", "write <name> <cpu> <count> <len> [<seq>]",
 *           "writehere <name> <count> <len> [<seq>]" (in the writing
 *           task, on whatever CPU it runs; ENOBUFS if any was refused):
 *           buffers made through the kernel API (instances/<name>). A
 *           destroy does not hold up the other triggers.
 * stress    "<ms>" runs the stress test (tring_test_stress.c); reading
 *           reports the last run.
 * probe     "<count> <seed>" calls tring_test_probe_target(i, seed - i,
 *           "probe-<i>") for i from 0 to count - 1, in the writer's
 *           context: a function for dynamic probes' tests to probe.
 *           "<count> <seed> fast" passes "probe-fast" every time
 *           instead, no snprintf() per call: the probe benchmark's
 *           untraced call is then little more than the call itself.
 *           Reading gives the sum of what it returned.
 *
 * plant_warn=1 at load time triggers a WARN: the harness must catch it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <linux/tring.h>
#include "tring_cmd.h"
#include "tring_test.h"
#include "tring_test_mod.h"

static bool plant_warn;
module_param(plant_warn, bool, 0444);
MODULE_PARM_DESC(plant_warn, "WARN at load (tests the test harness)");

#define TRING_TEST_MAX_LEN	4096
#define TRING_TEST_INSTANCES	4

static struct dentry *tring_test_dir;
static DEFINE_MUTEX(tring_test_lock);	/* every trigger but destroy */
static struct tring_buffer *tring_test_inst[TRING_TEST_INSTANCES];

struct tring_test_batch {
	struct tring_buffer *buf;	/* NULL: the default buffer */
	unsigned int cpu;
	unsigned long count;
	unsigned int len;
	u64 seq;
	unsigned long written;
	unsigned long failed;
};

static struct tring_test_batch tring_test_last;

/*
 * The events this module writes: added to the default buffer's metadata
 * while it is loaded, and declared by the instances it creates.
 */
static const struct tring_field tring_test_fields[] = {
	TRING_FIELD(struct tring_test_payload, seq, U64),
	TRING_FIELD(struct tring_test_payload, cpu, U32),
	TRING_FIELD(struct tring_test_payload, data_len, U32),
	TRING_FIELD_TAIL(struct tring_test_payload, data, BYTES),
	{ }
};

static const struct tring_field tring_stress_fields[] = {
	TRING_FIELD(struct tring_stress_payload, seq, U64),
	TRING_FIELD(struct tring_stress_payload, cpu, U32),
	TRING_FIELD(struct tring_stress_payload, ctx, U16),
	TRING_FIELD(struct tring_stress_payload, data_len, U16),
	TRING_FIELD(struct tring_stress_payload, check, U64),
	TRING_FIELD_TAIL(struct tring_stress_payload, data, BYTES),
	{ }
};

static const struct tring_event_desc tring_test_events[] = {
	{ .group = "tring_test", .name = "test", .id = TRING_TEST_EVENT_ID,
	  .size = sizeof(struct tring_test_payload),
	  .fields = tring_test_fields },
	{ .group = "tring_test", .name = "stress", .id = TRING_STRESS_EVENT_ID,
	  .size = sizeof(struct tring_stress_payload),
	  .fields = tring_stress_fields },
};

static void tring_test_fill(u8 *p, unsigned int cpu, unsigned int len, u64 seq)
{
	struct tring_test_payload *tp = (void *)p;
	unsigned int i;

	tp->seq = seq;
	tp->cpu = cpu;
	tp->data_len = len - sizeof(*tp);
	for (i = 0; i < tp->data_len; i++)
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
		buf = b->buf ?: tring_default_buffer();
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

/* A test event's length: its struct tring_test_payload at least. */
static bool tring_test_len_ok(unsigned int len)
{
	return len >= sizeof(struct tring_test_payload) &&
	       len <= TRING_TEST_MAX_LEN;
}

/* Run batch @b on its CPU. Called with tring_test_lock held. */
static int tring_test_batch(struct tring_test_batch *b)
{
	long ret;

	if (!tring_test_len_ok(b->len) || b->cpu >= nr_cpu_ids)
		return -EINVAL;
	cpus_read_lock();
	ret = cpu_online(b->cpu) ? work_on_cpu(b->cpu, tring_test_run, b) :
				   -ENODEV;
	cpus_read_unlock();
	if (!ret)
		tring_test_last = *b;
	return ret;
}

static ssize_t tring_test_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct tring_test_batch b = { };
	char s[64];
	int ret;

	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(s, "%u %lu %u %llu", &b.cpu, &b.count, &b.len, &b.seq) < 3)
		return -EINVAL;
	mutex_lock(&tring_test_lock);
	ret = tring_test_batch(&b);
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

static int tring_test_find(const char *name)
{
	int i;

	for (i = 0; i < TRING_TEST_INSTANCES; i++)
		if (tring_test_inst[i] && !strcmp(tring_test_inst[i]->name, name))
			return i;
	return -ENOENT;
}

static int tring_test_create(const char *name, unsigned int kb,
			     unsigned int count, bool overwrite)
{
	/* The triggers write test events: describe them in the metadata. */
	struct tring_buffer_attr attr = {
		.name = name,
		.subbuf_size = (size_t)kb * 1024,
		.subbuf_count = count,
		.flags = overwrite ? TRING_OVERWRITE : 0,
		.events = tring_test_events,
		.nr_events = 1,
	};
	struct tring_buffer *buf;
	int i;

	for (i = 0; i < TRING_TEST_INSTANCES && tring_test_inst[i]; i++)
		;
	if (i == TRING_TEST_INSTANCES)
		return -ENOSPC;
	buf = tring_buffer_create(&attr);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	tring_test_inst[i] = buf;
	return 0;
}

/*
 * Take the buffer out of the table under the trigger lock, so no batch
 * writes to it any more, then destroy it without that lock: a create may
 * run while the destroy is in progress (the instance tests race them).
 */
static int tring_test_destroy(const char *name)
{
	struct tring_buffer *buf;
	int i;

	mutex_lock(&tring_test_lock);
	i = tring_test_find(name);
	buf = i < 0 ? NULL : tring_test_inst[i];
	if (buf)
		tring_test_inst[i] = NULL;
	mutex_unlock(&tring_test_lock);
	if (!buf)
		return -ENOENT;
	tring_buffer_destroy(buf);
	return 0;
}

static int tring_test_instance_cmd(char *s)
{
	struct tring_test_batch b = { };
	unsigned int kb, count;
	char name[32], ow[16];
	bool here;
	int i, n;

	n = sscanf(s, "create %31s %u %u %15s", name, &kb, &count, ow);
	if (n >= 3)
		return tring_test_create(name, kb, count,
					 n == 4 && !strcmp(ow, "overwrite"));
	/* In the writing task: the instance context test's known writer. */
	here = sscanf(s, "writehere %31s %lu %u %llu", name, &b.count, &b.len,
		      &b.seq) >= 3;
	if (!here && sscanf(s, "write %31s %u %lu %u %llu", name, &b.cpu,
			    &b.count, &b.len, &b.seq) < 4)
		return -EINVAL;
	i = tring_test_find(name);
	if (i < 0)
		return i;
	b.buf = tring_test_inst[i];
	if (!here)
		return tring_test_batch(&b);
	if (!tring_test_len_ok(b.len))
		return -EINVAL;
	b.cpu = raw_smp_processor_id();
	return tring_test_run(&b) ?: (b.failed ? -ENOBUFS : 0);
}

static ssize_t tring_test_instance_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	char s[96], name[32];
	int ret;

	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(strim(s), "destroy %31s", name) == 1) {
		ret = tring_test_destroy(name);
	} else {
		mutex_lock(&tring_test_lock);
		ret = tring_test_instance_cmd(strim(s));
		mutex_unlock(&tring_test_lock);
	}
	return ret ? ret : count;
}

static const struct file_operations tring_test_instance_fops = {
	.owner	= THIS_MODULE,
	.read	= tring_test_read,
	.write	= tring_test_instance_write,
	.llseek	= default_llseek,
};

static ssize_t tring_test_stress_write(struct file *file,
				       const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &ms);
	if (ret)
		return ret;
	if (!ms || ms > 600 * MSEC_PER_SEC)
		return -EINVAL;
	mutex_lock(&tring_test_lock);
	ret = tring_stress_run(ms);
	mutex_unlock(&tring_test_lock);
	return ret ? ret : count;
}

static int tring_test_stress_show(struct seq_file *m, void *unused)
{
	mutex_lock(&tring_test_lock);
	tring_stress_show(m);
	mutex_unlock(&tring_test_lock);
	return 0;
}

static int tring_test_stress_open(struct inode *inode, struct file *file)
{
	return single_open(file, tring_test_stress_show, NULL);
}

static const struct file_operations tring_test_stress_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_test_stress_open,
	.read		= seq_read,
	.write		= tring_test_stress_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static s64 tring_test_probe_sum;	/* tring_test_lock */

/**
 * tring_test_probe_target - a function for probes' tests to probe
 * @a: a number, the call's index.
 * @b: another, the seed minus @a.
 * @name: "probe-<a>".
 *
 * Return: 3 * @a + @b, the return probes' value to check.
 */
noinline s64 tring_test_probe_target(u64 a, s32 b, const char *name)
{
	/* Not folded into the caller: a call the probe sees, every time. */
	barrier();
	return 3 * (s64)a + b + (name[0] != 'p');
}

static ssize_t tring_test_probe_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	unsigned long n, i;
	char s[64], name[32], mode[8];
	bool fast;
	s32 seed;
	int ret;

	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	ret = sscanf(s, "%lu %d %7s", &n, &seed, mode);
	if (ret < 2 || n > 10000000 || (ret == 3 && strcmp(mode, "fast")))
		return -EINVAL;
	fast = ret == 3;
	strscpy(name, "probe-fast", sizeof(name));
	mutex_lock(&tring_test_lock);
	tring_test_probe_sum = 0;
	for (i = 0; i < n; i++) {
		if (!fast)
			snprintf(name, sizeof(name), "probe-%lu", i);
		tring_test_probe_sum += tring_test_probe_target(i, seed - i,
								name);
		cond_resched();
	}
	mutex_unlock(&tring_test_lock);
	return count;
}

static ssize_t tring_test_probe_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char s[32];
	int n;

	mutex_lock(&tring_test_lock);
	n = scnprintf(s, sizeof(s), "%lld\n", tring_test_probe_sum);
	mutex_unlock(&tring_test_lock);
	return simple_read_from_buffer(ubuf, count, ppos, s, n);
}

static const struct file_operations tring_test_probe_fops = {
	.owner	= THIS_MODULE,
	.read	= tring_test_probe_read,
	.write	= tring_test_probe_write,
	.llseek	= default_llseek,
};

static int __init tring_test_init(void)
{
	struct dentry *root;
	int ret;

	WARN(plant_warn, "tring_test: planted warning (plant_warn=1)\n");
	root = debugfs_lookup("tring", NULL);
	if (!root)
		return -ENODEV;
	ret = tring_default_events_add(tring_test_events,
				       ARRAY_SIZE(tring_test_events));
	if (ret) {
		dput(root);
		return ret;
	}
	tring_test_dir = debugfs_create_dir("test", root);
	dput(root);
	debugfs_create_file("write", 0600, tring_test_dir, NULL,
			    &tring_test_write_fops);
	debugfs_create_file("instance", 0600, tring_test_dir, NULL,
			    &tring_test_instance_fops);
	debugfs_create_file("stress", 0600, tring_test_dir, NULL,
			    &tring_test_stress_fops);
	debugfs_create_file("probe", 0600, tring_test_dir, NULL,
			    &tring_test_probe_fops);
	return 0;
}

static void __exit tring_test_exit(void)
{
	int i;

	debugfs_remove(tring_test_dir);
	for (i = 0; i < TRING_TEST_INSTANCES; i++)
		if (tring_test_inst[i])
			tring_buffer_destroy(tring_test_inst[i]);
	tring_default_events_remove(tring_test_events,
				    ARRAY_SIZE(tring_test_events));
}

module_init(tring_test_init);
module_exit(tring_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: test triggers and the stress test");
