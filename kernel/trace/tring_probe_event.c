// SPDX-License-Identifier: GPL-2.0
/*
 * tring: dynamic probes as tring events, recorded by handlers of tring's.
 *
 * A definition written to kprobe_events (tring_probe_fs.c parses it with
 * tring_probe_parse()) becomes a struct tring_probe: a kprobe or
 * kretprobe registered disabled at once (so that an unknown symbol, an
 * offset inside an instruction or a blacklisted function is refused when
 * the line is written), and a generic event (tring_gen.h) with the
 * probe's field table, so that events/GROUP/EVENT/ has enable, format,
 * filter and id like every other event and the metadata, the bulk and
 * group enables, filters and tracking treat it as one. Its ->ops turn
 * the kprobe on and off. A line of uprobe_events becomes a uprobe or
 * uretprobe the same way, its own part in tring_probe_uprobe.c (which
 * registers it while its event is enabled).
 *
 * A hit of a direct definition (registers alone, struct tring_probe_def)
 * whose event has no filter is stored straight into the reservation
 * (tring_probe_direct()). Any other hit evaluates the definition's fetch
 * programs (tring_probe_eval()) into a per-CPU scratch record of the
 * kernel's layout, then hands it to tring_gen_record(), which runs the
 * event's filter on it and copies it into the buffer with
 * tring_reserve()/tring_commit(): the record, in both, is
 *
 *	s32 common_pid		current's pid (the thread's)
 *	u32 __probe_faults	bit i: argument i faulted (i >= 31: bit 31)
 *	u64 __probe_ip		or __probe_func, then __probe_ret_ip
 *	the arguments' fields, then their strings
 *
 * in the payload's order, so that a record with no string and no hole
 * between its fields is copied whole (struct tring_gen_event's flat).
 *
 * The scratch: one record of TRING_PROBE_REC bytes per CPU and per
 * context level (task, softirq, hardirq, NMI), with a busy flag each: a
 * hit that finds its level's record in use (a probe hit from inside
 * tring's own write path, or an NMI inside a kprobe handler: kprobes run
 * at NMI level) is counted as a loss of the CPU (too_big, the trace's
 * events_discarded) and not recorded. kprobes' own misses (a probe hit
 * inside a kprobe handler, a kretprobe out of instances) are added to
 * the same count at the next hit of the probe and when it is disabled.
 * Allocated with the first probe, freed at unload: 4 * TRING_PROBE_REC
 * bytes per possible CPU.
 *
 * Concurrency: tring_probes and every probe's life are under
 * tring_probe_lock (process context). A handler reads the probe, its
 * definition and its event, which live until the kprobe is unregistered
 * (which waits for running handlers; a uprobe's: until its event is off);
 * the scratch belongs to one CPU and level, with preemption off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tring_events.h"
#include "tring_filter.h"
#include "tring_gen.h"
#include "tring_gen_direct.h"
#include "tring_generic.h"
#include "tring_probe.h"
#include "tring_probe_event.h"
#include "tring_track.h"

/* Bytes before the definition's record: common_pid, __probe_faults. */
#define TRING_PROBE_HDR		8

/**
 * struct tring_probe_scratch - a CPU's records of hits being written
 * @busy: per context level, a hit of that level writes @rec[level]. Set
 *	and cleared by this CPU only, with preemption off; an interrupt of
 *	the writer sees it set (compiler barriers order it with @rec).
 * @rec: per context level, the record being made.
 */
struct tring_probe_scratch {
	u8 busy[4];
	u8 rec[4][TRING_PROBE_REC] __aligned(8);
};

static DEFINE_MUTEX(tring_probe_lock);
static LIST_HEAD(tring_probes);			/* tring_probe_lock */
static unsigned int tring_probe_count;		/* tring_probe_lock */
static struct tring_probe_scratch __percpu *tring_probe_scratch;

