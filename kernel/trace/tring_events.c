// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the default buffer's events, one row each in
 * tring_event_table.h, expanded here. Probes attached to the kernel's
 * own tracepoints write them in place with tring_reserve()/commit();
 * system call entries are one event per call of the kernel's own table.
 * Their files and enabling are tring_events_fs.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/sched/prio.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#include <trace/events/block.h>
#include <trace/events/ipi.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/net.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/timer.h>

#include "tring_ctx.h"
#include "tring_events.h"
#include "tring_events_src.h"
#include "tring_filter_file.h"
#include "tring_generic.h"
#include "tring_persist_api.h"
#include "tring_track.h"

/* Helpers the table's field expressions use. */

/* prev_state as LTTng reports it: a TASK_REPORT bit, 0 when running. */
static __always_inline s64 tring_switch_state(bool preempt,
					      unsigned int prev_state,
					      struct task_struct *p)
{
	unsigned int i;

	if (preempt)
		return TASK_REPORT_MAX;
	i = __task_state_index(prev_state, p->exit_state);
	return i ? 1 << (i - 1) : 0;
}

#ifdef CONFIG_BLOCK
static __always_inline u32 tring_rq_dev(struct request *rq)
{
	return rq->q->disk ? disk_devt(rq->q->disk) : 0;
}

/* LTTng's rwbs bits (lttng-modules, block.h). */
#define TRING_RWBS_WRITE	BIT(0)
#define TRING_RWBS_DISCARD	BIT(1)
#define TRING_RWBS_READ		BIT(2)
#define TRING_RWBS_RAHEAD	BIT(3)
#define TRING_RWBS_SYNC		BIT(5)
#define TRING_RWBS_META		BIT(6)
#define TRING_RWBS_SECURE	BIT(7)
#define TRING_RWBS_FLUSH	BIT(8)
#define TRING_RWBS_FUA		BIT(9)
#define TRING_RWBS_PREFLUSH	BIT(10)

static u32 tring_rq_op_bits(enum req_op op)
{
	switch (op) {
	case REQ_OP_WRITE:
		return TRING_RWBS_WRITE;
	case REQ_OP_DISCARD:
		return TRING_RWBS_DISCARD;
	case REQ_OP_SECURE_ERASE:
		return TRING_RWBS_DISCARD | TRING_RWBS_SECURE;
	case REQ_OP_FLUSH:
		return TRING_RWBS_FLUSH;
	case REQ_OP_READ:
		return TRING_RWBS_READ;
	default:
		return 0;
	}
}

static u32 tring_rq_rwbs(struct request *rq)
{
	blk_opf_t f = rq->cmd_flags;

	return tring_rq_op_bits(req_op(rq)) |
	       (f & REQ_RAHEAD ? TRING_RWBS_RAHEAD : 0) |
	       (f & REQ_SYNC ? TRING_RWBS_SYNC : 0) |
	       (f & REQ_META ? TRING_RWBS_META : 0) |
	       (f & REQ_PREFLUSH ? TRING_RWBS_PREFLUSH : 0) |
	       (f & REQ_FUA ? TRING_RWBS_FUA : 0);
}
#endif

/*
 * Reserve @fixed bytes plus @text (cut to TRING_TEXT_MAX - 1 bytes and
 * NUL-terminated) in the default buffer; on success the fixed part is at
 * res->data for the caller to fill.
 *
 * The caller holds preemption off from before this call to after its
 * tring_commit(), whatever the tracepoint calling it guarantees (from
 * 6.13 system call tracepoints run preemptible): the buffer may be
 * replaced and freed a grace period later, and a reservation is
 * committed on the CPU that made it.
 */
int tring_reserve_text(unsigned int id, unsigned int fixed,
		       const char *text, size_t n, struct tring_res *res)
{
	struct tring_buffer *buf;
	int ret;

	n = min_t(size_t, n, TRING_TEXT_MAX - 1);
	lockdep_assert_preemption_disabled();
	buf = rcu_dereference_sched(tring_default_buf);
	if (buf)
		ret = tring_reserve(buf, id, fixed + n + 1, res);
	else
		ret = tring_ctx_reserve(id, fixed + n + 1, res, NULL);
	if (ret)
		return ret;
	memcpy(res->data + fixed, text, n);
	((char *)res->data)[fixed + n] = '\0';
	return 0;
}

