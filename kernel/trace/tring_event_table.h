/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the default buffer's events, one row each. tring_events.h and
 * tring_events.c include this file several times, with the row and field
 * macros defined differently each time: every row becomes an event id, a
 * payload struct, a field table (the CTF metadata and the format file), a
 * write function, and for a tracepoint row a probe and its prototype
 * check.
 *
 * TRING_TP_EVENT(group, name, tracepoint, TP_PROTO(...), TP_ARGS(...),
 *		  fields...)
 *	an event written by a probe on the kernel's tracepoint; the
 *	prototype is the tracepoint's, as the kernel's header declares it.
 *	If the headers tring is built against declare another one, the
 *	event is left out (a compiler warning says so) and the others work.
 * TRING_MOD_EVENT(group, name, TP_PROTO(...), TP_ARGS(...), fields...)
 *	an event module code writes by calling tring_write_<name>(args).
 *
 * Fields, in payload order, each filled from an expression of the
 * arguments:
 *	tf_integer(type, field, expr)	u8 ... u64, s8 ... s64
 *	tf_comm(field, task)		the task's comm, TASK_COMM_LEN chars
 *	tf_text(field, len, expr)	text in a char[len], cut and
 *					NUL-padded
 *	tf_string(field, expr)		NUL-terminated text, cut at 1023
 *					bytes; only as the last field
 *	tf_none()			an event without fields
 *
 * and, not a field, whom the event is about for process tracking
 * (tring_track.h), when not only the current task:
 *	tf_track(task, task2)		recorded if either task's process
 *					is tracked (task2 may be NULL)
 *
 * Ids follow the rows' order from TRING_ID_MODULE_LAST + 1, then the
 * system calls' (tring_events.h); all of them fit the 4-byte record
 * header (ids below TRING_ID_WIDE). The frequent events come first.
 *
 * Names, fields and their meaning follow LTTng's kernel tracer
 * (lttng-modules 2.13, include/instrumentation/events/): priorities as
 * LTTng reports them (prio - MAX_RT_PRIO), thread ids as tid, process
 * ids as pid.
 */

TRING_MOD_EVENT(tring, marker,
		TP_PROTO(const char *text),
		TP_ARGS(text),
		tf_integer(s32, tid, current->pid)
		tf_string(text, text))

/* sched.h */
TRING_TP_EVENT(sched, sched_switch, sched_switch,
	       TP_PROTO(bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state),
	       TP_ARGS(preempt, prev, next, prev_state),
	       tf_comm(prev_comm, prev)
	       tf_integer(s32, prev_tid, prev->pid)
	       tf_integer(s32, prev_prio, prev->prio - MAX_RT_PRIO)
	       tf_integer(s64, prev_state,
			  tring_switch_state(preempt, prev_state, prev))
	       tf_comm(next_comm, next)
	       tf_integer(s32, next_tid, next->pid)
	       tf_integer(s32, next_prio, next->prio - MAX_RT_PRIO)
	       tf_track(prev, next))

TRING_TP_EVENT(sched, sched_waking, sched_waking,
	       TP_PROTO(struct task_struct *p),
	       TP_ARGS(p),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO)
	       tf_integer(s32, target_cpu, task_cpu(p))
	       tf_track(current, p))

TRING_TP_EVENT(sched, sched_wakeup, sched_wakeup,
	       TP_PROTO(struct task_struct *p),
	       TP_ARGS(p),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO)
	       tf_integer(s32, target_cpu, task_cpu(p))
	       tf_track(current, p))

TRING_TP_EVENT(sched, sched_wakeup_new, sched_wakeup_new,
	       TP_PROTO(struct task_struct *p),
	       TP_ARGS(p),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO)
	       tf_integer(s32, target_cpu, task_cpu(p))
	       tf_track(current, p))

TRING_TP_EVENT(sched, sched_migrate_task, sched_migrate_task,
	       TP_PROTO(struct task_struct *p, int dest_cpu),
	       TP_ARGS(p, dest_cpu),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO)
	       tf_integer(s32, orig_cpu, task_cpu(p))
	       tf_integer(s32, dest_cpu, dest_cpu)
	       tf_track(current, p))

