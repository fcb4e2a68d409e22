// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the kprobes and kretprobes of dynamic probes (kprobe_events):
 * registered disabled when a line defines them, switched by their
 * event's enable (tring_kprobe_gen_ops), unregistered many at once when
 * removed. Their handlers record through tring_probe_hit()
 * (tring_probe_event.c). A kprobe's own misses (a hit inside another
 * kprobe's handler; a kretprobe out of instances for MAXACTIVE) are added
 * to the CPU's losses at the probe's next hit and when it is disabled.
 *
 * Concurrency: registration and unregistration under the probes' lock
 * (tring_probe_event.c); enable and disable under tring_gen_enable_lock;
 * the handlers run in any context (a kprobe's at NMI level, from int3)
 * and read the probe, which outlives its registration.
 * @missed_seen only grows, by cmpxchg, whichever handler counts first.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "tring_gen.h"
#include "tring_probe.h"
#include "tring_probe_event.h"

/* kprobes' misses of @p not counted yet: counted now, on this CPU. */
static void tring_kprobe_missed(struct tring_probe *p)
{
	unsigned long m = READ_ONCE(p->rp.kp.nmissed) +
			  READ_ONCE(p->rp.nmissed);
	unsigned long seen = atomic_long_read(&p->missed_seen);

	if (m != seen && atomic_long_try_cmpxchg(&p->missed_seen, &seen, m))
		tring_gen_lost(m - seen);
}

static int tring_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct tring_probe *p = container_of(kp, struct tring_probe, rp.kp);
	struct tring_probe_ctx ctx = {
		.regs = regs, .ip = (unsigned long)kp->addr,
	};

	tring_kprobe_missed(p);
	tring_probe_hit(p, &ctx);
	return 0;
}

static int tring_kretprobe_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct tring_probe *p;
	struct tring_probe_ctx ctx = { .regs = regs };

	if (unlikely(!rp))
		return 0;
	p = container_of(rp, struct tring_probe, rp);
	ctx.ip = (unsigned long)rp->kp.addr;
	ctx.ret_ip = get_kretprobe_retaddr(ri);
	tring_kprobe_missed(p);
	tring_probe_hit(p, &ctx);
	return 0;
}

static int tring_kprobe_on(struct tring_gen_event *ev)
{
	struct tring_probe *p = ev->priv;

	atomic_long_set(&p->missed_seen, READ_ONCE(p->rp.kp.nmissed) +
			READ_ONCE(p->rp.nmissed));
	return enable_kprobe(&p->rp.kp);
}

static void tring_kprobe_off(struct tring_gen_event *ev)
{
	struct tring_probe *p = ev->priv;

	disable_kprobe(&p->rp.kp);
	tring_kprobe_missed(p);
}

static void tring_kprobe_show(struct seq_file *m,
			      const struct tring_gen_event *ev)
{
	const struct tring_probe *p = ev->priv;

	/* Gone: its module was unloaded; kprobes never arms it again. */
	seq_printf(m, "probe: %s\nstate: %s\nmissed: %lu\n", p->text,
		   READ_ONCE(p->rp.kp.flags) & KPROBE_FLAG_GONE ?
		   "gone (its code was unloaded)" :
		   ev->on ? "enabled" : "disabled",
		   READ_ONCE(p->rp.kp.nmissed) + READ_ONCE(p->rp.nmissed));
}

/* The event of a kprobe or kretprobe: it switches the probe. */
const struct tring_gen_ops tring_kprobe_gen_ops = {
	.on = tring_kprobe_on,
	.off = tring_kprobe_off,
	.show = tring_kprobe_show,
};

/*
 * The address of kernel symbol @name ("MOD:SYM" too), 0 if none. The
 * kernel exports no name look-up since 5.7; kprobes looks the name up
 * first when a probe is registered, and keeps the address in the probe
 * also when it then refuses it (data is not text): a probe is
 * registered to learn it, and unregistered at once if it was accepted.
 */
static unsigned long tring_probe_lookup(const char *name)
{
	struct kprobe kp = { .symbol_name = name,
			     .flags = KPROBE_FLAG_DISABLED };

	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	return (unsigned long)kp.addr;
}

/**
 * tring_kprobe_resolve - make @SYM operands addresses
 * @def: a new definition (not yet shared): its SYMBOL ops become IMM.
 * @err: the error, if a symbol is unknown.
 *
 * Return: 0, or -ENOENT.
 */
