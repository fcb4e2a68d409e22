// SPDX-License-Identifier: GPL-2.0
/*
 * tring_test: the in-kernel stress test of the buffer core.
 *
 * Writing "<milliseconds>" to /sys/kernel/debug/tring/test/stress runs,
 * on every online CPU at once and for that long:
 *  - a kthread bound to the CPU writing events; every few events it
 *    holds a reservation open while it runs a chain of nested writers:
 *    a tasklet (softirq) whose reservation window raises an irq_work
 *    (hardirq) whose window sends the CPU an NMI, each writing an event
 *    between its own reserve and commit: four writers nested on one CPU;
 *  - a hardirq and a softirq hrtimer writing events;
 *  - IPIs (smp_call_function_single()) from the other CPUs' kthreads.
 * Every event is a struct tring_stress_payload with a per (cpu, context)
 * attempt number. A user-space reader drains the default buffer at the
 * same time; reading the file afterwards gives, per CPU and context, the
 * attempts, events written and events the buffer refused, so the reader
 * can prove that nothing was lost or duplicated beyond what was counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

#include <linux/tring.h>
#include "tring_test.h"
#include "tring_test_mod.h"

#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#define TRING_STRESS_HAVE_NMI	1
#else
#define TRING_STRESS_HAVE_NMI	0
#endif

#define TRING_STRESS_PERIOD_NS	(200 * NSEC_PER_USEC)
/* How long a nested writer waits for the interrupt it raised. */
#define TRING_STRESS_SPIN_NS	(20 * NSEC_PER_MSEC)

/*
 * Per-CPU state. Each (cpu, ctx) counter has one writer: the context ctx
 * on that CPU, and contexts of one kind do not nest with themselves.
 * @depth is changed in LIFO order by nested writers on the CPU.
 */
struct tring_stress_cpu {
	struct task_struct *task;
	struct hrtimer hard;
	struct hrtimer soft;
	struct tasklet_struct tasklet;
	struct irq_work work;
	u64 seq[TRING_STRESS_NR_CTX];
	u64 written[TRING_STRESS_NR_CTX];
	u64 failed[TRING_STRESS_NR_CTX];
	unsigned int depth;
	unsigned int max_depth;
	int nmi_expected;	/* self-NMIs sent and not yet handled */
	bool work_ran;
	bool tasklet_ran;
	bool nmi_ran;
};

static DEFINE_PER_CPU(struct tring_stress_cpu, tring_stress_pcpu);
static bool tring_stress_nmi_ok;
static u64 tring_stress_nmi_timeouts;

static void tring_stress_fill(struct tring_stress_payload *p, u64 seq,
			      unsigned int ctx, u16 len)
{
	u8 *tail = (u8 *)(p + 1);
	unsigned int i;

	p->seq = seq;
	p->cpu = smp_processor_id();
	p->ctx = ctx;
	p->data_len = len - sizeof(*p);
	p->check = tring_stress_check(seq, p->cpu, ctx, p->data_len);
	for (i = 0; i < p->data_len; i++)
		tail[i] = tring_test_byte(seq, i);
}