/* irq.h */
TRING_TP_EVENT(irq, irq_handler_entry, irq_handler_entry,
	       TP_PROTO(int irq, struct irqaction *action),
	       TP_ARGS(irq, action),
	       tf_integer(s32, irq, irq)
	       tf_string(name, action->name ?: ""))

TRING_TP_EVENT(irq, irq_handler_exit, irq_handler_exit,
	       TP_PROTO(int irq, struct irqaction *action, int ret),
	       TP_ARGS(irq, action, ret),
	       tf_integer(s32, irq, irq)
	       tf_integer(s32, ret, ret))

TRING_TP_EVENT(irq, softirq_entry, softirq_entry,
	       TP_PROTO(unsigned int vec_nr),
	       TP_ARGS(vec_nr),
	       tf_integer(u32, vec, vec_nr))

TRING_TP_EVENT(irq, softirq_exit, softirq_exit,
	       TP_PROTO(unsigned int vec_nr),
	       TP_ARGS(vec_nr),
	       tf_integer(u32, vec, vec_nr))

TRING_TP_EVENT(irq, softirq_raise, softirq_raise,
	       TP_PROTO(unsigned int vec_nr),
	       TP_ARGS(vec_nr),
	       tf_integer(u32, vec, vec_nr))

/* The exit of every system call; the entries are sys_<name> (below). */
TRING_TP_EVENT(syscalls, exit_syscall, sys_exit,
	       TP_PROTO(struct pt_regs *regs, long ret),
	       TP_ARGS(regs, ret),
	       tf_integer(s32, id, syscall_get_nr(current, regs))
	       tf_integer(s64, ret, ret))

/* timer.h */
TRING_TP_EVENT(timer, hrtimer_expire_entry, hrtimer_expire_entry,
	       TP_PROTO(struct hrtimer *hrtimer, ktime_t *now),
	       TP_ARGS(hrtimer, now),
	       tf_integer(u64, hrtimer, (unsigned long)hrtimer)
	       tf_integer(s64, now, *now)
	       tf_integer(u64, function, (unsigned long)hrtimer->function))

TRING_TP_EVENT(timer, hrtimer_expire_exit, hrtimer_expire_exit,
	       TP_PROTO(struct hrtimer *hrtimer),
	       TP_ARGS(hrtimer),
	       tf_integer(u64, hrtimer, (unsigned long)hrtimer))

/* kmem.h */
TRING_TP_EVENT(kmem, mm_page_alloc, mm_page_alloc,
	       TP_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
			int migratetype),
	       TP_ARGS(page, order, gfp_flags, migratetype),
	       tf_integer(u64, page, (unsigned long)page)
	       tf_integer(u64, pfn, page ? page_to_pfn(page) : -1UL)
	       tf_integer(u32, order, order)
	       tf_integer(u32, gfp_flags, (__force u32)gfp_flags)
	       tf_integer(s32, migratetype, migratetype))

TRING_TP_EVENT(kmem, mm_page_free, mm_page_free,
	       TP_PROTO(struct page *page, unsigned int order),
	       TP_ARGS(page, order),
	       tf_integer(u64, page, (unsigned long)page)
	       tf_integer(u64, pfn, page_to_pfn(page))
	       tf_integer(u32, order, order))

/* power.h: LTTng names cpu_frequency's frequency "state" too. */
TRING_TP_EVENT(power, power_cpu_idle, cpu_idle,
	       TP_PROTO(unsigned int state, unsigned int cpu_id),
	       TP_ARGS(state, cpu_id),
	       tf_integer(u32, state, state)
	       tf_integer(u32, cpu_id, cpu_id))

TRING_TP_EVENT(power, power_cpu_frequency, cpu_frequency,
	       TP_PROTO(unsigned int frequency, unsigned int cpu_id),
	       TP_ARGS(frequency, cpu_id),
	       tf_integer(u32, state, frequency)
	       tf_integer(u32, cpu_id, cpu_id))

