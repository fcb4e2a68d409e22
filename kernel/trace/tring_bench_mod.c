// SPDX-License-Identifier: GPL-2.0
/*
 * tring_bench: times tring's writers against ftrace's ring buffer and
 * relay, with the same loop and payloads, in the same kernel run.
 *
 * Write "<impl> <payload> <events> <cpus> <reader> <nested> <reps>" to
 * /sys/kernel/debug/tring/bench/run, then read it:
 *   impl     tring_inline | tring_reserve | ftrace_reserve |
 *            ftrace_write | relay | floor, or the name of a buffer
 *            another module registered (tring_bench.h: lttng_rb,
 *            LTTng's ring buffer, from tring_bench_lttng.ko)
 *   payload  bytes per event: 8, 64 or 256
 *   events   per CPU and repetition
 *   cpus     1: CPU 0 alone; all: every online CPU at once
 *   reader   1: a kthread drains the buffer while the writers run
 *   nested   1: an hrtimer writes events from hardirq during the loop
 *   reps     repetitions; the result is their median
 * Reading gives "ns_per_event <median> min <min> max <max> events <n>"
 * for the last run (per CPU; with cpus=all, the slowest CPU's time).
 *
 * bench/fill, the read-side benchmark's writer: tring_bench_fill.c.
 *
 * All buffers are about 1 MiB per CPU, in overwrite mode so every write
 * does the full work (no write fails cheaply on a full buffer). relay
 * and the floor store an explicit ktime_get_mono_fast_ns() timestamp, as
 * tring and ftrace do themselves. The floor is the clock read plus a
 * plain copy of the payload into per-CPU memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/relay.h>
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include <linux/tring.h>
#include "tring_bench.h"
#include "tring_bench_mod.h"
#include "tring_cmd.h"
#include "tring_compat.h"

#define CREATE_TRACE_POINTS
#include "tring_bench_trace.h"

#define BENCH_BUF_BYTES		SZ_1M
#define BENCH_SUBBUF		SZ_64K
#define BENCH_MAX_PAYLOAD	256
#define BENCH_MAX_REPS		15
#define BENCH_TIMER_NS		(50 * NSEC_PER_USEC)
#define BENCH_EVENT_ID		TRING_ID_FIRST_EVENT

enum bench_impl {
	BENCH_TRING_INLINE,
	BENCH_TRING_RESERVE,
	BENCH_FTRACE_RESERVE,
	BENCH_FTRACE_WRITE,
	BENCH_RELAY,
	BENCH_FLOOR,
	BENCH_EXT,
	BENCH_NR_IMPL,
};

static const char *const bench_names[] = {
	[BENCH_TRING_INLINE] = "tring_inline",
	[BENCH_TRING_RESERVE] = "tring_reserve",
	[BENCH_FTRACE_RESERVE] = "ftrace_reserve",
	[BENCH_FTRACE_WRITE] = "ftrace_write",
	[BENCH_RELAY] = "relay",
	[BENCH_FLOOR] = "floor",
	[BENCH_EXT] = "",	/* bench_ext's name */
};

struct bench_run {
	enum bench_impl impl;
	unsigned int payload;
	unsigned int events;
	bool all_cpus;
	bool reader;
	bool nested;
	unsigned int reps;
};

/* Per CPU, for one repetition. */
struct bench_cpu {
	struct hrtimer timer;
	struct task_struct *task;
	u64 ns;
	u8 *floor;		/* floor: scratch memory */
	unsigned long floor_pos;
};

static DEFINE_PER_CPU(struct bench_cpu, bench_pcpu);
DEFINE_MUTEX(tring_bench_lock);	/* one run or fill at a time */
static struct dentry *bench_dir;

/* The buffers of the run in progress. */
static struct tring_buffer *bench_tring;
static struct trace_buffer *bench_ftrace;
static struct rchan *bench_relay;
static u8 bench_payload[8 + BENCH_MAX_PAYLOAD] __aligned(8);

/* Another module's buffer, when one is registered (tring_bench_lock). */
static const struct tring_bench_ext *bench_ext;
static struct bench_run bench_cur;
static atomic_t bench_ready;
static bool bench_go;
static bool bench_stop_reader;
static u64 bench_result[3];	/* median, min, max */
static unsigned int bench_result_events;

static int bench_relay_start(struct rchan_buf *buf, void *subbuf,
			     void *prev_subbuf, size_t prev_padding)
{
	return 1;	/* always switch: overwrite, as the other buffers */
}

