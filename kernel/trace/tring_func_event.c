// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the event ftrace/function, recorded by an ftrace_ops of tring's.
 *
 * A generic event (tring_gen.h) with ops: events/ftrace/function/ has
 * enable, format, filter and id like every other event, and the bulk
 * and group enables, filters and tracking treat it as one. Its record
 * is two u64, in the kernel's function tracer's order:
 *
 *	u64 ip		the traced function's ftrace location
 *	u64 parent_ip	the return address into its caller
 *
 * tring_func.c hands over the set of functions (tring_func_tracer_set())
 * as a list of ftrace locations, which become the ops' filter at once,
 * registered or not. The ops is registered while the event is enabled
 * and the set is not empty: an ftrace_ops with an empty filter would
 * trace every function, so an empty set records nothing, enabled or not.
 *
 * The callback: ftrace's recursion guard (a hit inside the callback's
 * own path, tring's write path included, is dropped; it also disables
 * preemption), nothing where RCU does not watch (the default buffer is
 * freed a grace period after it is replaced), the tracking check, then
 * the 16-byte record, made on the stack, through tring_gen_record(),
 * which runs the event's filter and reserves, copies and commits. This
 * file is built without the function tracer's hooks (Kbuild).
 *
 * Concurrency: tring_func_ops_lock serializes the ops' filter, its
 * registration and the state below; it nests inside tring_func.c's lock
 * and inside tring_gen_enable_lock (->on and ->off), never around them.
 * The callback reads only the event, which outlives the ops'
 * registration: unregister_ftrace_function() returns once no callback
 * runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>

#include "tring_func.h"
#include "tring_gen.h"
#include "tring_gen_direct.h"
#include "tring_track.h"

/**
 * struct tring_func_tracer - the ftrace_ops and what it records
 * @ops: registered while @on and @nr (tring_func_ops_lock).
 * @ev: the event; set before @ops is first registered, never changed.
 * @nr: functions in @ops' filter.
 * @on: the event is enabled.
 * @registered: @ops is registered.
 */
struct tring_func_tracer {
	struct ftrace_ops ops;
	struct tring_gen_event *ev;
	unsigned int nr;
	bool on;
	bool registered;
};

static DEFINE_MUTEX(tring_func_ops_lock);