/*
 * A hit of a direct definition (struct tring_probe_def) while its event
 * has no filter: its record, the scratch's layout and the payload's alike
 * (struct tring_gen_event's flat), stored straight into the reservation
 * (after the contexts, if a set is in force). Return: false if the hit
 * must take the scratch's path instead.
 */
static bool tring_probe_direct(const struct tring_probe *p,
			       const struct tring_probe_ctx *ctx)
{
	struct tring_res res __uninitialized;
	int ret;
	s32 pid;

	preempt_disable_notrace();
	/* A uprobe's registers are the user's: no kernel stack from them. */
	ret = tring_gen_reserve_direct(p->ev, TRING_PROBE_HDR +
				       p->def->fixed_size, &res,
				       ctx->user ? NULL : ctx->regs);
	if (!ret) {
		pid = current->pid;
		memcpy(res.data, &pid, sizeof(pid));
		memset(res.data + sizeof(pid), 0, sizeof(u32));	/* no fault */
		tring_probe_eval_direct(p->def, ctx,
					res.data + TRING_PROBE_HDR);
		tring_commit(&res);
	}
	preempt_enable_notrace();
	return ret != -EAGAIN;
}

/*
 * tring_probe_hit()'s path through the CPU's scratch, out of line: its
 * frame is not the direct path's.
 */
static noinline void tring_probe_scratch_hit(struct tring_probe *p,
					     const struct tring_probe_ctx *ctx)
{
	struct tring_probe_scratch *s;
	unsigned int level, len;
	u32 faults = 0;
	s32 pid;
	u8 *rec;

	/* The scratch is this CPU's; the buffer is looked up in it too. */
	preempt_disable_notrace();
	s = this_cpu_ptr(tring_probe_scratch);
	level = interrupt_context_level();
	if (s->busy[level]) {
		tring_gen_lost(1);
		goto out;
	}
	s->busy[level] = 1;
	/* Set before the record is written: an interrupt here sees it. */
	barrier();
	rec = s->rec[level];
	len = tring_probe_eval(p->def, ctx, rec, TRING_PROBE_HDR,
			       TRING_PROBE_REC, &faults);
	pid = current->pid;
	memcpy(rec, &pid, sizeof(pid));
	memcpy(rec + 4, &faults, sizeof(faults));
	/* A uprobe's registers are the user's: no kernel stack from them. */
	tring_gen_record(p->ev, rec, TRING_PROBE_HDR + len,
			 ctx->user ? NULL : ctx->regs);
	/* The record is written before another hit of this level may. */
	barrier();
	s->busy[level] = 0;
out:
	preempt_enable_notrace();
}

/**
 * tring_probe_hit - record one hit of a probe
 * @p: the probe, whose handler runs.
 * @ctx: what its fetch programs read (the registers, the addresses).
 *
 * A direct definition's record is written straight into the buffer
 * (tring_probe_direct()) while its event has no filter; any other
 * record is made in this CPU's scratch of the context's level, then
 * written with tring_gen_record(). Any context, preemptible or not (a
 * uprobe's handler runs in the task, preemptible): preemption is off
 * from the buffer's or the scratch's look-up to the write.
 */
void tring_probe_hit(struct tring_probe *p, const struct tring_probe_ctx *ctx)
{
	if (tring_track_skip(current, NULL))
		return;
	if (p->def->direct && tring_probe_direct(p, ctx))
		return;
	tring_probe_scratch_hit(p, ctx);
}

/* The probe's own fields: the faults, the pid, its addresses. */
static int tring_probe_head_fields(struct tring_gen_event *ev,
				   const struct tring_probe_def *def)
{
	const unsigned int h = TRING_PROBE_HDR;
	bool ret = def->head_size == 16;

	return tring_gen_field_add(ev, "common_pid", 0, 4, TRING_GEN_INT,
				   true, false) ?:
	       tring_gen_field_add(ev, "__probe_faults", 4, 4, TRING_GEN_INT,
				   false, true) ?:
	       tring_gen_field_add(ev, ret ? "__probe_func" : "__probe_ip", h,
				   8, TRING_GEN_INT, false, true) ?:
	       (ret ? tring_gen_field_add(ev, "__probe_ret_ip", h + 8, 8,
					  TRING_GEN_INT, false, true) : 0);
}

