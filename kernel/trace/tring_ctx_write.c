// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the write path of events that carry contexts.
 *
 * The event writers (tring_events.c, tring_gen_perf.c) read
 * tring_default_buf first; while a context set is in force it is NULL,
 * and they come here instead, out of line: a buffer without contexts
 * runs exactly the instructions it ran before contexts existed.
 *
 * An instance's writers (other modules' inline tring_reserve()) come
 * through tring_reserve_slow_v4() to tring_ctx_reserve_slow() while the
 * instance's context file names contexts (tring_ctx_inst.c).
 *
 * A record is sized once: the stacks are walked first, into this CPU's
 * scratch of the writer's nesting depth, then the record (header,
 * contexts, payload) is reserved and the contexts written at its start.
 * A set without stacks takes a path of its own, with nothing to walk.
 * The values read from the task and its namespaces (but pid, tid and
 * procname, written inline) come from tring_ctx_values.c.
 * Any context, NMI included; preemption is off in the caller from before
 * this call to its commit.
 */
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include "tring_ctx.h"
#include "tring_gen.h"
#include "tring_internal.h"

struct tring_ctx_set __rcu *tring_ctx_cur;

/* Frames of tring itself a kernel stack may start with. */
#define TRING_CTX_SKIP		8
#define TRING_CTX_WALK		(TRING_CTX_DEPTH_MAX + 1 + TRING_CTX_SKIP)

/* A frame is stored as the u64 the record holds: one copy per stack. */
static_assert(sizeof(unsigned long) == sizeof(u64));

/* Writers that may nest on a CPU: task, softirq, hardirq and NMI. */
#define TRING_CTX_LEVELS	4

/**
 * struct tring_ctx_scratch - a CPU's stacks being walked
 * @depth: writers of this CPU between their walk and their record's
 *	writing; the next one uses the entries of index @depth. Read and
 *	written by this CPU only, preemption off: a writer that interrupts
 *	another raises it and puts it back before the interrupted one runs
 *	again (interrupts nest), so a plain increment is enough; compiler
 *	barriers order it with the entries.
 * @k: per nesting depth, the kernel stack as stack_trace_save() left
 *	it, and the truncation mark after the kept frames.
 * @u: per nesting depth, the user stack.
 */
struct tring_ctx_scratch {
	unsigned int depth;
	unsigned long k[TRING_CTX_LEVELS][TRING_CTX_WALK];
	unsigned long u[TRING_CTX_LEVELS][TRING_CTX_DEPTH_MAX + 1];
};

/**
 * struct tring_ctx_stacks - the stacks of one event
 * @k: the kernel stack's entries (tring's own frames skipped).
 * @u: the user stack's.
 * @nk: entries of @k to write, a truncation mark included.
 * @nu: entries of @u to write, a truncation mark included.
 */
struct tring_ctx_stacks {
	const unsigned long *k;
	const unsigned long *u;
	unsigned int nk;
	unsigned int nu;
};

/**
 * tring_ctx_buffer - the default buffer while contexts are in force
 *
 * Context: preemption disabled.
 * Return: the buffer, or NULL when no set is in force.
 */
struct tring_buffer *tring_ctx_buffer(void)
{
	struct tring_ctx_set *set = rcu_dereference_sched(tring_ctx_cur);

	return set ? rcu_dereference_sched(set->buf) : NULL;
}

int tring_ctx_scratch_alloc(struct tring_ctx_set *set)
{
	if (!set->kstack && !set->ustack)
		return 0;
	set->scratch = alloc_percpu(struct tring_ctx_scratch);
	return set->scratch ? 0 : -ENOMEM;
}

#if defined(CONFIG_X86) && \
	(defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_UNWINDER_FRAME_POINTER))
/*
 * The kernel stack from the hook's registers, as perf makes its kernel
 * call chains: the instruction they point at, then its callers. The
 * registers of an exception or of ftrace's caller (a kprobe, a function
 * exit) hold the whole state: the walk starts there, and tring's frames
 * and the hook's are never walked. Those perf fetches for a tracepoint
 * (perf_fetch_caller_regs(): flags 0) hold a trustworthy stack pointer
 * only: the walk starts here and keeps the frames from there on.
 * Return: entries, at most @size.
 */