/* Spin in a reservation window until *@flag is set or time runs out. */
static bool tring_stress_spin(bool *flag)
{
	u64 end = ktime_get_mono_fast_ns() + TRING_STRESS_SPIN_NS;

	while (!READ_ONCE(*flag)) {
		if (ktime_get_mono_fast_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static void tring_stress_nested(struct tring_stress_cpu *sc, unsigned int ctx);

/* One event from context @ctx; @nest opens the next level inside it. */
static void tring_stress_write(struct tring_stress_cpu *sc, unsigned int ctx,
			       bool nest)
{
	u64 seq = sc->seq[ctx]++;
	u16 len = sizeof(struct tring_stress_payload) + (seq % 5) * 12;
	struct tring_buffer *buf;
	struct tring_res res __uninitialized;
	int ret = -ENODEV;

	/*
	 * A function to probe from every context, NMI included: a probe on
	 * it writes through tring's event path, contexts and all (the
	 * contexts' test in tring_context_test.sh).
	 */
	tring_test_probe_target(seq, ctx, "stress");
	preempt_disable_notrace();
	buf = tring_default_buffer();
	if (buf)
		ret = tring_reserve(buf, TRING_STRESS_EVENT_ID, len, &res);
	if (ret) {
		sc->failed[ctx]++;
		/* The chain still runs: its writers probe from each context. */
		if (nest)
			tring_stress_nested(sc, ctx);
		preempt_enable_notrace();
		return;
	}
	sc->depth++;
	sc->max_depth = max(sc->max_depth, sc->depth);
	tring_stress_fill(res.data, seq, ctx, len);
	if (nest)
		tring_stress_nested(sc, ctx);
	sc->depth--;
	tring_commit(&res);
	sc->written[ctx]++;
	preempt_enable_notrace();
}

/* Run the next context's writer inside the current reservation. */
static void tring_stress_nested(struct tring_stress_cpu *sc, unsigned int ctx)
{
	switch (ctx) {
	case TRING_STRESS_TASK:
		WRITE_ONCE(sc->tasklet_ran, false);
		local_bh_disable();
		tasklet_hi_schedule(&sc->tasklet);
		local_bh_enable();	/* runs the tasklet here */
		break;
	case TRING_STRESS_SOFTIRQ:
		WRITE_ONCE(sc->work_ran, false);
		irq_work_queue(&sc->work);
		tring_stress_spin(&sc->work_ran);
		break;
	case TRING_STRESS_HARDIRQ:
#if TRING_STRESS_HAVE_NMI
		if (!tring_stress_nmi_ok)
			break;
		WRITE_ONCE(sc->nmi_ran, false);
		WRITE_ONCE(sc->nmi_expected, sc->nmi_expected + 1);
		apic->send_IPI(smp_processor_id(), NMI_VECTOR);
		if (!tring_stress_spin(&sc->nmi_ran))
			tring_stress_nmi_timeouts++;
#endif
		break;
	}
}

static void tring_stress_tasklet(struct tasklet_struct *t)
{
	struct tring_stress_cpu *sc = from_tasklet(sc, t, tasklet);

	tring_stress_write(sc, TRING_STRESS_SOFTIRQ, true);
	WRITE_ONCE(sc->tasklet_ran, true);
}

static void tring_stress_work(struct irq_work *w)
{
	struct tring_stress_cpu *sc = container_of(w, struct tring_stress_cpu,
						   work);

	tring_stress_write(sc, TRING_STRESS_HARDIRQ, true);
	WRITE_ONCE(sc->work_ran, true);
}

#if TRING_STRESS_HAVE_NMI
static int tring_stress_nmi(unsigned int type, struct pt_regs *regs)
{
	struct tring_stress_cpu *sc = this_cpu_ptr(&tring_stress_pcpu);

	if (READ_ONCE(sc->nmi_expected) <= 0)
		return NMI_DONE;
	WRITE_ONCE(sc->nmi_expected, sc->nmi_expected - 1);
	tring_stress_write(sc, TRING_STRESS_NMI, false);
	WRITE_ONCE(sc->nmi_ran, true);
	return NMI_HANDLED;
}
#endif

static enum hrtimer_restart tring_stress_timer(struct hrtimer *t)
{
	struct tring_stress_cpu *sc = this_cpu_ptr(&tring_stress_pcpu);
	bool hard = t == &sc->hard;

	tring_stress_write(sc, hard ? TRING_STRESS_HARDIRQ : TRING_STRESS_SOFTIRQ,
			   false);
	hrtimer_forward_now(t, ns_to_ktime(TRING_STRESS_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void tring_stress_ipi(void *unused)
{
	tring_stress_write(this_cpu_ptr(&tring_stress_pcpu), TRING_STRESS_IPI,
			   false);
}

static int tring_stress_thread(void *arg)
{
	struct tring_stress_cpu *sc = this_cpu_ptr(&tring_stress_pcpu);
	unsigned long i = 0;
	unsigned int target;

	hrtimer_start(&sc->hard, ns_to_ktime(TRING_STRESS_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&sc->soft, ns_to_ktime(TRING_STRESS_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_SOFT);
	while (!kthread_should_stop()) {
		tring_stress_write(sc, TRING_STRESS_TASK, i % 16 == 0);
		if (i % 8 == 0) {
			target = cpumask_next(smp_processor_id(), cpu_online_mask);
			if (target >= nr_cpu_ids)
				target = cpumask_first(cpu_online_mask);
			if (target != smp_processor_id())
				smp_call_function_single(target, tring_stress_ipi,
							 NULL, 0);
		}
		if (++i % 64 == 0)
			cond_resched();
	}
	hrtimer_cancel(&sc->hard);
	hrtimer_cancel(&sc->soft);
	return 0;
}

static void tring_stress_noop(void *unused)
{
}

static void tring_stress_init_cpu(struct tring_stress_cpu *sc)
{
	memset(sc, 0, sizeof(*sc));
	hrtimer_init(&sc->hard, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	sc->hard.function = tring_stress_timer;
	hrtimer_init(&sc->soft, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	sc->soft.function = tring_stress_timer;
	tasklet_setup(&sc->tasklet, tring_stress_tasklet);
	sc->work = IRQ_WORK_INIT_HARD(tring_stress_work);
}

static void tring_stress_stop(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct tring_stress_cpu *sc = per_cpu_ptr(&tring_stress_pcpu, cpu);

		if (sc->task)
			kthread_stop(sc->task);
	}
	/* IPIs queued before this one to each CPU have run when it returns. */
	smp_call_function(tring_stress_noop, NULL, 1);
	for_each_online_cpu(cpu) {
		struct tring_stress_cpu *sc = per_cpu_ptr(&tring_stress_pcpu, cpu);

		irq_work_sync(&sc->work);
		tasklet_kill(&sc->tasklet);
	}
#if TRING_STRESS_HAVE_NMI
	if (tring_stress_nmi_ok)
		unregister_nmi_handler(NMI_LOCAL, "tring_stress");
#endif
}

/**
 * tring_stress_run - run the stress test on every online CPU
 * @ms: how long.
 *
 * Context: process; sleeps for @ms. Called with tring_test_lock held.
 * Return: 0 or -errno.
 */
int tring_stress_run(unsigned int ms)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	tring_stress_nmi_timeouts = 0;
	for_each_online_cpu(cpu)
		tring_stress_init_cpu(per_cpu_ptr(&tring_stress_pcpu, cpu));
#if TRING_STRESS_HAVE_NMI
	tring_stress_nmi_ok = !register_nmi_handler(NMI_LOCAL, tring_stress_nmi,
						    0, "tring_stress");
#endif
	for_each_online_cpu(cpu) {
		struct tring_stress_cpu *sc = per_cpu_ptr(&tring_stress_pcpu, cpu);

		sc->task = kthread_create_on_cpu(tring_stress_thread, NULL, cpu,
						 "tring_stress/%u");
		if (IS_ERR(sc->task)) {
			ret = PTR_ERR(sc->task);
			sc->task = NULL;
			break;
		}
	}
	if (!ret) {
		for_each_online_cpu(cpu)
			wake_up_process(per_cpu_ptr(&tring_stress_pcpu, cpu)->task);
		msleep(ms);
	}
	tring_stress_stop();
	cpus_read_unlock();
	return ret;
}

/**
 * tring_stress_show - report the last run
 * @m: the seq_file.
 *
 * One line per CPU and context: "cpu ctx attempts written failed", then
 * "max_depth cpu N" per CPU, "nmi 0|1" and "nmi_timeouts N".
 */
void tring_stress_show(struct seq_file *m)
{
	unsigned int cpu, ctx;

	for_each_possible_cpu(cpu) {
		struct tring_stress_cpu *sc = per_cpu_ptr(&tring_stress_pcpu, cpu);

		for (ctx = 0; ctx < TRING_STRESS_NR_CTX; ctx++)
			if (sc->seq[ctx])
				seq_printf(m, "%u %u %llu %llu %llu\n", cpu, ctx,
					   sc->seq[ctx], sc->written[ctx],
					   sc->failed[ctx]);
	}
	for_each_possible_cpu(cpu)
		seq_printf(m, "max_depth %u %u\n", cpu,
			   per_cpu_ptr(&tring_stress_pcpu, cpu)->max_depth);
	seq_printf(m, "nmi %d\n", tring_stress_nmi_ok);
	seq_printf(m, "nmi_timeouts %llu\n", tring_stress_nmi_timeouts);
}