/* @ev's field table from @def: the probe's own fields, then the args. */
static int tring_probe_fields(struct tring_gen_event *ev,
			      const struct tring_probe_def *def)
{
	const struct tring_probe_arg *a;
	unsigned int i;
	int ret;

	ret = tring_probe_head_fields(ev, def);
	for (i = 0; i < def->nr_args && !ret; i++) {
		a = &def->args[i];
		if (a->type->print == TRING_PROBE_PRINT_STRING)
			ret = tring_gen_field_add(ev, a->name,
						  TRING_PROBE_HDR + a->offset,
						  4, TRING_GEN_DSTR, false,
						  false);
		else
			ret = tring_gen_field_add(ev, a->name,
						  TRING_PROBE_HDR + a->offset,
						  a->size, TRING_GEN_INT,
						  a->type->is_signed,
						  a->type->print !=
						  TRING_PROBE_PRINT_DEC);
	}
	ret = ret ?: tring_gen_sizes(ev);
	/* A direct definition's record is its payload: tring_probe_direct(). */
	if (!ret && WARN_ON_ONCE(def->direct && !ev->flat))
		ret = -EINVAL;
	return ret;
}

/* A new, unlisted event for @p, or an ERR_PTR(). */
static struct tring_gen_event *tring_probe_new_event(struct tring_probe *p)
{
	const struct tring_probe_def *def = p->def;
	struct tring_gen_event *ev;
	int ret;

	ev = tring_gen_event_alloc(def->group, def->event,
				   tring_probe_user(def) ?
				   &tring_uprobe_gen_ops : tring_kprobe_ops(),
				   p, 4 + def->nr_args);
	if (IS_ERR(ev))
		return ev;
	ret = tring_probe_fields(ev, def);
	if (ret) {
		tring_gen_put(ev);
		return ERR_PTR(ret);
	}
	return ev;
}

/* ---- definitions ---- */

/* The probe named @group/@event (NULL group: any); tring_probe_lock. */
static struct tring_probe *tring_probe_find(const char *group,
					    const char *event)
{
	struct tring_probe *p;

	list_for_each_entry(p, &tring_probes, node)
		if (!strcmp(p->def->event, event) &&
		    (!group || !strcmp(p->def->group, group)))
			return p;
	return NULL;
}

/*
 * The definition as listed: the command with its group and event, then
 * the line from its target on (without a comment or trailing blanks).
 */
static char *tring_probe_text(const struct tring_probe_def *def,
			      const char *line)
{
	const char *rest = line + strspn(line, " \t");
	size_t len;

	rest += strcspn(rest, " \t");
	rest += strspn(rest, " \t");
	len = strcspn(rest, "#\n");
	while (len && (rest[len - 1] == ' ' || rest[len - 1] == '\t'))
		len--;
	if (def->kind == TRING_PROBE_KRETPROBE && def->maxactive)
		return kasprintf(GFP_KERNEL, "r%u:%s/%s %.*s", def->maxactive,
				 def->group, def->event, (int)len, rest);
	return kasprintf(GFP_KERNEL, "%c:%s/%s %.*s",
			 def->kind == TRING_PROBE_KRETPROBE ||
			 def->kind == TRING_PROBE_URETPROBE ? 'r' : 'p',
			 def->group, def->event, (int)len, rest);
}

static void tring_probe_free_one(struct tring_probe *p)
{
	if (tring_probe_user(p->def))
		tring_uprobe_release(p);
	tring_probe_free(p->def);
	kfree(p->text);
	kfree(p);
}

/* Registered, its event listed: then on tring_probes. */
static int tring_probe_make(struct tring_probe *p,
			    struct tring_probe_error *err)
{
	struct tring_gen_event *ev;
	int ret;

