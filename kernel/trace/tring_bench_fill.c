// SPDX-License-Identifier: GPL-2.0
/*
 * tring_bench: bench/fill, the writer of the read-side benchmark.
 *
 * Write "<tring|ftrace> <events> <cpu> [<rate>]" to bench/fill to write
 * that many 64-byte events on <cpu>, from a kworker bound to it, at
 * <rate> events per second if given (paced every 64 events) or as fast
 * as possible, into tring's default buffer (test events, so the files
 * decode) or into ftrace's (the tring_bench:tring_bench_event trace
 * event, enabled through tracefs); reading bench/fill tells how many
 * were written, how many refused and how long it took. A fill and a
 * bench/run never run at once (tring_bench_lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <linux/tring.h>
#include "tring_bench_mod.h"
#include "tring_cmd.h"
#include "tring_test.h"
#include "tring_bench_trace.h"

/* The last fill: its request and what it did (tring_bench_lock). */
static struct {
	bool ftrace;
	unsigned long events;
	unsigned long rate;
	unsigned int cpu;
	unsigned long written;
	unsigned long failed;
	u64 ns;
} fill;

/* Write the fill: test events into tring, or the trace event. */
static long bench_fill_run(void *arg)
{
	struct {
		struct tring_test_payload tp;
		u8 data[64 - sizeof(struct tring_test_payload)];
	} ev;
	struct tring_buffer *buf;
	unsigned long i;
	u64 t0 = ktime_get_ns();
	int ret;

	ev.tp.cpu = fill.cpu;
	ev.tp.data_len = sizeof(ev.data);
	for (i = 0; i < fill.events; i++) {
		/* Pace: event i is due i / rate seconds after the start. */
		if (fill.rate && !(i % 64))
			while (ktime_get_ns() - t0 <
			       div64_u64((u64)i * NSEC_PER_SEC, fill.rate))
				cpu_relax();
		/* Both targets: the kworker must not hold its CPU. */
		if (i && !(i % 1024))
			cond_resched();
		ev.tp.seq = i;
		memset(ev.data, (u8)i, sizeof(ev.data));
		if (fill.ftrace) {
			trace_tring_bench_event((const u8 *)&ev);
			fill.written++;
			continue;
		}
		preempt_disable();
		buf = tring_default_buffer();
		ret = buf ? trace_write_inline(buf, TRING_TEST_EVENT_ID, &ev,
					       sizeof(ev)) : -ENODEV;
		preempt_enable();
		if (ret)
			fill.failed++;
		else
			fill.written++;
	}
	fill.ns = ktime_get_ns() - t0;
	return 0;
}

static ssize_t bench_fill_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char s[64], target[8];
	long ret;

	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	mutex_lock(&tring_bench_lock);
	ret = -EINVAL;
	fill.rate = 0;
	if (sscanf(s, "%7s %lu %u %lu", target, &fill.events,
		   &fill.cpu, &fill.rate) >= 3 &&
	    (!strcmp(target, "tring") || !strcmp(target, "ftrace")) &&
	    fill.cpu < nr_cpu_ids) {
		fill.ftrace = !strcmp(target, "ftrace");
		fill.written = 0;
		fill.failed = 0;
		cpus_read_lock();
		ret = cpu_online(fill.cpu) ?
		      work_on_cpu(fill.cpu, bench_fill_run, NULL) :
		      -ENODEV;
		cpus_read_unlock();
	}
	mutex_unlock(&tring_bench_lock);
	return ret ? ret : count;
}

static ssize_t bench_fill_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char s[96];
	int len;

	mutex_lock(&tring_bench_lock);
	len = scnprintf(s, sizeof(s), "written %lu failed %lu ns %llu\n",
			fill.written, fill.failed,
			fill.ns);
	mutex_unlock(&tring_bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, s, len);
}

static const struct file_operations bench_fill_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_fill_read,
	.write	= bench_fill_write,
	.llseek	= default_llseek,
};

/* bench/fill in @dir, bench/ of tring's debugfs directory. */
void tring_bench_fill_init(struct dentry *dir)
{
	debugfs_create_file("fill", 0600, dir, NULL, &bench_fill_fops);
}