/* block.h: only with a block layer (blk_status_to_errno()). */
#ifdef CONFIG_BLOCK
TRING_TP_EVENT(block, block_rq_insert, block_rq_insert,
	       TP_PROTO(struct request *rq),
	       TP_ARGS(rq),
	       tf_integer(u32, dev, tring_rq_dev(rq))
	       tf_integer(u64, sector, blk_rq_trace_sector(rq))
	       tf_integer(u32, nr_sector, blk_rq_trace_nr_sectors(rq))
	       tf_integer(u32, bytes, blk_rq_bytes(rq))
	       tf_integer(s32, tid, current->pid)
	       tf_integer(u32, rwbs, tring_rq_rwbs(rq))
	       tf_comm(comm, current))

TRING_TP_EVENT(block, block_rq_issue, block_rq_issue,
	       TP_PROTO(struct request *rq),
	       TP_ARGS(rq),
	       tf_integer(u32, dev, tring_rq_dev(rq))
	       tf_integer(u64, sector, blk_rq_trace_sector(rq))
	       tf_integer(u32, nr_sector, blk_rq_trace_nr_sectors(rq))
	       tf_integer(u32, bytes, blk_rq_bytes(rq))
	       tf_integer(s32, tid, current->pid)
	       tf_integer(u32, rwbs, tring_rq_rwbs(rq))
	       tf_comm(comm, current))

TRING_TP_EVENT(block, block_rq_complete, block_rq_complete,
	       TP_PROTO(struct request *rq, blk_status_t error,
			unsigned int nr_bytes),
	       TP_ARGS(rq, error, nr_bytes),
	       tf_integer(u32, dev, tring_rq_dev(rq))
	       tf_integer(u64, sector, blk_rq_pos(rq))
	       tf_integer(u32, nr_sector, nr_bytes >> 9)
	       tf_integer(s32, error, blk_status_to_errno(error))
	       tf_integer(u32, rwbs, tring_rq_rwbs(rq)))
#endif

/* net.h */
TRING_TP_EVENT(net, net_dev_xmit, net_dev_xmit,
	       TP_PROTO(struct sk_buff *skb, int rc, struct net_device *dev,
			unsigned int skb_len),
	       TP_ARGS(skb, rc, dev, skb_len),
	       tf_integer(u64, skbaddr, (unsigned long)skb)
	       tf_integer(s32, rc, rc)
	       tf_integer(u32, len, skb_len)
	       tf_string(name, dev->name))

TRING_TP_EVENT(net, netif_receive_skb, netif_receive_skb,
	       TP_PROTO(struct sk_buff *skb),
	       TP_ARGS(skb),
	       tf_integer(u64, skbaddr, (unsigned long)skb)
	       tf_integer(u32, len, skb->len)
	       tf_string(name, skb->dev ? skb->dev->name : ""))

/* Rarer events last. */

/* sched.h */
TRING_TP_EVENT(sched, sched_process_fork, sched_process_fork,
	       TP_PROTO(struct task_struct *parent, struct task_struct *child),
	       TP_ARGS(parent, child),
	       tf_comm(parent_comm, parent)
	       tf_integer(s32, parent_tid, parent->pid)
	       tf_integer(s32, parent_pid, parent->tgid)
	       tf_comm(child_comm, child)
	       tf_integer(s32, child_tid, child->pid)
	       tf_integer(s32, child_pid, child->tgid)
	       tf_track(parent, child))

TRING_TP_EVENT(sched, sched_process_exec, sched_process_exec,
	       TP_PROTO(struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm),
	       TP_ARGS(p, old_pid, bprm),
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, old_tid, old_pid)
	       tf_string(filename, bprm->filename))

TRING_TP_EVENT(sched, sched_process_exit, sched_process_exit,
	       TP_PROTO(struct task_struct *p),
	       TP_ARGS(p),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO))

TRING_TP_EVENT(sched, sched_process_free, sched_process_free,
	       TP_PROTO(struct task_struct *p),
	       TP_ARGS(p),
	       tf_comm(comm, p)
	       tf_integer(s32, tid, p->pid)
	       tf_integer(s32, prio, p->prio - MAX_RT_PRIO)
	       tf_track(p, NULL))

TRING_TP_EVENT(sched, sched_pi_setprio, sched_pi_setprio,
	       TP_PROTO(struct task_struct *tsk, struct task_struct *pi_task),
	       TP_ARGS(tsk, pi_task),
	       tf_comm(comm, tsk)
	       tf_integer(s32, tid, tsk->pid)
	       tf_integer(s32, oldprio, tsk->prio - MAX_RT_PRIO)
	       tf_integer(s32, newprio,
			  (pi_task ? pi_task->prio : tsk->prio) - MAX_RT_PRIO)
	       tf_track(current, tsk))

