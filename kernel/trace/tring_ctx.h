/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: per-event contexts (tring_ctx.c, the set and the default
 * buffer's files; tring_ctx_inst.c, an instance's file; tring_ctx_write.c,
 * the write path; tring_ctx_perf.c, the perf counters).
 */
#ifndef _TRING_CTX_H
#define _TRING_CTX_H

#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/tring.h>

struct dentry;
struct perf_event;
struct seq_file;

/* Longest context name, with its NUL. */
#define TRING_CTX_NAME		40
/* Contexts in one set. */
#define TRING_CTX_MAX		32
/* Frames of a stack: the default of stack_depth=, and its largest value. */
#define TRING_CTX_DEPTH_DEF	32
#define TRING_CTX_DEPTH_MAX	128
/* A stack's last entry when it was cut short, as LTTng marks it. */
#define TRING_CTX_TRUNCATED	(~0ULL)

/* What a context records; the table in tring_ctx.c names each. */
enum tring_ctx_kind {
	TRING_CTX_PID,
	TRING_CTX_TID,
	TRING_CTX_VPID,
	TRING_CTX_VTID,
	TRING_CTX_PPID,
	TRING_CTX_PROCNAME,
	TRING_CTX_PRIO,
	TRING_CTX_NICE,
	TRING_CTX_HOSTNAME,
	TRING_CTX_CGROUP_NS,
	TRING_CTX_IPC_NS,
	TRING_CTX_MNT_NS,
	TRING_CTX_NET_NS,
	TRING_CTX_PID_NS,
	TRING_CTX_TIME_NS,
	TRING_CTX_USER_NS,
	TRING_CTX_UTS_NS,
	TRING_CTX_INTERRUPTIBLE,
	TRING_CTX_PREEMPTIBLE,
	TRING_CTX_NEED_RESCHED,
	TRING_CTX_MIGRATABLE,
	TRING_CTX_KSTACK,
	TRING_CTX_USTACK,
	TRING_CTX_PERF,
};

/**
 * struct tring_ctx_pev - one CPU's perf counter of a context
 * @ev: the counter.
 * @dead: on struct tring_ctx_item.dead once its CPU went offline.
 */
struct tring_ctx_pev {
	struct perf_event *ev;
	struct llist_node dead;
};

/**
 * struct tring_ctx_item - one context of a set
 * @kind: enum tring_ctx_kind.
 * @size: bytes in the record; 0 for a stack (a u32 count, then u64s).
 * @pcpu: for TRING_CTX_PERF, each CPU's counter: set (WRITE_ONCE) by the
 *	CPU-hotplug online step of that CPU and cleared by its offline
 *	step, read (READ_ONCE) by that CPU's writers with preemption off.
 * @name: its name in the context file ("perf:cpu:cycles").
 * @field: its CTF field name, LTTng's ("_perf_cpu_cycles").
 * @perf_type: for TRING_CTX_PERF, the perf_event_attr type...
 * @perf_config: ...and config.
 * @dead: counters of CPUs that went offline, freed with the set
 *	(process context, outside the hotplug callbacks).
 */
struct tring_ctx_item {
	u8 kind;
	u8 size;
	/* What the writers read first: one cache line with the above. */
	struct tring_ctx_pev * __percpu *pcpu;
	char name[TRING_CTX_NAME];
	char field[TRING_CTX_NAME + 1];
	u32 perf_type;
	u64 perf_config;
	struct llist_head dead;
};

struct tring_ctx_scratch;

/**
 * struct tring_ctx_set - the contexts every event of a buffer carries, in
 *	this order, after its header: the default buffer's (tring_ctx_cur)
 *	or an instance's (struct tring_buffer.ctx)
 * @buf: the default buffer while the set is in force; NULL in an
 *	instance's set (its writers come with their ring). Published with
 *	rcu_assign_pointer() under the configuration lock (tring_main.c),
 *	read with rcu_dereference_sched() by writers; a replaced buffer is
 *	freed after a grace period.
 * @fixed: bytes of the fixed-size contexts.
 * @depth: frames a stack keeps (stack_depth= when the set was made).
 * @kstack: a kernel stack is among the items.
 * @ustack: a user stack is.
 * @perf: a perf counter is.
 * @perf_on: the counters' hotplug instance is added.
 * @scratch: per CPU and nesting depth, the stacks being walked, when
 *	@kstack or @ustack.
 * @cpuhp_node: on the hotplug state that makes the counters, when @perf.
 * @nr: items.
 * @fixed_end: the end of the fixed-size items, which come first; the
 *	stacks follow them, the kernel's before the user's. The writers'
 *	loop stops there (kept: four instructions an event less).
 * @items: the contexts.
 *
 * A set does not change once made: writing the context file makes a new
 * one and a new default buffer, so a stream's records all carry the same
 * contexts, the ones its metadata describes.
 */
struct tring_ctx_set {
	struct tring_buffer __rcu *buf;
	unsigned int fixed;
	unsigned int depth;
	bool kstack;
	bool ustack;
	bool perf;
	bool perf_on;
	struct tring_ctx_scratch __percpu *scratch;
	struct hlist_node cpuhp_node;
	unsigned int nr;
	const struct tring_ctx_item *fixed_end;
	struct tring_ctx_item items[];
};

/*
 * The set in force, NULL when events carry no context. Published under
 * the configuration lock with rcu_assign_pointer() (pairs with the
 * writers' rcu_dereference_sched(): the set's contents before its use),
 * while tring_default_buf is NULL; freed a grace period after it is
 * replaced.
 */
extern struct tring_ctx_set __rcu *tring_ctx_cur;

/* tring_ctx_write.c */
int tring_ctx_reserve(unsigned int id, unsigned int len,
		      struct tring_res *res, struct pt_regs *regs);
struct tring_buffer *tring_ctx_buffer(void);
int tring_ctx_scratch_alloc(struct tring_ctx_set *set);

/*
 * tring_ctx_values.c: a 32-bit context's value (ids, priorities, states,
 * namespaces; not pid, tid, procname, stacks or counters) and the host
 * name, NUL-padded to @size, of the current task; any context.
 */
u32 tring_ctx_u32(unsigned int kind);
void tring_ctx_hostname(void *p, unsigned int size);

/* tring_ctx_perf.c */
int tring_ctx_perf_lookup(const char *name, struct tring_ctx_item *it);
int tring_ctx_perf_start(struct tring_ctx_set *set);
void tring_ctx_perf_stop(struct tring_ctx_set *set);
void tring_ctx_perf_list(struct seq_file *m);
int tring_ctx_perf_init(void);
void tring_ctx_perf_exit(void);

/* tring_ctx.c */
struct tring_ctx_set *tring_ctx_set_from_user(const char __user *ubuf,
					      size_t count);
void tring_ctx_set_show(struct seq_file *m, const struct tring_ctx_set *set);
void tring_ctx_set_free(struct tring_ctx_set *set);
bool tring_ctx_ctf(struct seq_file *m, const struct tring_buffer_attr *attr);
int tring_ctx_init(struct dentry *root);
void tring_ctx_exit(void);

/* tring_main.c: make @set (NULL: none) the default buffer's contexts. */
int tring_default_set_context(struct tring_ctx_set *set);

#endif /* _TRING_CTX_H */