static struct dentry *bench_relay_create(const char *filename,
					 struct dentry *parent, umode_t mode,
					 struct rchan_buf *buf, int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int bench_relay_remove(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks bench_relay_cb = {
	.subbuf_start = bench_relay_start,
	.create_buf_file = bench_relay_create,
	.remove_buf_file = bench_relay_remove,
};

/* One event through implementation @impl. */
static __always_inline void bench_write(enum bench_impl impl,
					unsigned int len)
{
	struct ring_buffer_event *ev;
	struct bench_cpu *bc;
	struct tring_res res __uninitialized;

	switch (impl) {
	case BENCH_TRING_INLINE:
		trace_write_inline(bench_tring, BENCH_EVENT_ID, bench_payload,
				   len);
		break;
	case BENCH_TRING_RESERVE:
		if (!tring_reserve(bench_tring, BENCH_EVENT_ID, len, &res)) {
			memcpy(res.data, bench_payload, len);
			tring_commit(&res);
		}
		break;
	case BENCH_FTRACE_RESERVE:
		ev = ring_buffer_lock_reserve(bench_ftrace, len);
		if (ev) {
			memcpy(ring_buffer_event_data(ev), bench_payload, len);
			tring_rb_unlock_commit(bench_ftrace, ev);
		}
		break;
	case BENCH_FTRACE_WRITE:
		ring_buffer_write(bench_ftrace, len, bench_payload);
		break;
	case BENCH_RELAY:
		/* The record carries its timestamp, as the others do. */
		*(u64 *)bench_payload = ktime_get_mono_fast_ns();
		relay_write(bench_relay, bench_payload, 8 + len);
		break;
	case BENCH_FLOOR:
		preempt_disable_notrace();
		bc = this_cpu_ptr(&bench_pcpu);
		if (bc->floor_pos + 8 + len > BENCH_BUF_BYTES)
			bc->floor_pos = 0;
		*(u64 *)(bc->floor + bc->floor_pos) = ktime_get_mono_fast_ns();
		memcpy(bc->floor + bc->floor_pos + 8, bench_payload, len);
		bc->floor_pos += 8 + len;
		preempt_enable_notrace();
		break;
	default:
		break;
	}
}

/*
 * The mark of make bench's instruction counter (tools/testing/insn: a
 * QEMU plugin writes every vCPU's instruction counts when a guest runs
 * it): nopw 0x474e5254(%rax,%rax,1), a NOP otherwise. Around each loop,
 * so that the count between two marks is the loop's. Its tag, %rax, is
 * 0: the storm's runs (tags from 1) are told apart from these.
 */
static __always_inline void bench_insn_mark(void)
{
#ifdef CONFIG_X86_64
	asm volatile(".byte 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x54, 0x52, 0x4e, 0x47"
		     : : "a"(0UL) : "memory");
#endif
}

/*
 * One loop per implementation and payload size, so the compiler sees
 * the constant size it sees in real use (a probe writes a struct).
 */
#define BENCH_LOOP(impl, len)						\
static noinline u64 bench_loop_##impl##_##len(unsigned int n)		\
{									\
	u64 t0 = ktime_get_ns();					\
	unsigned int i;							\
									\
	bench_insn_mark();						\
	for (i = 0; i < n; i++)						\
		bench_write(impl, len);					\
	bench_insn_mark();						\
	return ktime_get_ns() - t0;					\
}

BENCH_LOOP(BENCH_TRING_INLINE, 8)
BENCH_LOOP(BENCH_TRING_INLINE, 64)
BENCH_LOOP(BENCH_TRING_INLINE, 256)
BENCH_LOOP(BENCH_TRING_RESERVE, 8)
BENCH_LOOP(BENCH_TRING_RESERVE, 64)
BENCH_LOOP(BENCH_TRING_RESERVE, 256)
BENCH_LOOP(BENCH_FTRACE_RESERVE, 8)
BENCH_LOOP(BENCH_FTRACE_RESERVE, 64)
BENCH_LOOP(BENCH_FTRACE_RESERVE, 256)
BENCH_LOOP(BENCH_FTRACE_WRITE, 8)
BENCH_LOOP(BENCH_FTRACE_WRITE, 64)
BENCH_LOOP(BENCH_FTRACE_WRITE, 256)
BENCH_LOOP(BENCH_RELAY, 8)
BENCH_LOOP(BENCH_RELAY, 64)
BENCH_LOOP(BENCH_RELAY, 256)
BENCH_LOOP(BENCH_FLOOR, 8)
BENCH_LOOP(BENCH_FLOOR, 64)
BENCH_LOOP(BENCH_FLOOR, 256)

/* The loops by implementation and payload size (8, 64, 256 bytes). */
static u64 (*const bench_loops[BENCH_NR_IMPL][3])(unsigned int) = {
	[BENCH_TRING_INLINE] = {
		bench_loop_BENCH_TRING_INLINE_8,
		bench_loop_BENCH_TRING_INLINE_64,
		bench_loop_BENCH_TRING_INLINE_256,
	},
	[BENCH_TRING_RESERVE] = {
		bench_loop_BENCH_TRING_RESERVE_8,
		bench_loop_BENCH_TRING_RESERVE_64,
		bench_loop_BENCH_TRING_RESERVE_256,
	},
	[BENCH_FTRACE_RESERVE] = {
		bench_loop_BENCH_FTRACE_RESERVE_8,
		bench_loop_BENCH_FTRACE_RESERVE_64,
		bench_loop_BENCH_FTRACE_RESERVE_256,
	},
	[BENCH_FTRACE_WRITE] = {
		bench_loop_BENCH_FTRACE_WRITE_8,
		bench_loop_BENCH_FTRACE_WRITE_64,
		bench_loop_BENCH_FTRACE_WRITE_256,
	},
	[BENCH_RELAY] = {
		bench_loop_BENCH_RELAY_8,
		bench_loop_BENCH_RELAY_64,
		bench_loop_BENCH_RELAY_256,
	},
	[BENCH_FLOOR] = {
		bench_loop_BENCH_FLOOR_8,
		bench_loop_BENCH_FLOOR_64,
		bench_loop_BENCH_FLOOR_256,
	},
};

static u64 bench_loop(enum bench_impl impl, unsigned int n, unsigned int len)
{
	if (impl == BENCH_EXT)
		return bench_ext->loop(n, len, bench_payload);
	return bench_loops[impl][len == 8 ? 0 : len == 64 ? 1 : 2](n);
}

static enum hrtimer_restart bench_timer(struct hrtimer *t)
{
	bench_write(bench_cur.impl, bench_cur.payload);
	hrtimer_forward_now(t, ns_to_ktime(BENCH_TIMER_NS));
	return HRTIMER_RESTART;
}

/* A writer kthread bound to its CPU: wait for the others, then time. */
static int bench_writer(void *arg)
{
	struct bench_cpu *bc = this_cpu_ptr(&bench_pcpu);

	if (bench_cur.nested)
		hrtimer_start(&bc->timer, ns_to_ktime(BENCH_TIMER_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	atomic_dec(&bench_ready);
	/*
	 * Spin for a simultaneous start, but yield: with a writer on every
	 * CPU and no preemption (PREEMPT_VOLUNTARY), the task that says go
	 * would never run.
	 */
	while (!READ_ONCE(bench_go))
		cond_resched();
	bc->ns = bench_loop(bench_cur.impl, bench_cur.events,
			    bench_cur.payload);
	if (bench_cur.nested)
		hrtimer_cancel(&bc->timer);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Drain one tring ring, if the CPU has one. */
static void bench_tring_drain(unsigned int cpu)
{
	struct tring_cpu *cb = tring_buffer_cpu(bench_tring, cpu);
	struct tring_subbuf sb;

	while (cb && !tring_cpu_get(cb, &sb))
		tring_cpu_put(cb, sb.seq, 1);
}

/* Drain whatever the writers produce, the way each buffer is read. */
static int bench_reader(void *arg)
{
	unsigned int cpu;

	while (!READ_ONCE(bench_stop_reader)) {
		for_each_online_cpu(cpu) {
			switch (bench_cur.impl) {
			case BENCH_TRING_INLINE:
			case BENCH_TRING_RESERVE:
				bench_tring_drain(cpu);
				break;
			case BENCH_FTRACE_RESERVE:
			case BENCH_FTRACE_WRITE:
				while (ring_buffer_consume(bench_ftrace, cpu, NULL, NULL))
					;
				break;
			case BENCH_RELAY:
				relay_subbufs_consumed(bench_relay, cpu, 1);
				break;
			default:
				break;
			}
		}
		cond_resched();
	}
	return 0;
}

static int bench_buffers_alloc(void)
{
	struct tring_buffer_attr attr = {
		.name = "bench",
		.subbuf_size = BENCH_SUBBUF,
		.subbuf_count = BENCH_BUF_BYTES / BENCH_SUBBUF,
		.flags = TRING_OVERWRITE,
	};
	unsigned int cpu;

	bench_tring = tring_buffer_create(&attr);
	if (IS_ERR(bench_tring)) {
		int ret = PTR_ERR(bench_tring);

		bench_tring = NULL;
		return ret;
	}
	bench_ftrace = ring_buffer_alloc(BENCH_BUF_BYTES, RB_FL_OVERWRITE);
	if (!bench_ftrace)
		return -ENOMEM;
	bench_relay = relay_open("relay", bench_dir, BENCH_SUBBUF,
				 BENCH_BUF_BYTES / BENCH_SUBBUF,
				 &bench_relay_cb, NULL);
	if (!bench_relay)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct bench_cpu *bc = per_cpu_ptr(&bench_pcpu, cpu);

		bc->floor = kvzalloc(BENCH_BUF_BYTES, GFP_KERNEL);
		if (!bc->floor)
			return -ENOMEM;
		hrtimer_init(&bc->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		bc->timer.function = bench_timer;
	}
	return 0;
}

static void bench_buffers_free(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(&bench_pcpu, cpu)->floor);
		per_cpu_ptr(&bench_pcpu, cpu)->floor = NULL;
	}
	if (bench_relay)
		relay_close(bench_relay);
	if (bench_ftrace)
		ring_buffer_free(bench_ftrace);
	if (bench_tring)
		tring_buffer_destroy(bench_tring);
	bench_relay = NULL;
	bench_ftrace = NULL;
	bench_tring = NULL;
}

/* One repetition: the writers on their CPUs; the slowest CPU's time. */
static int bench_once(u64 *ns)
{
	struct task_struct *reader = NULL;
	unsigned int cpu;
	int ret = 0;

	bench_go = false;
	bench_stop_reader = false;
	atomic_set(&bench_ready, 0);
	for_each_online_cpu(cpu) {
		struct bench_cpu *bc = per_cpu_ptr(&bench_pcpu, cpu);

		bc->task = NULL;
		if (!bench_cur.all_cpus && cpu)
			continue;
		bc->task = kthread_create_on_cpu(bench_writer, NULL, cpu,
						 "tring_bench/%u");
		if (IS_ERR(bc->task)) {
			ret = PTR_ERR(bc->task);
			bc->task = NULL;
			goto stop;
		}
		atomic_inc(&bench_ready);
	}
	if (bench_cur.reader) {
		reader = kthread_run(bench_reader, NULL, "tring_bench_reader");
		if (IS_ERR(reader)) {
			ret = PTR_ERR(reader);
			reader = NULL;
			goto stop;
		}
	}
	for_each_online_cpu(cpu)
		if (per_cpu_ptr(&bench_pcpu, cpu)->task)
			wake_up_process(per_cpu_ptr(&bench_pcpu, cpu)->task);
	while (atomic_read(&bench_ready))
		usleep_range(1000, 2000);
	WRITE_ONCE(bench_go, true);
stop:
	*ns = 0;
	for_each_online_cpu(cpu) {
		struct bench_cpu *bc = per_cpu_ptr(&bench_pcpu, cpu);

		if (!bc->task)
			continue;
		kthread_stop(bc->task);
		*ns = max(*ns, bc->ns);
	}
	WRITE_ONCE(bench_stop_reader, true);
	if (reader)
		kthread_stop(reader);
	return ret;
}

static int bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int bench_execute(void)
{
	u64 ns[BENCH_MAX_REPS];
	unsigned int i;
	int ret;

	/* Outside cpus_read_lock(): ring_buffer_alloc() takes it too. */
	ret = bench_buffers_alloc();
	if (ret)
		goto free;
	if (bench_cur.impl == BENCH_EXT) {
		ret = bench_ext->setup(BENCH_BUF_BYTES, BENCH_SUBBUF);
		if (ret)
			goto free;
	}
	cpus_read_lock();
	for (i = 0; i < bench_cur.reps && !ret; i++)
		ret = bench_once(&ns[i]);
	cpus_read_unlock();
	if (bench_cur.impl == BENCH_EXT)
		bench_ext->teardown();
	if (ret)
		goto free;
	sort(ns, bench_cur.reps, sizeof(ns[0]), bench_cmp, NULL);
	bench_result[0] = ns[bench_cur.reps / 2];
	bench_result[1] = ns[0];
	bench_result[2] = ns[bench_cur.reps - 1];
	bench_result_events = bench_cur.events;
free:
	bench_buffers_free();
	return ret;
}

/**
 * tring_bench_ext_register - offer another module's buffer to bench/run
 * @ext: the buffer and its callbacks; must stay valid until
 *	tring_bench_ext_unregister().
 *
 * Return: 0, or -EBUSY when another buffer is registered.
 */
int tring_bench_ext_register(const struct tring_bench_ext *ext)
{
	int ret = 0;

	mutex_lock(&tring_bench_lock);
	if (bench_ext)
		ret = -EBUSY;
	else
		bench_ext = ext;
	mutex_unlock(&tring_bench_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(tring_bench_ext_register);

/**
 * tring_bench_ext_unregister - withdraw a buffer tring_bench_ext_register()
 *	offered; waits for a run using it to end.
 * @ext: the buffer.
 */
void tring_bench_ext_unregister(const struct tring_bench_ext *ext)
{
	mutex_lock(&tring_bench_lock);
	if (bench_ext == ext)
		bench_ext = NULL;
	mutex_unlock(&tring_bench_lock);
}
EXPORT_SYMBOL_GPL(tring_bench_ext_unregister);

static int bench_parse(char *s, struct bench_run *r)
{
	char impl[24], cpus[8];
	unsigned int reader, nested;
	int i;

	if (sscanf(s, "%23s %u %u %7s %u %u %u", impl, &r->payload, &r->events,
		   cpus, &reader, &nested, &r->reps) != 7)
		return -EINVAL;
	if (bench_ext && !strcmp(impl, bench_ext->name))
		i = BENCH_EXT;
	else
		i = match_string(bench_names, BENCH_EXT, impl);
	if (i < 0)
		return i;
	r->impl = i;
	r->all_cpus = !strcmp(cpus, "all");
	if (!r->all_cpus && strcmp(cpus, "1"))
		return -EINVAL;
	r->reader = reader;
	r->nested = nested;
	/* Another module's buffer: its writers alone. */
	if (r->impl == BENCH_EXT && (r->reader || r->nested))
		return -EOPNOTSUPP;
	if ((r->payload != 8 && r->payload != 64 && r->payload != 256) ||
	    !r->events || !r->reps || r->reps > BENCH_MAX_REPS)
		return -EINVAL;
	return 0;
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char s[96];
	int ret;

	ret = tring_copy_cmd(s, sizeof(s), ubuf, count);
	if (ret)
		return ret;
	mutex_lock(&tring_bench_lock);
	ret = bench_parse(strim(s), &bench_cur);
	if (!ret)
		ret = bench_execute();
	mutex_unlock(&tring_bench_lock);
	return ret ? ret : count;
}

static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char s[160];
	u64 n;
	int len;

	mutex_lock(&tring_bench_lock);
	n = max(bench_result_events, 1U);
	len = scnprintf(s, sizeof(s),
			"ns_per_event %llu.%02llu min %llu.%02llu max %llu.%02llu events %u\n",
			div64_u64(bench_result[0], n),
			div64_u64(bench_result[0] * 100, n) % 100,
			div64_u64(bench_result[1], n),
			div64_u64(bench_result[1] * 100, n) % 100,
			div64_u64(bench_result[2], n),
			div64_u64(bench_result[2] * 100, n) % 100,
			bench_result_events);
	mutex_unlock(&tring_bench_lock);
	return simple_read_from_buffer(ubuf, count, ppos, s, len);
}

static const struct file_operations bench_run_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_run_read,
	.write	= bench_run_write,
	.llseek	= default_llseek,
};

static int __init tring_bench_init(void)
{
	struct dentry *root;
	unsigned int i;

	for (i = 0; i < sizeof(bench_payload); i++)
		bench_payload[i] = i;
	root = debugfs_lookup("tring", NULL);
	if (!root)
		return -ENODEV;
	bench_dir = debugfs_create_dir("bench", root);
	dput(root);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_run_fops);
	tring_bench_fill_init(bench_dir);
	return 0;
}

static void __exit tring_bench_exit(void)
{
	debugfs_remove(bench_dir);
}

module_init(tring_bench_init);
module_exit(tring_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: write-side benchmark against ftrace and relay");