/* net.h: a packet queued to a device (Trace Compass's "send"). */
TRING_TP_EVENT(net, net_dev_queue, net_dev_queue,
	       TP_PROTO(struct sk_buff *skb),
	       TP_ARGS(skb),
	       tf_integer(u64, skbaddr, (unsigned long)skb)
	       tf_integer(u32, len, skb->len)
	       tf_string(name, skb->dev ? skb->dev->name : ""))

/*
 * ipi.h (6.3 and later): hand-written rather than generic, because
 * tring's own reader wakeup raises it (irq_work_raise()) from inside a
 * generic event's perf handler, where perf's recursion guard would drop
 * it, uncounted. A probe on the tracepoint has no such guard.
 */
#ifdef TRING_HAVE_IPI_SEND_CPU
TRING_TP_EVENT(ipi, ipi_send_cpu, ipi_send_cpu,
	       TP_PROTO(const unsigned int cpu, unsigned long callsite,
			void *callback),
	       TP_ARGS(cpu, callsite, callback),
	       tf_integer(u32, cpu, cpu)
	       /* CTF readers drop the '_' a keyword's name takes. */
	       tf_integer(u64, _callsite, callsite)
	       tf_integer(u64, callback, (unsigned long)callback))
#endif

/* A system call number this kernel's table has no name for. */
TRING_MOD_EVENT(syscalls, sys_unknown,
		TP_PROTO(long id, const unsigned long *args),
		TP_ARGS(id, args),
		tf_integer(s64, id, id)
		tf_integer(u64, arg0, args[0])
		tf_integer(u64, arg1, args[1])
		tf_integer(u64, arg2, args[2])
		tf_integer(u64, arg3, args[3])
		tf_integer(u64, arg4, args[4])
		tf_integer(u64, arg5, args[5]))

/*
 * lttng-statedump.h: what existed before the trace began, written when
 * the statedump file is written to (tring_statedump.c), not by a
 * tracepoint. Values as LTTng's statedump writes them:
 *	type	0 user thread, 1 kernel thread
 *	mode	5 unknown; submode 1 unknown (not sampled)
 *	status	0 unnamed, 2 waiting for a CPU, 4 zombie, 5 waiting,
 *		6 running, 7 dead
 */
TRING_MOD_EVENT(lttng_statedump, lttng_statedump_start,
		TP_PROTO(void),
		TP_ARGS(),
		tf_none())

TRING_MOD_EVENT(lttng_statedump, lttng_statedump_process_state,
		TP_PROTO(struct task_struct *p, const struct tring_sd_ids *ids,
			 int type, int status),
		TP_ARGS(p, ids, type, status),
		tf_integer(s32, tid, p->pid)
		tf_integer(s32, vtid, ids->vtid)
		tf_integer(s32, pid, p->tgid)
		tf_integer(s32, vpid, ids->vpid)
		tf_integer(s32, ppid, ids->ppid)
		tf_integer(s32, vppid, ids->vppid)
		tf_comm(name, p)
		tf_integer(s32, type, type)
		tf_integer(s32, mode, TRING_SD_MODE_UNKNOWN)
		tf_integer(s32, submode, TRING_SD_SUBMODE_UNKNOWN)
		tf_integer(s32, status, status)
		tf_integer(s32, cpu, task_cpu(p)))

TRING_MOD_EVENT(lttng_statedump, lttng_statedump_interrupt,
		TP_PROTO(unsigned int irq, const char *chip, const char *action),
		TP_ARGS(irq, chip, action),
		tf_integer(u32, irq, irq)
		tf_text(name, 32, chip)
		tf_string(action, action))

TRING_MOD_EVENT(lttng_statedump, lttng_statedump_block_device,
		TP_PROTO(u32 dev, const char *name),
		TP_ARGS(dev, name),
		tf_integer(u32, dev, dev)
		tf_string(diskname, name))

TRING_MOD_EVENT(lttng_statedump, lttng_statedump_end,
		TP_PROTO(void),
		TP_ARGS(),
		tf_none())