static unsigned int tring_ctx_kstack_regs(struct pt_regs *regs,
					  unsigned long *k, unsigned int size)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	k[n++] = regs->ip;
	if (regs->flags & X86_EFLAGS_FIXED)
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (unsigned long *)regs->sp);
	for (; !unwind_done(&state) && n < size; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		/* The caller's frame holds the address @regs point at. */
		if (n == 1 && addr == regs->ip)
			continue;
		k[n++] = addr;
	}
	return n;
}

#define TRING_CTX_REGS_UNWIND	true
#else
static unsigned int tring_ctx_kstack_regs(struct pt_regs *regs,
					  unsigned long *k, unsigned int size)
{
	return 0;
}

#define TRING_CTX_REGS_UNWIND	false
#endif

/* Whether tring_ctx_kstack_regs() walks from @regs on this kernel. */
static bool tring_ctx_regs_walk(struct pt_regs *regs)
{
	return TRING_CTX_REGS_UNWIND && regs && !user_mode(regs);
}

/*
 * The kernel stack into @k: from the hook's registers @regs when there
 * are any, else from here, tring's own frames skipped.
 */
static void tring_ctx_kstack(const struct tring_ctx_set *set, unsigned long *k,
			     struct pt_regs *regs, struct tring_ctx_stacks *st)
{
	unsigned int n, skip = 0;

	if (tring_ctx_regs_walk(regs)) {
		n = tring_ctx_kstack_regs(regs, k, set->depth + 1);
	} else {
		n = stack_trace_save(k, set->depth + 1 + TRING_CTX_SKIP, 0);
		while (skip < n && skip < TRING_CTX_SKIP &&
		       within_module(k[skip], THIS_MODULE))
			skip++;
	}
	n -= skip;
	st->k = k + skip;
	st->nk = n;
	if (n > set->depth) {
		/* Cut at the depth: the mark in the first frame not kept. */
		k[skip + set->depth] = TRING_CTX_TRUNCATED;
		st->nk = set->depth + 1;
	}
}

/*
 * One user frame at @fp: the caller's frame pointer and the return
 * address. Two loads with user access open, no call in between; a fault
 * (page faults are disabled by the caller) lands at the label.
 * Return: whether both were read.
 */
static __always_inline bool tring_ctx_uframe(unsigned long fp,
					     unsigned long *next,
					     unsigned long *ret)
{
	const unsigned long __user *f = (const unsigned long __user *)fp;

	if (!user_access_begin(f, 2 * sizeof(*f)))
		return false;
	unsafe_get_user(*next, &f[0], fault);
	unsafe_get_user(*ret, &f[1], fault);
	user_access_end();
	return true;
fault:
	user_access_end();
	return false;
}

/*
 * The user stack of the current task into @u by its frame pointers: its
 * user registers, saved at its entry to the kernel, then each frame's
 * return address. Return: entries, a TRING_CTX_TRUNCATED mark last when
 * the walk stopped before the outermost frame (a frame pointer that does
 * not grow, a page that is not there, the depth reached).
 */
static unsigned int tring_ctx_ustack(unsigned int depth, unsigned long *u)
{
	unsigned long fp, next, ret;
	struct pt_regs *regs;
	unsigned int n = 0;

	/*
	 * A kernel thread has no user stack. In NMI the saved registers
	 * may be older than the interrupted user code: only the mark.
	 */
	if (current->flags & PF_KTHREAD)
		return 0;
	if (in_nmi())
		goto mark;
	regs = task_pt_regs(current);
#ifdef CONFIG_X86_64
	if (!user_64bit_mode(regs))
		goto mark;
#endif
	u[n++] = instruction_pointer(regs);
	fp = regs->bp;
	/*
	 * A frame not there is a fault, never a page brought in. Also what
	 * user access outside task context requires (access_ok() warns
	 * there otherwise, with CONFIG_DEBUG_ATOMIC_SLEEP).
	 */
	pagefault_disable();
	while (fp && n < depth) {
		if (!IS_ALIGNED(fp, sizeof(long)) ||
		    !tring_ctx_uframe(fp, &next, &ret))
			break;
		if (!ret) {
			/* The outermost frame: the walk is whole. */
			fp = 0;
			break;
		}
		u[n++] = ret;
		if (next && next <= fp)
			break;
		fp = next;
	}
	pagefault_enable();
	/* Stopped before the end (a fault, a bad frame, the depth): marked. */
	if (!fp)
		return n;
mark:
	u[n++] = TRING_CTX_TRUNCATED;
	return n;
}

