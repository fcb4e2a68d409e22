// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the values of the contexts read from the current task and its
 * namespaces (ids, priorities, states, namespace numbers, the host
 * name), for the contexts' write path (tring_ctx_write.c), which writes
 * pid, tid, procname, the stacks and the counters itself, inline.
 *
 * Any context, NMI included, preemption disabled: nothing here sleeps
 * or takes a lock; what may go away (the namespaces while the task
 * exits, the parent) is read under RCU or checked for NULL. Built
 * without the function tracer's hooks (Kbuild): the write path.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/ipc_namespace.h>
#include <linux/mnt_namespace.h>
#include <linux/nsproxy.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time_namespace.h>
#include <linux/user_namespace.h>
#include <linux/utsname.h>
#include <net/net_namespace.h>

#include "tring_ctx.h"

/*
 * Most levels of preempt_count() between an event and its context's
 * fill in a preemptible task: the hook's (tracepoint, probe handler,
 * ftrace callback), the writer's and tring_reserve()'s (fewer on some
 * paths: a marker has no hook). LTTng counts its own the same way.
 */
#define TRING_CTX_NESTING	3

/*
 * The mount namespace's number. struct mnt_namespace is private to
 * fs/ (fs/mount.h); on both kernels tring builds for, and every kernel
 * since 3.19, it starts with its struct ns_common, as LTTng also relies
 * on. A kernel with randomized structure layout has the context refused
 * (tring_ctx.c).
 */
static u32 tring_ctx_mnt_ns_inum(const struct nsproxy *ns)
{
#ifdef CONFIG_RANDSTRUCT_NONE
	const struct ns_common *c = (const void *)ns->mnt_ns;

	return c ? c->inum : 0;
#else
	return 0;
#endif
}

/* The namespaces of the current task; NULL while it exits. */
static struct nsproxy *tring_ctx_nsproxy(void)
{
	return READ_ONCE(current->nsproxy);
}

static u32 tring_ctx_ns(unsigned int kind)
{
	struct nsproxy *ns = tring_ctx_nsproxy();

	if (kind == TRING_CTX_USER_NS)
		return current_user_ns()->ns.inum;
	if (kind == TRING_CTX_PID_NS) {
		struct pid_namespace *pid_ns = task_active_pid_ns(current);

		return pid_ns ? pid_ns->ns.inum : 0;
	}
	if (!ns)
		return 0;
	switch (kind) {
#ifdef CONFIG_CGROUPS
	case TRING_CTX_CGROUP_NS:
		return ns->cgroup_ns ? ns->cgroup_ns->ns.inum : 0;
#endif
#ifdef CONFIG_IPC_NS
	case TRING_CTX_IPC_NS:
		return ns->ipc_ns ? ns->ipc_ns->ns.inum : 0;
#endif
	case TRING_CTX_MNT_NS:
		return tring_ctx_mnt_ns_inum(ns);
#ifdef CONFIG_NET_NS
	case TRING_CTX_NET_NS:
		return ns->net_ns ? ns->net_ns->ns.inum : 0;
#endif
#ifdef CONFIG_TIME_NS
	case TRING_CTX_TIME_NS:
		return ns->time_ns ? ns->time_ns->ns.inum : 0;
#endif
	case TRING_CTX_UTS_NS:
		return ns->uts_ns ? ns->uts_ns->ns.inum : 0;
	}
	return 0;
}

/* The parent's pid, as LTTng's ppid context reads it. */
static s32 tring_ctx_ppid(void)
{
	s32 ppid;

	rcu_read_lock();
	ppid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return ppid;
}

/*
 * A 32-bit context's value: ids, priorities, namespaces, states (pid
 * and tid: tring_ctx_put() itself).
 */
u32 tring_ctx_u32(unsigned int kind)
{
	struct task_struct *t = current;

	switch (kind) {
	case TRING_CTX_VPID:
		return task_tgid_vnr(t);
	case TRING_CTX_VTID:
		return task_pid_vnr(t);
	case TRING_CTX_PPID:
		return tring_ctx_ppid();
	case TRING_CTX_PRIO:
		return t->prio - MAX_RT_PRIO;
	case TRING_CTX_NICE:
		return task_nice(t);
	case TRING_CTX_INTERRUPTIBLE:
		return !irqs_disabled();
	case TRING_CTX_PREEMPTIBLE:
		return !(preempt_count() & (NMI_MASK | HARDIRQ_MASK |
					    SOFTIRQ_MASK)) &&
		       (preempt_count() & PREEMPT_MASK) <= TRING_CTX_NESTING &&
		       !irqs_disabled();
	case TRING_CTX_NEED_RESCHED:
		return test_tsk_need_resched(t);
	case TRING_CTX_MIGRATABLE:
#ifdef CONFIG_SMP
		return !t->migration_disabled;
#else
		return 0;
#endif
	}
	return tring_ctx_ns(kind);
}

/* The host name of the current task's UTS namespace, NUL-padded. */
void tring_ctx_hostname(void *p, unsigned int size)
{
	struct nsproxy *ns = tring_ctx_nsproxy();

	if (ns && ns->uts_ns)
		strscpy_pad(p, ns->uts_ns->name.nodename, size);
	else
		memset(p, 0, size);
}