int tring_kprobe_resolve(struct tring_probe_def *def,
			 struct tring_probe_error *err)
{
	struct tring_probe_op *op = (struct tring_probe_op *)def->ops;
	unsigned long addr;
	unsigned int i;

	for (i = 0; i < def->nr_ops; i++, op++) {
		if (op->code != TRING_PROBE_OP_SYMBOL)
			continue;
		addr = tring_probe_lookup(def->chars + op->param);
		if (!addr) {
			err->msg = "unknown symbol in a fetch argument";
			return -ENOENT;
		}
		op->code = TRING_PROBE_OP_IMM;
		op->imm += addr;
	}
	return 0;
}

/**
 * tring_kprobe_why - why kprobes refused a probe, for the user
 * @ret: tring_kprobe_register()'s error.
 *
 * Return: a static message.
 */
const char *tring_kprobe_why(int ret)
{
	switch (ret) {
	case -ENOENT:
		return "unknown symbol";
	case -EILSEQ:
		return "not at an instruction boundary";
	case -EINVAL:
		return "cannot be probed (kprobe blacklist, notrace, not text)";
	case -EPERM:
		return "tring's own code cannot be probed";
	case -ENOMEM:
		return "out of memory";
	}
	return "kprobes refused the probe";
}

/**
 * tring_kprobe_register - register a probe's kprobe or kretprobe, disabled
 * @p: the probe, of a kprobe definition.
 *
 * Return: 0, -EPERM for tring's own code, or kprobes' error.
 */
int tring_kprobe_register(struct tring_probe *p)
{
	const struct tring_probe_def *def = p->def;
	struct kprobe *kp = &p->rp.kp;
	bool ret_probe = def->kind == TRING_PROBE_KRETPROBE;
	int ret;

	if (def->symbol) {
		kp->symbol_name = def->symbol;
		kp->offset = def->offset;
	} else {
		kp->addr = (kprobe_opcode_t *)def->addr;
	}
	kp->flags = KPROBE_FLAG_DISABLED;
	if (ret_probe) {
		p->rp.handler = tring_kretprobe_ret;
		p->rp.maxactive = def->maxactive;
		ret = register_kretprobe(&p->rp);
	} else {
		kp->pre_handler = tring_kprobe_pre;
		ret = register_kprobe(kp);
	}
	if (ret)
		return ret;
	/* Its own write path would re-enter it: refused by name. */
	if (within_module((unsigned long)kp->addr, THIS_MODULE)) {
		if (ret_probe)
			unregister_kretprobe(&p->rp);
		else
			unregister_kprobe(kp);
		return -EPERM;
	}
	return 0;
}

/**
 * tring_kprobe_unregister - unregister a probe's kprobe or kretprobe
 * @p: the probe; nothing is done for a uprobe's (registered only while
 *	its event is enabled).
 *
 * Returns when no handler of it runs any more.
 */
void tring_kprobe_unregister(struct tring_probe *p)
{
	if (tring_probe_user(p->def))
		return;
	if (p->def->kind == TRING_PROBE_KRETPROBE)
		unregister_kretprobe(&p->rp);
	else
		unregister_kprobe(&p->rp.kp);
}

/**
 * tring_kprobe_unregister_many - unregister many probes' kprobes at once
 * @victims: the probes (linked by ->node), uprobes' left alone.
 * @n: how many there are.
 *
 * kprobes waits for running handlers once per call, not once per probe.
 *
 * Return: false if the arrays could not be had (nothing done).
 */
bool tring_kprobe_unregister_many(struct list_head *victims, unsigned int n)
{
	struct kretprobe **rps;
	struct tring_probe *p;
	struct kprobe **kps;
	unsigned int nk = 0, nr = 0;

	kps = kmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	rps = kmalloc_array(n, sizeof(*rps), GFP_KERNEL);
	if (kps && rps) {
		/* A uprobe was unregistered when its event was disabled. */
		list_for_each_entry(p, victims, node) {
			if (p->def->kind == TRING_PROBE_KRETPROBE)
				rps[nr++] = &p->rp;
			else if (!tring_probe_user(p->def))
				kps[nk++] = &p->rp.kp;
		}
		if (nk)
			unregister_kprobes(kps, nk);
		if (nr)
			unregister_kretprobes(rps, nr);
	}
	kfree(kps);
	kfree(rps);
	return kps && rps;
}