/* Store @v at @p: records are 4-byte aligned; one move on x86. */
static __always_inline void tring_func_put(void *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * The record {ip, parent_ip} straight into the buffer while the event has
 * no filter (tring_gen_reserve_direct()); preemption is off, by
 * ftrace_test_recursion_trylock() on both kernels. No array on the
 * stack: the hit pays no stack canary. Return: false if it must go
 * through tring_gen_record() instead.
 */
static __always_inline bool tring_func_direct(const struct tring_gen_event *ev,
					      unsigned long ip,
					      unsigned long parent_ip)
{
	struct tring_res res __uninitialized;
	int ret;

	ret = tring_gen_reserve_direct(ev, 2 * sizeof(u64), &res, NULL);
	if (!ret) {
		tring_func_put(res.data, ip);
		tring_func_put(res.data + sizeof(u64), parent_ip);
		tring_commit(&res);
	}
	return ret != -EAGAIN;
}

/* The event's filter first: the record made on the stack, then written. */
static noinline void tring_func_record(const struct tring_gen_event *ev,
				       unsigned long ip,
				       unsigned long parent_ip)
{
	u64 rec[2] = { ip, parent_ip };

	tring_gen_record(ev, (const u8 *)rec, sizeof(rec), NULL);
}

static void tring_func_call(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct tring_func_tracer *t;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	if (likely(rcu_is_watching()) && !tring_track_skip(current, NULL)) {
		t = container_of(op, struct tring_func_tracer, ops);
		if (!tring_func_direct(t->ev, ip, parent_ip))
			tring_func_record(t->ev, ip, parent_ip);
	}
	ftrace_test_recursion_unlock(bit);
}

static struct tring_func_tracer tring_func_tracer = {
	.ops = {
		.func = tring_func_call,
	},
};

/* Register or unregister the ops as @t's state says; the lock held. */
static int tring_func_sync(struct tring_func_tracer *t)
{
	bool want = t->on && t->nr;
	int ret;

	lockdep_assert_held(&tring_func_ops_lock);
	if (want == t->registered)
		return 0;
	if (want) {
		ret = register_ftrace_function(&t->ops);
		if (ret)
			return ret;
	} else {
		/* Returns once no callback runs. */
		unregister_ftrace_function(&t->ops);
	}
	t->registered = want;
	return 0;
}

/**
 * tring_func_tracer_set - the functions the ops traces from now on
 * @ips: their ftrace locations (ftrace refuses any other address).
 * @nr: their number; 0: none, the ops is unregistered.
 *
 * The filter is replaced at once (ftrace swaps it also while the ops is
 * registered); the ops is registered if the event is enabled and @nr is
 * not 0. Process context.
 *
 * Return: 0, or -errno with the ops registered as it was (unregistered
 * if it was not: then its filter no longer matters, it is set again
 * before the ops is registered).
 */
int tring_func_tracer_set(const unsigned long *ips, unsigned int nr)
{
	struct tring_func_tracer *t = &tring_func_tracer;
	int ret = 0;

	mutex_lock(&tring_func_ops_lock);
	if (!nr) {
		/* Unregistered first: an empty filter traces everything. */
		t->nr = 0;
		tring_func_sync(t);
		/* Only frees the old filter: a failure is no harm. */
		ftrace_set_filter_ips(&t->ops, NULL, 0, 0, 1);
	} else {
		/* ftrace does not change @ips: its prototype is older. */
		ret = ftrace_set_filter_ips(&t->ops, (unsigned long *)ips, nr,
					    0, 1);
		if (!ret && !t->registered) {
			t->nr = nr;
			ret = tring_func_sync(t);
			if (ret)
				t->nr = 0;
		} else if (!ret) {
			t->nr = nr;
		}
	}
	mutex_unlock(&tring_func_ops_lock);
	return ret;
}

static int tring_func_on(struct tring_gen_event *ev)
{
	struct tring_func_tracer *t = ev->priv;
	int ret;

	mutex_lock(&tring_func_ops_lock);
	t->on = true;
	ret = tring_func_sync(t);
	if (ret)
		t->on = false;
	mutex_unlock(&tring_func_ops_lock);
	return ret;
}

static void tring_func_off(struct tring_gen_event *ev)
{
	struct tring_func_tracer *t = ev->priv;

	mutex_lock(&tring_func_ops_lock);
	t->on = false;
	/* Unregistering cannot fail. */
	tring_func_sync(t);
	mutex_unlock(&tring_func_ops_lock);
}

/**
 * tring_func_tracer_show - the ops' state, for the event's format file
 * @m: where.
 */
void tring_func_tracer_show(struct seq_file *m)
{
	struct tring_func_tracer *t = &tring_func_tracer;

	mutex_lock(&tring_func_ops_lock);
	seq_printf(m, "functions: %u (the functions file)\nregistered: %s\n",
		   t->nr, t->registered ? "yes" : "no");
	mutex_unlock(&tring_func_ops_lock);
}

static void tring_func_show(struct seq_file *m,
			    const struct tring_gen_event *ev)
{
	tring_func_tracer_show(m);
}

static const struct tring_gen_ops tring_func_gen_ops = {
	.on = tring_func_on,
	.off = tring_func_off,
	.show = tring_func_show,
	.ctf_decl = tring_func_ctf_decl,
	.ctf_field = tring_func_ctf_field,
};

/**
 * tring_func_field_add - the next field of a function event
 * @ev: the event being made, @ev->fields long enough.
 * @name: the field's name.
 * @src: its offset in the record.
 * @is_signed: a signed u64 in decimal; else in hexadecimal (an address).
 *
 * Return: 0, or -ENOMEM.
 */
int tring_func_field_add(struct tring_gen_event *ev, const char *name,
			 unsigned int src, bool is_signed)
{
	return tring_gen_field_add(ev, name, src, 8, TRING_GEN_INT,
				   is_signed, !is_signed);
}

/**
 * tring_func_event_new - the event ftrace/function, not listed yet
 *
 * Return: the event, with one reference and ->gone set (for
 * tring_gen_add()), or an ERR_PTR().
 */
struct tring_gen_event *tring_func_event_new(void)
{
	struct tring_gen_event *ev;
	int ret;

	ev = tring_gen_event_alloc("ftrace", "function", &tring_func_gen_ops,
				   &tring_func_tracer, 2);
	if (IS_ERR(ev))
		return ev;
	ret = tring_func_field_add(ev, "ip", 0, false) ?:
	      tring_func_field_add(ev, "parent_ip", 8, false) ?:
	      tring_gen_sizes(ev);
	if (ret) {
		tring_gen_put(ev);
		return ERR_PTR(ret);
	}
	tring_func_tracer.ev = ev;
	return ev;
}

/**
 * tring_func_event_free - the ops' filter freed, once the event is off
 * @ev: the event, unlisted (tring_gen_unlist(): disabled, so the ops is
 *	not registered); the caller's reference is dropped.
 */
void tring_func_event_free(struct tring_gen_event *ev)
{
	struct tring_func_tracer *t = &tring_func_tracer;

	mutex_lock(&tring_func_ops_lock);
	WARN_ON_ONCE(t->registered);
	ftrace_free_filter(&t->ops);
	t->nr = 0;
	mutex_unlock(&tring_func_ops_lock);
	tring_gen_put(ev);
}