/* Walk the set's stacks into this CPU's scratch of nesting @level. */
static void tring_ctx_walk(const struct tring_ctx_set *set,
			   struct tring_ctx_scratch *s, unsigned int level,
			   struct pt_regs *regs, struct tring_ctx_stacks *st)
{
	st->nk = 0;
	st->nu = 0;
	if (set->kstack)
		tring_ctx_kstack(set, s->k[level], regs, st);
	if (set->ustack) {
		st->nu = tring_ctx_ustack(set->depth, s->u[level]);
		st->u = s->u[level];
	}
}

/*
 * This CPU's value of a counter context (tring_ctx_perf.c makes the
 * counters), inline in the contexts' loop.
 *
 * Context: any, NMI included; preemption disabled. The PMU's read
 * method updates the count with a local cmpxchg against the PMU's
 * interrupt (x86) or does nothing (software counters, counted in place).
 * Return: the count, or 0 when this CPU's counter is not counting.
 */
static __always_inline u64 tring_ctx_perf_read(const struct tring_ctx_item *it)
{
	struct tring_ctx_pev *p = READ_ONCE(*this_cpu_ptr(it->pcpu));
	struct perf_event *ev;

	if (!p)
		return 0;
	ev = p->ev;
	if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(ev->oncpu) != smp_processor_id())
		return 0;
	ev->pmu->read(ev);
	return local64_read(&ev->count);
}