	if (tring_probe_user(p->def)) {
		ret = tring_uprobe_prepare(p, err);
	} else {
		ret = tring_kprobe_register(p);
		if (ret)
			err->msg = tring_kprobe_why(ret);
	}
	if (ret)
		return ret;
	ev = tring_probe_new_event(p);
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		err->msg = ret == -E2BIG ? "too many string arguments" :
			   "out of memory";
		goto unregister;
	}
	/* Ours, beside the list's (tring_gen_add() drops one if it fails). */
	kref_get(&ev->ref);
	ret = tring_gen_add(ev);
	if (ret) {
		tring_gen_put(ev);
		err->msg = ret == -EEXIST ? "an event of this name exists" :
			   ret == -ENODEV ? "no generic events (generic_events=0, or unloading)" :
			   "the event could not be made";
		goto unregister;
	}
	p->ev = ev;
	list_add_tail(&p->node, &tring_probes);
	tring_probe_count++;
	return 0;

unregister:
	tring_kprobe_unregister(p);
	return ret;
}

/* The per-CPU scratch, made with the first probe. */
static int tring_probe_scratch_get(void)
{
	if (tring_probe_scratch)
		return 0;
	tring_probe_scratch = alloc_percpu(struct tring_probe_scratch);
	return tring_probe_scratch ? 0 : -ENOMEM;
}

/* Add the probe @def defines; @def is the probe's from now on. */
static int tring_probe_add(struct tring_probe_def *def, const char *line,
			   struct tring_probe_error *err)
{
	struct tring_probe *p;
	int ret;

	lockdep_assert_held(&tring_probe_lock);
	if (tring_probe_count >= TRING_PROBE_MAX_PROBES) {
		err->msg = "too many probes";
		ret = -ENOSPC;
	} else if (tring_events_builtin(def->group, def->event) ||
		   tring_probe_find(def->group, def->event)) {
		err->msg = "an event of this name exists";
		ret = -EEXIST;
	} else {
		ret = tring_probe_scratch_get();
		err->msg = ret ? "out of memory" : NULL;
		ret = ret ?: tring_kprobe_resolve(def, err);
	}
	if (ret) {
		tring_probe_free(def);
		return ret;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (p) {
		p->def = def;
		p->text = tring_probe_text(def, line);
	}
	if (!p || !p->text) {
		err->msg = "out of memory";
		ret = -ENOMEM;
	} else {
		ret = tring_probe_make(p, err);
	}
	if (ret && p)
		tring_probe_free_one(p);
	else if (ret)
		tring_probe_free(def);
	return ret;
}

/* Remove every probe on @victims (taken off the list), as many at once. */
static void tring_probe_delete_list(struct list_head *victims)
{
	struct tring_probe *p, *tmp;
	unsigned int n = 0;

	list_for_each_entry(p, victims, node) {
		tring_gen_unlist(p->ev);
		n++;
	}
	if (!n)
		return;
	tring_probe_count -= n;
	if (!tring_kprobe_unregister_many(victims, n))
		list_for_each_entry(p, victims, node)
			tring_kprobe_unregister(p);
	list_for_each_entry_safe(p, tmp, victims, node) {
		list_del(&p->node);
		tring_gen_put(p->ev);
		tring_probe_free_one(p);
	}
}

/* Whether @p is named by removal @def ("-:[GRP/]EVENT", "-:GRP/"). */
static bool tring_probe_named(const struct tring_probe *p,
			      const struct tring_probe_def *def,
			      enum tring_probe_file file)
{
	if (!tring_probe_of(p, file))
		return false;
	if (def->group && strcmp(p->def->group, def->group))
		return false;
	return !def->event[0] || !strcmp(p->def->event, def->event);
}

/* Remove @file's probes @def names, none if one of them is enabled. */
static int tring_probe_remove(const struct tring_probe_def *def,
			      enum tring_probe_file file,
			      struct tring_probe_error *err)
{
	struct tring_probe *p, *tmp;
	LIST_HEAD(victims);
	unsigned int n = 0;