/*
 * Reserve a fixed-size payload in the default buffer; preemption off as
 * for tring_reserve_text().
 */
void *tring_reserve_fixed(unsigned int id, unsigned int len,
			  struct tring_res *res)
{
	struct tring_buffer *buf;
	int ret;

	lockdep_assert_preemption_disabled();
	buf = rcu_dereference_sched(tring_default_buf);
	if (buf)
		ret = tring_reserve(buf, id, len, res);
	else
		ret = tring_ctx_reserve(id, len, res, NULL);
	return ret ? NULL : res->data;
}

/* Reserve an event: @fixed bytes, then @str if not NULL. */
static __always_inline void *tring_reserve_ev(unsigned int id,
					      unsigned int fixed,
					      const char *str,
					      struct tring_res *res)
{
	if (!str)
		return tring_reserve_fixed(id, fixed, res);
	if (tring_reserve_text(id, fixed, str, strlen(str), res))
		return NULL;
	return res->data;
}

/* Store @n bytes at @p: a payload field. Return: the next field. */
static __always_inline void *tring_put(void *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/* Store text @s in a char[@n] field, cut and NUL-padded. */
static __always_inline void *tring_put_text(void *p, const char *s, size_t n)
{
	strscpy_pad(p, s ?: "", n);
	return p + n;
}

/* A NULL string as the empty one. */
static __always_inline const char *tring_text(const char *s)
{
	return s ?: "";
}

/*
 * Each expansion of the table below defines the row macros, and the
 * field macros for what it makes of the fields; tring_events.h made the
 * ids. The field macros put their separator first (struct members) or
 * last (a list of comma expressions ended by a 0).
 */

/*
 * The payload structs, written in place at 4-byte alignment; each is
 * defined in the return type of tring_reserve_<name>(), which reserves
 * one (and the string that follows it, if any) in the default buffer.
 */
#define tf_integer(type, f, e)	TRING_MEMBER_##type(f)
#define tf_comm(f, t)		; char f[TASK_COMM_LEN]
#define tf_text(f, n, e)	; char f[n]
#define tf_string(f, e)
#define tf_none()
#define tf_track(a, b)
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static __always_inline struct tring_ev_##name {			\
	u8 tring_start[0] __VA_ARGS__;					\
} __packed *								\
tring_reserve_##name(const char *str, struct tring_res *res)		\
{									\
	return tring_reserve_ev(TRING_EV_##name,			\
				sizeof(struct tring_ev_##name), str, res); \
}

#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
	TRING_MOD_EVENT(grp, name, PARAMS(proto), PARAMS(args), __VA_ARGS__)
#include "tring_event_table.h"
#undef tf_integer
#undef tf_comm
#undef tf_text
#undef tf_string
#undef tf_none
#undef tf_track
#undef TRING_MOD_EVENT

/* * Their field tables, laid out as the structs are (a local pointer
 * names the event's struct for TRING_FIELD()).
 */
#define tf_integer(type, f, e)	TRING_FIELD(typeof(*cur), f, type),
#define tf_comm(f, t)		TRING_FIELD(typeof(*cur), f, CHARS),
#define tf_text(f, n, e)	TRING_FIELD(typeof(*cur), f, CHARS),
#define tf_string(f, e)		TRING_FIELD_TAIL(typeof(*cur), f, STRING),
#define tf_none()
#define tf_track(a, b)
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static const struct tring_field *tring_fields_##name(void)		\
{									\
	const struct tring_ev_##name *cur __maybe_unused;		\
	static const struct tring_field fields[] = {			\
		__VA_ARGS__						\
		{ }							\
	};								\
									\
	return fields;							\
}

#include "tring_event_table.h"
#undef tf_integer
#undef tf_comm
#undef tf_text
#undef tf_string
#undef tf_none
#undef tf_track
#undef TRING_MOD_EVENT

/*
 * tring_write_<name>(args): write one event, filling each field from its
 * expression; the tracepoints' probes call these, and so can module
 * code. tring_str_<name>(args) is its trailing string, or NULL.
 */
#define tf_integer(type, f, e)
#define tf_comm(f, t)
#define tf_text(f, n, e)
#define tf_string(f, e)		(ts_ = tring_text(e)),
#define tf_none()
#define tf_track(a, b)
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static __always_inline const char *tring_str_##name(proto)		\
{									\
	const char *ts_ = NULL;						\
									\
	(void)(__VA_ARGS__ 0);						\
	return ts_;							\
}

#include "tring_event_table.h"
#undef tf_integer
#undef tf_comm
#undef tf_text
#undef tf_string
#undef TRING_MOD_EVENT

/*
 * tring_write_<name>(args): the event, filled in place once reserved.
 * With a filter in force, first the filter's record, filled on the
 * stack from the same expressions, is tested: a rejected event reserves
 * nothing. The caller holds preemption off from before it to after:
 * the filter's look-up, the reservation and the commit are one section.
 */
#define tf_integer(type, f, e)	(tp_ = tring_put(tp_, &(type) { (e) }, sizeof(type))),
#define tf_comm(f, t)		(tp_ = tring_put(tp_, (t)->comm, TASK_COMM_LEN)),
#define tf_text(f, n, e)	(tp_ = tring_put_text(tp_, (e), (n))),
#define tf_string(f, e)
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static __always_inline void tring_write_##name(proto)			\
{									\
	const struct tring_filter *tf_ = tring_ev_filter(TRING_EV_##name); \
	const char *ts_ = tring_str_##name(args);			\
	struct tring_res res __uninitialized;				\
	void *tp_;							\
									\
	if (unlikely(tf_)) {						\
		struct {						\
			struct tring_ev_##name ev;			\
			const char *str;				\
			s32 pid;					\
		} rec_;							\
									\
		BUILD_BUG_ON(offsetof(typeof(rec_), pid) !=		\
			     TRING_FREC_PID(sizeof(rec_.ev)));		\
		tp_ = &rec_.ev;						\
		(void)(__VA_ARGS__ 0);					\
		rec_.str = ts_;						\
		rec_.pid = current->pid;				\
		if (!tring_filter_match(tf_, &rec_, sizeof(rec_)))	\
			return;						\
	}								\
	tp_ = tring_reserve_##name(ts_, &res);				\
	if (!tp_)							\
		return;							\
	(void)(__VA_ARGS__ 0);						\
	tring_commit(&res);						\
}

#include "tring_event_table.h"
#undef tf_integer
#undef tf_comm
#undef tf_text
#undef tf_string
#undef tf_none
#undef tf_track
#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT

/*
 * tring_record_<name>(args): the event written, out of line. Like every
 * write, it reserves and commits on one CPU: preemption is off in
 * between, whatever the caller's context (from 6.13 system call
 * tracepoints run preemptible).
 */
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static noinline void tring_record_##name(proto)			\
{									\
	preempt_disable_notrace();					\
	tring_write_##name(args);					\
	preempt_enable_notrace();					\
}

#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
	TRING_MOD_EVENT(grp, name, PARAMS(proto), PARAMS(args), __VA_ARGS__)

#include "tring_event_table.h"
#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT

/**
 * tring_sys_unknown_record - write sys_unknown: a call the table lacks
 * @nr: its number.
 * @args: its six arguments.
 */
void tring_sys_unknown_record(long nr, const unsigned long *args)
{
	tring_record_sys_unknown(nr, args);
}

/* The statedump's events, for tring_statedump.c. */
void tring_sd_write_start(void)
{
	tring_record_lttng_statedump_start();
}

void tring_sd_write_process(struct task_struct *p,
			    const struct tring_sd_ids *ids, int type,
			    int status)
{
	tring_record_lttng_statedump_process_state(p, ids, type, status);
}

void tring_sd_write_interrupt(unsigned int irq, const char *chip,
			      const char *action)
{
	tring_record_lttng_statedump_interrupt(irq, chip, action);
}

void tring_sd_write_block_device(u32 dev, const char *name)
{
	tring_record_lttng_statedump_block_device(dev, name);
}

void tring_sd_write_end(void)
{
	tring_record_lttng_statedump_end();
}

/*
 * tring_trace_<name>(args): write the event unless process tracking
 * (tring_track.h) or its filter's pid gate leaves it out. Tracking is
 * about the tasks its tf_track() names, or about current. Both checks
 * come first, in the probe itself: an event left out costs them alone
 * (for current, one per-CPU load; the gate, a static key while no
 * filter is in force), not the writer's stack frame.
 */
#define tf_integer(type, f, e)
#define tf_comm(f, t)
#define tf_text(f, n, e)
#define tf_string(f, e)
#define tf_none()
#define tf_track(a, b)		(tk_a = (a), tk_b = (b), tk_two = true),
#define TRING_MOD_EVENT(grp, name, proto, args, ...)			\
static __always_inline void tring_trace_##name(proto)			\
{									\
	const struct task_struct *tk_a = NULL, *tk_b = NULL;		\
	bool tk_two = false;						\
									\
	(void)(__VA_ARGS__ 0);						\
	if (tk_two ? tring_track_skip(tk_a, tk_b) :			\
		     tring_track_skip_current())			\
		return;							\
	if (!tring_ev_gated_out(TRING_EV_##name))			\
		tring_record_##name(args);				\
}

#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
	TRING_MOD_EVENT(grp, name, PARAMS(proto), PARAMS(args), __VA_ARGS__)

#include "tring_event_table.h"
#undef tf_integer
#undef tf_comm
#undef tf_text
#undef tf_string
#undef tf_none
#undef tf_track
#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT

/*
 * The probes, with the prototype the table gives. Each is registered
 * only if the kernel's header declares exactly that prototype for its
 * tracepoint (TRING_PROTO_OK()); otherwise the event is left out, and
 * the call of tring_left_out_<name>() in tring_note_left_out() makes the
 * compiler say so: that call stays only when the check failed.
 */
#define TRING_MOD_EVENT(grp, name, proto, args, ...)
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
static void tring_probe_##name(void *data, proto)			\
{									\
	tring_trace_##name(args);					\
}									\
									\
static noinline int __compiletime_warning(				\
	"tring: tracepoint " #tp " has another prototype in this "	\
	"kernel's headers: event " #name " left out")			\
tring_left_out_##name(void)						\
{									\
	barrier();							\
	return 1;							\
}

#include "tring_event_table.h"
#undef TRING_TP_EVENT

/* How many events this build left out. */
unsigned int tring_note_left_out(void)
{
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
	(TRING_PROTO_OK(tp, PARAMS(proto)) ? 0 : tring_left_out_##name()),
	const int left_out[] = {
#include "tring_event_table.h"
		0
	};
#undef TRING_TP_EVENT
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(left_out); i++)
		n += left_out[i];
	return n;
}

#undef TRING_MOD_EVENT

/*
 * Every event the default buffer can hold, indexed by id minus
 * TRING_ID_FIRST_EVENT: its metadata. Ids no event has (the modules'
 * ids, the holes of the system call table) keep a NULL name. The field
 * tables and the system calls are filled in by tring_events_prepare().
 */
#define TRING_MOD_EVENT(grp, nm, proto, args, ...)			\
	[TRING_EV_##nm - TRING_ID_FIRST_EVENT] = {			\
		.group = #grp, .name = #nm, .id = TRING_EV_##nm,	\
		.size = sizeof(struct tring_ev_##nm),			\
	},
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...)		\
	TRING_MOD_EVENT(grp, name, PARAMS(proto), PARAMS(args), __VA_ARGS__)
struct tring_event_desc tring_builtin_events[TRING_EV_SYS_FIRST -
					     TRING_ID_FIRST_EVENT +
					     TRING_NR_SYSCALLS] = {
#include "tring_event_table.h"
};

#undef TRING_MOD_EVENT

const unsigned int tring_nr_builtin_events = ARRAY_SIZE(tring_builtin_events);

/* The table's events' field tables, by the same index. */
#define TRING_MOD_EVENT(grp, nm, proto, args, ...)			\
	[TRING_EV_##nm - TRING_ID_FIRST_EVENT] = tring_fields_##nm,
static const struct tring_field *(*const tring_field_fns[])(void) = {
#include "tring_event_table.h"
};

#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT
#define TRING_DESC(name) \
	(&tring_builtin_events[TRING_EV_##name - TRING_ID_FIRST_EVENT])

/**
 * tring_events_prepare - complete the default buffer's event table
 *
 * Before anything reads it: the module calls this first.
 *
 * Return: 0, or -EINVAL if a description is bad (a bug).
 */
int tring_events_prepare(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tring_field_fns); i++)
		if (tring_field_fns[i])
			tring_builtin_events[i].fields = tring_field_fns[i]();
	tring_prepare_syscalls();
	for (i = 0; i < tring_nr_builtin_events; i++) {
		if (!tring_builtin_events[i].name)
			continue;
		ret = tring_event_desc_check(&tring_builtin_events[i]);
		if (WARN(ret, "bad event description %s\n",
			 tring_builtin_events[i].name))
			return ret;
		if (WARN_ON(tring_builtin_events[i].id != i + TRING_ID_FIRST_EVENT))
			return -EINVAL;
	}
	return 0;
}

/**
 * tring_default_event - the description of a default buffer's event
 * @id: its id.
 *
 * For kernel code that writes one of these events into a buffer of its
 * own and wants it in that buffer's metadata (struct tring_buffer_attr).
 *
 * Return: the description, or NULL for an unknown id.
 */
const struct tring_event_desc *tring_default_event(unsigned int id)
{
	const struct tring_event_desc *ev;

	if (id < TRING_ID_FIRST_EVENT ||
	    id - TRING_ID_FIRST_EVENT >= ARRAY_SIZE(tring_builtin_events))
		return NULL;
	ev = &tring_builtin_events[id - TRING_ID_FIRST_EVENT];
	return ev->name ? ev : NULL;
}
EXPORT_SYMBOL_GPL(tring_default_event);

/* The marker first: trace_marker writes check tring_sources[0]. */
struct tring_source tring_sources[TRING_NR_SOURCES] = {
	[TRING_SRC_MARKER] = {
		.group = "tring", .name = "marker", .desc = TRING_DESC(marker),
		.proto_ok = true },
#define TRING_MOD_EVENT(grp, nm, proto, args, ...)
#define TRING_TP_EVENT(grp, nm, tpn, proto, args, ...)			\
	[TRING_SRC_##nm] = {						\
		.group = #grp, .name = #nm, .desc = TRING_DESC(nm),	\
		.tp_name = #tpn, .probe = tring_probe_##nm,		\
		.proto_ok = TRING_PROTO_OK(tpn, PARAMS(proto)) },
#include "tring_event_table.h"
#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT
	[TRING_SRC_SYSCALLS] = {
		.group = "syscalls", .name = "syscall_entry",
		.tp_name = "sys_enter", .probe = tring_probe_sys_enter,
		.proto_ok = TRING_PROTO_OK(sys_enter,
					   PARAMS(struct pt_regs *regs, long id)) },
};

/**
 * tring_marker_record - write a tring:marker event for current
 * @text: its text, @len bytes, not NUL-terminated.
 * @len: bytes of @text.
 *
 * Context: process (trace_marker's write).
 * Return: 0, or the reservation's error (the buffer full, or none).
 */
int tring_marker_record(const char *text, size_t len)
{
	struct tring_res res __uninitialized;
	struct tring_ev_marker *ev;
	int ret;

	preempt_disable_notrace();
	ret = tring_reserve_text(TRING_EV_marker, sizeof(*ev), text, len, &res);
	if (!ret) {
		ev = res.data;
		ev->tid = current->pid;
		tring_commit(&res);
	}
	preempt_enable_notrace();
	return ret;
}