/* Store @v at @p, whatever its alignment (records are 4-byte aligned). */
static __always_inline void tring_ctx_put32(void *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static __always_inline void tring_ctx_put64(void *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

/* A stack: its u32 count of u64 entries, then the entries. */
static void *tring_ctx_put_stack(void *p, const unsigned long *f,
				 unsigned int n)
{
	unsigned int i;

	tring_ctx_put32(p, n);
	p += sizeof(u32);
	/* Entry by entry: a few moves, where memcpy() may copy bytes. */
	for (i = 0; i < n; i++, p += sizeof(u64))
		tring_ctx_put64(p, f[i]);
	return p;
}

/* Write the fixed-size item @it at @p. Return: the next item's place. */
static __always_inline void *tring_ctx_put(const struct tring_ctx_item *it,
					   void *p)
{
	switch (it->kind) {
	/* The most asked for, without tring_ctx_u32()'s call. */
	case TRING_CTX_PID:
		tring_ctx_put32(p, current->tgid);
		return p + sizeof(u32);
	case TRING_CTX_TID:
		tring_ctx_put32(p, current->pid);
		return p + sizeof(u32);
	case TRING_CTX_PROCNAME:
		/* Its size is TASK_COMM_LEN (tring_ctx.c): a constant copy. */
		memcpy(p, current->comm, TASK_COMM_LEN);
		return p + TASK_COMM_LEN;
	case TRING_CTX_HOSTNAME:
		tring_ctx_hostname(p, it->size);
		break;
	case TRING_CTX_PERF:
		tring_ctx_put64(p, tring_ctx_perf_read(it));
		break;
	default:
		if (it->size == 1)
			*(u8 *)p = tring_ctx_u32(it->kind);
		else
			tring_ctx_put32(p, tring_ctx_u32(it->kind));
	}
	return p + it->size;
}

/*
 * The contexts' bytes in a record, a multiple of 4. @stacks: whether the
 * set may hold stacks (a constant where this is inlined: the fixed path
 * reads no stack flag).
 */
static __always_inline unsigned int
tring_ctx_len(const struct tring_ctx_set *set,
	      const struct tring_ctx_stacks *st, bool stacks)
{
	unsigned int len = set->fixed;

	if (stacks && set->kstack)
		len += sizeof(u32) + st->nk * sizeof(u64);
	if (stacks && set->ustack)
		len += sizeof(u32) + st->nu * sizeof(u64);
	return ALIGN(len, 4);
}

/*
 * Write the contexts at @p, @clen bytes (tring_ctx_len()); @st holds the
 * stacks already walked. Return: where the payload goes.
 */
static __always_inline void *
tring_ctx_fill(const struct tring_ctx_set *set, void *p, unsigned int clen,
	       const struct tring_ctx_stacks *st, bool stacks)
{
	const struct tring_ctx_item *it, *last = set->fixed_end;
	void *end = p + clen;

	for (it = set->items; it < last; it++)
		p = tring_ctx_put(it, p);
	/* The stacks come last (tring_ctx.c orders the set). */
	if (stacks && set->kstack)
		p = tring_ctx_put_stack(p, st->k, st->nk);
	if (stacks && set->ustack)
		p = tring_ctx_put_stack(p, st->u, st->nu);
	/* Records are reused: the padding to 4 bytes is written too. */
	if (p != end)
		memset(p, 0, end - p);
	return end;
}

/*
 * Reserve and write the contexts; @st holds the stacks already walked.
 * Inline in both of tring_ctx_reserve()'s paths: no frame of its own.
 */
static __always_inline int
tring_ctx_reserve_in(const struct tring_ctx_set *set, unsigned int id,
		     unsigned int len, const struct tring_ctx_stacks *st,
		     bool stacks, struct tring_res *res)
{
	struct tring_buffer *buf = rcu_dereference_sched(set->buf);
	unsigned int clen = tring_ctx_len(set, st, stacks);
	int ret;

	if (!buf)
		return -ENODEV;
	/* Too big for a sub-buffer: counted as lost by tring_reserve(). */
	ret = tring_reserve(buf, id, clen + len, res);
	if (ret)
		return ret;
	res->data = tring_ctx_fill(set, res->data, clen, st, stacks);
	return 0;
}

/*
 * tring_ctx_reserve() of a set without stacks: nothing walked, no
 * scratch, no stacks to pass. The set comes last (tring_ctx_reserve()
 * jumps here).
 */
static noinline int tring_ctx_reserve_fixed(unsigned int id, unsigned int len,
					    struct tring_res *res,
					    const struct tring_ctx_set *set)
{
	return tring_ctx_reserve_in(set, id, len, NULL, false, res);
}

/*
 * Take the next nesting level of this CPU's scratch @s into @level.
 * Return: false when every level is taken (four writers of this CPU
 * between their walk and their write, nested).
 */
static __always_inline bool tring_ctx_level_get(struct tring_ctx_scratch *s,
						unsigned int *level)
{
	*level = READ_ONCE(s->depth);
	if (unlikely(*level >= TRING_CTX_LEVELS))
		return false;
	WRITE_ONCE(s->depth, *level + 1);
	/*
	 * Compiler barrier, pairing with nothing (every user of @depth runs
	 * on this CPU, where interrupts land between instructions in
	 * program order): @depth is raised before the entries of @level
	 * are written, so a writer that interrupts the walk takes the next.
	 */
	barrier();
	return true;
}

/* Give @level back, once its entries are in the record. */
static __always_inline void tring_ctx_level_put(struct tring_ctx_scratch *s,
						unsigned int level)
{
	/*
	 * Compiler barrier, the same: the entries of @level are read into
	 * the record before @depth gives them to a writer nested later.
	 */
	barrier();
	WRITE_ONCE(s->depth, level);
}

/*
 * tring_ctx_reserve() of a set with a stack: walked into this CPU's
 * scratch of the writer's nesting depth, then the record sized, reserved
 * and written. The set comes last, as for tring_ctx_reserve_fixed().
 */
static noinline int tring_ctx_reserve_stacks(unsigned int id, unsigned int len,
					     struct tring_res *res,
					     struct pt_regs *regs,
					     const struct tring_ctx_set *set)
{
	struct tring_ctx_scratch *s = this_cpu_ptr(set->scratch);
	struct tring_ctx_stacks st;
	unsigned int level;
	int ret;

	if (!tring_ctx_level_get(s, &level)) {
		tring_gen_lost(1);
		return -ENODEV;
	}
	tring_ctx_walk(set, s, level, regs, &st);
	ret = tring_ctx_reserve_in(set, id, len, &st, true, res);
	tring_ctx_level_put(s, level);
	return ret;
}

/*
 * Reserve @id's record in @cb with the contexts of @set (@st: its stacks,
 * walked when @stacks) before @len payload bytes, its header and the
 * contexts written. Return: as tring_reserve_slow_v4().
 */
static __always_inline long
tring_ctx_slow_in(struct tring_cpu *cb, const struct tring_ctx_set *set,
		  unsigned int id, unsigned int len,
		  const struct tring_ctx_stacks *st, bool stacks)
{
	unsigned int clen = tring_ctx_len(set, st, stacks);
	unsigned int h;
	void *rec;
	long pos;

	/* In unsigned long: no payload length wraps the sum. */
	pos = tring_reserve_hdr(cb, id, clen + tring_payload_room(len), &h);
	if (pos < 0)
		return pos;
	rec = (void *)tring_slot_packet(cb, tring_slot_at(cb, pos)) +
	      (pos & cb->subbuf_mask);
	tring_ctx_fill(set, rec + h, clen, st, stacks);
	return tring_pos_pack(pos, h, clen);
}

/**
 * tring_ctx_reserve_slow - an out-of-line reservation with contexts
 * @cb: this CPU's ring of a buffer with contexts; preemption disabled.
 * @set: the buffer's contexts (struct tring_buffer.ctx).
 * @id: the event's id.
 * @len: its payload's bytes.
 *
 * tring_reserve_slow_v4() of an instance whose context file names
 * contexts: every record of such a buffer comes here (the fast path's
 * cache is never filled for it). The stacks are walked first, as for
 * tring_ctx_reserve(), with no hook registers: a kernel stack starts at
 * the writer's caller of tring.
 *
 * Context: any, NMI included.
 * Return: as tring_reserve_slow_v4(); a writer with every scratch level
 * taken by the writers it interrupted is counted as discarded.
 */
long tring_ctx_reserve_slow(struct tring_cpu *cb,
			    const struct tring_ctx_set *set, unsigned int id,
			    unsigned int len)
{
	struct tring_ctx_scratch *s;
	struct tring_ctx_stacks st;
	unsigned int level;
	long pos;

	if (!set->scratch)
		return tring_ctx_slow_in(cb, set, id, len, NULL, false);
	/*
	 * A failed reservation enables preemption again, which the inline
	 * caller disabled; the scratch level is this CPU's until it is
	 * given back: one more level, dropped last.
	 */
	preempt_disable_notrace();
	s = this_cpu_ptr(set->scratch);
	if (!tring_ctx_level_get(s, &level)) {
		local_inc(&cb->discarded);
		preempt_enable_notrace();
		pos = -ENOBUFS;
		goto out;
	}
	tring_ctx_walk(set, s, level, NULL, &st);
	pos = tring_ctx_slow_in(cb, set, id, len, &st, true);
	tring_ctx_level_put(s, level);
out:
	preempt_enable_notrace();
	return pos;
}

/**
 * tring_ctx_reserve - reserve an event with the contexts in force
 * @id: the event's id.
 * @len: its payload's bytes.
 * @res: the reservation, as tring_reserve() fills it; @res->data is the
 *	payload's place, after the contexts.
 * @regs: the registers of the event's hook, or NULL: a kernel call stack
 *	starts where kernel registers point, else at the caller of tring.
 *
 * Context: any, NMI included; preemption disabled by the caller until
 * its tring_commit().
 * Return: 0, -ENODEV when no set is in force (or four writers of this
 * CPU are already between their walk and their write, nested: the event
 * is counted as lost), or tring_reserve()'s error.
 */
int tring_ctx_reserve(unsigned int id, unsigned int len, struct tring_res *res,
		      struct pt_regs *regs)
{
	const struct tring_ctx_set *set = rcu_dereference_sched(tring_ctx_cur);

	/* The set goes last: each path is a jump, the arguments in place. */
	if (!set)
		return -ENODEV;
	if (!set->scratch)
		return tring_ctx_reserve_fixed(id, len, res, set);
	return tring_ctx_reserve_stacks(id, len, res, regs, set);
}