	list_for_each_entry(p, &tring_probes, node) {
		if (!tring_probe_named(p, def, file))
			continue;
		if (READ_ONCE(p->ev->on)) {
			err->msg = "the probe is enabled";
			return -EBUSY;
		}
		n++;
	}
	if (!n) {
		err->msg = "no such probe";
		return -ENOENT;
	}
	list_for_each_entry_safe(p, tmp, &tring_probes, node)
		if (tring_probe_named(p, def, file))
			list_move_tail(&p->node, &victims);
	tring_probe_delete_list(&victims);
	return 0;
}

/**
 * tring_probe_command - run one line written to kprobe_events or uprobe_events
 * @line: the line (NUL-terminated, without its newline).
 * @file: the file it was written to.
 * @err: where the error goes (a static message, and a position in @line).
 *
 * Defines a probe, or removes those of @file's kind a "-:" line names
 * (as ftrace's files, each removes its own kind only). Nothing changes
 * when it fails. Process context.
 *
 * Return: 0 (also for a blank line or a comment), or -errno with @err set.
 */
int tring_probe_command(const char *line, enum tring_probe_file file,
			struct tring_probe_error *err)
{
	struct tring_probe_def *def;
	int ret;

	def = tring_probe_parse(line, file, err);
	if (IS_ERR_OR_NULL(def))
		return PTR_ERR_OR_ZERO(def);
	/* A semantic error: at the line's second word, the target. */
	err->pos = strspn(line, " \t");
	err->pos += strcspn(line + err->pos, " \t");
	err->pos += strspn(line + err->pos, " \t");
	mutex_lock(&tring_probe_lock);
	if (def->kind == TRING_PROBE_REMOVE) {
		err->pos = 0;
		ret = tring_probe_remove(def, file, err);
		tring_probe_free(def);
	} else {
		ret = tring_probe_add(def, line, err);
	}
	mutex_unlock(&tring_probe_lock);
	return ret;
}

/**
 * tring_probe_clear - remove every probe of a file (opened with O_TRUNC)
 * @file: the file.
 *
 * Return: 0, or -EBUSY (nothing removed) if one of them is enabled.
 */
int tring_probe_clear(enum tring_probe_file file)
{
	struct tring_probe *p, *tmp;
	LIST_HEAD(victims);
	int ret = 0;

	mutex_lock(&tring_probe_lock);
	list_for_each_entry(p, &tring_probes, node)
		if (tring_probe_of(p, file) && READ_ONCE(p->ev->on))
			ret = -EBUSY;
	list_for_each_entry_safe(p, tmp, &tring_probes, node)
		if (!ret && tring_probe_of(p, file))
			list_move_tail(&p->node, &victims);
	tring_probe_delete_list(&victims);
	mutex_unlock(&tring_probe_lock);
	return ret;
}

/**
 * tring_probe_list - list a file's probes, one definition a line
 * @m: where.
 * @file: the file.
 */
void tring_probe_list(struct seq_file *m, enum tring_probe_file file)
{
	struct tring_probe *p;

	mutex_lock(&tring_probe_lock);
	list_for_each_entry(p, &tring_probes, node)
		if (tring_probe_of(p, file))
			seq_printf(m, "%s\n", p->text);
	mutex_unlock(&tring_probe_lock);
}

/**
 * tring_probe_exit_all - remove every probe and free the scratch
 *
 * At unload, once the files are gone, before the generic events are.
 */
void tring_probe_exit_all(void)
{
	LIST_HEAD(victims);

	mutex_lock(&tring_probe_lock);
	list_splice_init(&tring_probes, &victims);
	tring_probe_delete_list(&victims);
	mutex_unlock(&tring_probe_lock);
	free_percpu(tring_probe_scratch);
	tring_probe_scratch = NULL;
}
