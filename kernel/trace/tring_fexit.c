// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the event ftrace/function_exit, recorded by an fprobe of
 * tring's on the functions of the functions file (tring_func.c). Built
 * only where the kernel has fprobe with the handlers of 6.2 to 6.13
 * (struct pt_regs, rethook): Kbuild defines TRING_HAVE_FPROBE then
 * (Debian's 6.12; Debian's 6.1 has no CONFIG_FPROBE, and no such event).
 *
 * A generic event with ops (tring_gen.h), like ftrace/function; its
 * record is three u64:
 *
 *	u64 ip		the function's ftrace location (the entry's ip)
 *	u64 parent_ip	the return address into its caller
 *	u64 retval	the return value register, signed (an int's value
 *			is in its low 32 bits)
 *
 * ip and parent_ip have the type tring_function_t of the metadata, the
 * enumeration that names the traced functions, shared with
 * ftrace/function (written once, TRING_GEN_CTF_FUNCTION).
 *
 * An fprobe is registered with register_fprobe_ips() on the set's
 * ftrace locations while the event is enabled and the set is not
 * empty. fprobe takes its addresses only when registered: a set that
 * changes while it is registered unregisters it and registers another
 * on the new set (calls in progress then return unrecorded). Each
 * registration has its own struct fprobe, allocated for it and freed a
 * grace period after unregister_fprobe(): 6.12's unregister_fprobe()
 * frees the filter of the ops inside without resetting it, so the same
 * fprobe registered again would free it twice. Its rethook nodes, one
 * per call in progress, are bounded by tring_fexit_active().
 *
 * The exit handler runs from the rethook trampoline, preemption off,
 * inside fprobe's ftrace recursion guard (taken on the entry's ip:
 * a hit inside the handler's own path is dropped and counted in
 * fp->nmissed). Like ftrace/function's callback it records nothing
 * where RCU does not watch and checks tracking, then hands the 24-byte
 * record, made on the stack, to tring_gen_record(). This file is built
 * without the function tracer's hooks (Kbuild).
 *
 * Misses: fprobe counts in fp->nmissed the calls it could not follow (no
 * free rethook node, recursion). The handler, and the disable and the
 * re-registration, add what is new since the last report to the trace's
 * losses (tring_gen_lost()). Those count until the fprobe is disabled
 * (disable_fprobe()), just before unregister_fprobe(): a call entered
 * or returning while it unregisters is neither recorded nor counted.
 *
 * Concurrency: tring_fexit_lock serializes the registration, the set
 * (@ips, @nr) and the state of struct tring_fexit; it nests inside
 * tring_func.c's lock and inside tring_gen_enable_lock, never around
 * them. The handler reads only its struct tring_fexit_probe: @ev, set
 * before registration, and @fp.nmissed and @reported: @reported only
 * moves forward, by cmpxchg (each miss is reported once, by whoever
 * moves it); the last misses are reported once the fprobe is disabled,
 * before unregister_fprobe(), which returns once no handler runs (they
 * run with preemption off: the grace period before the probe is freed
 * also covers one that read the rethook's handler before its stop).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fprobe.h>
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tring_func.h"
#include "tring_gen.h"
#include "tring_track.h"

/*
 * Calls in progress followed at once, all CPUs together: at least this
 * many per CPU (a function that sleeps holds one per task asleep in it),
 * at most TRING_FEXIT_ACTIVE_MAX (unless the CPUs' minimum is more).
 */
#define TRING_FEXIT_ACTIVE_CPU	64
#define TRING_FEXIT_ACTIVE_MAX	8192

/**
 * struct tring_fexit_probe - one registration of the fprobe
 * @fp: the fprobe.
 * @ev: the event it records.
 * @reported: the part of @fp.nmissed already counted as lost.
 * @rcu: frees it after the handlers that may still run.
 */
struct tring_fexit_probe {
	struct fprobe fp;
	struct tring_gen_event *ev;
	unsigned long reported;
	struct rcu_head rcu;
};

/**
 * struct tring_fexit - the event's state
 * @probe: the fprobe registered, while @on and @nr; NULL if none.
 * @ev: the event; set before it is listed, never changed.
 * @ips: the set's ftrace locations, tring_func.c's, alive until it
 *	hands over the next set (tring_fexit_set()).
 * @nr: entries in @ips.
 * @on: the event is enabled.
 *
 * All under tring_fexit_lock.
 */
struct tring_fexit {
	struct tring_fexit_probe *probe;
	struct tring_gen_event *ev;
	const unsigned long *ips;
	unsigned int nr;
	bool on;
};

static DEFINE_MUTEX(tring_fexit_lock);

/* Count fprobe's misses not counted yet into the losses. Any context. */
static void tring_fexit_missed(struct tring_fexit_probe *p)
{
	unsigned long old = READ_ONCE(p->reported);
	unsigned long seen = READ_ONCE(p->fp.nmissed);

	/* fprobe's count is a plain ++: it may go back a little. */
	while ((long)(seen - old) > 0) {
		if (try_cmpxchg(&p->reported, &old, seen)) {
			tring_gen_lost(seen - old);
			return;
		}
	}
}

static void tring_fexit_call(struct fprobe *fp, unsigned long entry_ip,
			     unsigned long ret_ip, struct pt_regs *regs,
			     void *entry_data)
{
	struct tring_fexit_probe *p;
	u64 rec[3];

	p = container_of(fp, struct tring_fexit_probe, fp);
	if (unlikely(READ_ONCE(fp->nmissed) != READ_ONCE(p->reported)))
		tring_fexit_missed(p);
	if (unlikely(!rcu_is_watching()) || tring_track_skip(current, NULL))
		return;
	rec[0] = entry_ip;
	rec[1] = ret_ip;
	rec[2] = regs_return_value(regs);
	tring_gen_record(p->ev, (const u8 *)rec, sizeof(rec), regs);
}

static struct tring_fexit tring_fexit;

/* Rethook nodes for @nr functions: fprobe's default, bounded. */
static int tring_fexit_active(unsigned int nr)
{
	unsigned long cpus = num_possible_cpus();
	unsigned long lo = TRING_FEXIT_ACTIVE_CPU * cpus;
	unsigned long hi = max(TRING_FEXIT_ACTIVE_MAX, lo);

	return clamp((unsigned long)nr * 2 * cpus, lo, hi);
}

/* Unregister the fprobe, count its last misses, free it; the lock held. */
static void tring_fexit_unregister(struct tring_fexit *t)
{
	struct tring_fexit_probe *p = t->probe;

	lockdep_assert_held(&tring_fexit_lock);
	/*
	 * Disabled first: unregister_fprobe() stops the rethook before the
	 * ftrace_ops, and fprobe counts as missed every call entered in
	 * between; disabled, fprobe ignores them (and pending returns).
	 */
	disable_fprobe(&p->fp);
	tring_fexit_missed(p);
	/* Returns once no handler runs. */
	unregister_fprobe(&p->fp);
	t->probe = NULL;
	kfree_rcu(p, rcu);
}

/* Register a new fprobe on the set; the lock held. */
static int tring_fexit_register(struct tring_fexit *t)
{
	struct tring_fexit_probe *p;
	int ret;

	lockdep_assert_held(&tring_fexit_lock);
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->ev = t->ev;
	p->fp.exit_handler = tring_fexit_call;
	p->fp.nr_maxactive = tring_fexit_active(t->nr);
	/* fprobe does not change the addresses: its prototype is older. */
	ret = register_fprobe_ips(&p->fp, (unsigned long *)t->ips, t->nr);
	if (ret) {
		/* fprobe freed what it had made; never registered. */
		kfree(p);
		return ret;
	}
	t->probe = p;
	return 0;
}

/*
 * Register, unregister or (@again) re-register the fprobe as @t's state
 * says; the lock held.
 */
static int tring_fexit_sync(struct tring_fexit *t, bool again)
{
	bool want = t->on && t->nr;

	lockdep_assert_held(&tring_fexit_lock);
	if (t->probe && (again || !want))
		tring_fexit_unregister(t);
	if (!want || t->probe)
		return 0;
	return tring_fexit_register(t);
}

/**
 * tring_fexit_set - the functions the exit probe follows from now on
 * @ips: their ftrace locations, in the caller's set; read until the next
 *	call hands over another set.
 * @nr: their number; 0: none, the fprobe is unregistered.
 *
 * While registered the fprobe is registered again on @ips (calls in
 * progress return unrecorded); registered if the event is enabled and
 * @nr is not 0. Process context.
 *
 * Return: 0, or -errno with the fprobe unregistered (@ips kept: the
 * next call or enable tries again).
 */
int tring_fexit_set(const unsigned long *ips, unsigned int nr)
{
	struct tring_fexit *t = &tring_fexit;
	int ret;

	mutex_lock(&tring_fexit_lock);
	t->ips = ips;
	t->nr = ips ? nr : 0;
	ret = tring_fexit_sync(t, true);
	mutex_unlock(&tring_fexit_lock);
	return ret;
}

static int tring_fexit_on(struct tring_gen_event *ev)
{
	struct tring_fexit *t = ev->priv;
	int ret;

	mutex_lock(&tring_fexit_lock);
	t->on = true;
	ret = tring_fexit_sync(t, false);
	if (ret)
		t->on = false;
	mutex_unlock(&tring_fexit_lock);
	return ret;
}

static void tring_fexit_off(struct tring_gen_event *ev)
{
	struct tring_fexit *t = ev->priv;

	mutex_lock(&tring_fexit_lock);
	t->on = false;
	/* Unregistering cannot fail. */
	tring_fexit_sync(t, false);
	mutex_unlock(&tring_fexit_lock);
}

static void tring_fexit_show(struct seq_file *m,
			     const struct tring_gen_event *ev)
{
	struct tring_fexit *t = ev->priv;

	mutex_lock(&tring_fexit_lock);
	seq_printf(m, "functions: %u (the functions file)\nregistered: %s\n",
		   t->nr, t->probe ? "yes" : "no");
	if (t->probe)
		seq_printf(m, "maxactive: %d\nmissed: %lu\n",
			   t->probe->fp.nr_maxactive,
			   READ_ONCE(t->probe->fp.nmissed));
	mutex_unlock(&tring_fexit_lock);
}

/* ip and parent_ip name the function (tring_function_t), retval not. */
static bool tring_fexit_ctf_field(struct seq_file *m,
				  const struct tring_gen_event *ev,
				  unsigned int i)
{
	return i < 2 && tring_func_ctf_field(m, ev, i);
}

static const struct tring_gen_ops tring_fexit_gen_ops = {
	.on = tring_fexit_on,
	.off = tring_fexit_off,
	.show = tring_fexit_show,
	.ctf_decl = tring_func_ctf_decl,
	.ctf_field = tring_fexit_ctf_field,
};

/**
 * tring_fexit_event_new - the event ftrace/function_exit, not listed yet
 *
 * Return: the event, with one reference and ->gone set (for
 * tring_gen_add()), or an ERR_PTR().
 */
struct tring_gen_event *tring_fexit_event_new(void)
{
	struct tring_gen_event *ev;
	int ret;

	ev = tring_gen_event_alloc("ftrace", "function_exit",
				   &tring_fexit_gen_ops, &tring_fexit, 3);
	if (IS_ERR(ev))
		return ev;
	ret = tring_func_field_add(ev, "ip", 0, false) ?:
	      tring_func_field_add(ev, "parent_ip", 8, false) ?:
	      tring_func_field_add(ev, "retval", 16, true) ?:
	      tring_gen_sizes(ev);
	if (ret) {
		tring_gen_put(ev);
		return ERR_PTR(ret);
	}
	tring_fexit.ev = ev;
	return ev;
}

/**
 * tring_fexit_event_free - drop the set, once the event is off
 * @ev: the event, unlisted (tring_gen_unlist(): disabled, so the fprobe
 *	is not registered); the caller's reference is dropped.
 */
void tring_fexit_event_free(struct tring_gen_event *ev)
{
	struct tring_fexit *t = &tring_fexit;

	mutex_lock(&tring_fexit_lock);
	WARN_ON_ONCE(t->probe);
	t->ips = NULL;
	t->nr = 0;
	mutex_unlock(&tring_fexit_lock);
	tring_gen_put(ev);
}
