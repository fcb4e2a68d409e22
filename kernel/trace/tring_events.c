// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the default buffer's events, one row each in
 * tring_event_table.h, expanded here. Probes attached to the kernel's
 * own tracepoints write them in place with tring_reserve()/commit();
 * system call entries are one event per call of the kernel's own table.
 *
 * /sys/kernel/debug/tring/
 *   events/enable                   1/0: every event (reads X if mixed)
 *   events/<group>/enable           one group
 *   events/<group>/<event>/enable   one event
 *   events/<group>/<event>/id       its id in the trace
 *   events/<group>/<event>/format   its payload's fields
 *   events/syscalls/syscall_entry/{enable,format}   the sys_<name> events
 *   trace_marker                    a write becomes a tring:marker event
 *
 * Enabling registers the probe with tracepoint_probe_register();
 * disabling unregisters it and waits with tracepoint_synchronize_unregister()
 * before returning, so nothing a probe uses can go away under it.
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
#include <linux/mutex.h>
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

/* Longest text a marker, a file name or an irq name is cut to. */
#define TRING_TEXT_MAX		1024

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
static int tring_reserve_text(unsigned int id, unsigned int fixed,
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
static void *tring_reserve_fixed(unsigned int id, unsigned int len,
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
 * Event @id's filter (tring_ev_filter.c), or NULL; its caller has
 * preemption disabled. Only while some filter is in force.
 */
static __always_inline const struct tring_filter *tring_ev_filter(unsigned int id)
{
	if (!static_branch_unlikely(&tring_filter_key))
		return NULL;
	return tring_filter_get(&tring_ev_fslots[id - TRING_ID_FIRST_EVENT]);
}

/*
 * Does event @id's filter leave current's events out on its pid alone
 * (struct tring_filter_gate)? Tested in the probe after tracking, before
 * anything of the event is built; the whole filter still runs on what
 * passes. The probe may run preemptible (system call tracepoints from
 * 6.13): the filter is read in a section of its own.
 */
static __always_inline bool tring_ev_gated_out(unsigned int id)
{
	const struct tring_filter *f;
	bool out;

	if (!static_branch_unlikely(&tring_filter_key))
		return false;
	preempt_disable_notrace();
	f = tring_filter_get(&tring_ev_fslots[id - TRING_ID_FIRST_EVENT]);
	out = f && tring_filter_gate_rejects(f);
	preempt_enable_notrace();
	return out;
}

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
static unsigned int tring_note_left_out(void)
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
 * System call entries: sys_<name> for every call of the x86_64 system
 * call table of the kernel built against, with its arguments by the
 * names its prototype in linux/syscalls.h gives them, or, for the
 * arguments a prototype leaves unnamed and the calls x86 defines itself,
 * by the names of their SYSCALL_DEFINE<n>() (tring_syscalls.awk lists
 * those); an argument that is a path (a const char __user * named
 * filename, pathname or path) is recorded as text, as the last field.
 * tring_syscalls.h is generated from those headers at build time
 * (tring_syscalls.awk); a call neither knows (one a later kernel adds
 * outside linux/syscalls.h) gets its six raw arguments, arg0 to arg5.
 */

/**
 * struct tring_sys_call - one system call's entry event
 * @name: sys_<name>; NULL for a number the table does not use.
 * @nargs: its arguments.
 * @path: 1 + the index of its path argument, or 0.
 * @args: their names.
 */
struct tring_sys_call {
	const char *name;
	u8 nargs;
	u8 path;
	const char *args[6];
};

#define TRING_SYSCALL(nr, sym, n, p, a0, a1, a2, a3, a4, a5)		\
	[nr] = { #sym, n, p, { a0, a1, a2, a3, a4, a5 } },
static const struct tring_sys_call tring_sys_calls[] = {
#include "tring_syscalls.h"
};

#undef TRING_SYSCALL

#define TRING_NR_SYSCALLS	ARRAY_SIZE(tring_sys_calls)

/* The six raw arguments: the layout of calls without a prototype. */
static const struct tring_field tring_fields_sys_args[] = {
	{ .name = "arg0", .type = TRING_FIELD_U64, .offset = 0 },
	{ .name = "arg1", .type = TRING_FIELD_U64, .offset = 8 },
	{ .name = "arg2", .type = TRING_FIELD_U64, .offset = 16 },
	{ .name = "arg3", .type = TRING_FIELD_U64, .offset = 24 },
	{ .name = "arg4", .type = TRING_FIELD_U64, .offset = 32 },
	{ .name = "arg5", .type = TRING_FIELD_U64, .offset = 40 },
	{ }
};

/* A layout many events share, named once in the metadata. */
const struct tring_struct_name tring_sys_structs[] = {
	{ "sys_args", tring_fields_sys_args },
	{ }
};

/*
 * The other calls' fields, filled by tring_prepare_syscalls(): up to six
 * arguments and the end. 16 bytes a field: about 50 KiB for the ~460
 * numbers of the table, once for the module.
 */
static struct tring_field tring_sys_fields[TRING_NR_SYSCALLS][7];

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

/* Fill in the descriptions of the system call entries. */
static bool tring_sys_raw(const struct tring_sys_call *sc)
{
	unsigned int i;

	if (sc->nargs != 6 || sc->path)
		return false;
	for (i = 0; i < 6; i++)
		if (strcmp(sc->args[i], tring_fields_sys_args[i].name))
			return false;
	return true;
}

/*
 * The fields of call @sc into @f: its arguments as u64 in order, the
 * path argument left for last as text. Return: the fixed part's size.
 */
static unsigned int tring_sys_layout(const struct tring_sys_call *sc,
				     struct tring_field *f)
{
	unsigned int i, off = 0;

	for (i = 0; i < sc->nargs; i++) {
		if (i + 1 == sc->path)
			continue;
		*f++ = (struct tring_field){ .name = sc->args[i],
					     .type = TRING_FIELD_U64,
					     .offset = off };
		off += sizeof(u64);
	}
	if (sc->path)
		*f++ = (struct tring_field){ .name = sc->args[sc->path - 1],
					     .type = TRING_FIELD_STRING,
					     .offset = off };
	*f = (struct tring_field){ };
	return off;
}

/* Fill in the descriptions of the system call entries. */
static void tring_prepare_syscalls(void)
{
	const struct tring_sys_call *sc;
	struct tring_event_desc *ev;
	unsigned int nr;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		sc = &tring_sys_calls[nr];
		/* A hole in the table: its number is sys_unknown. */
		if (!sc->name || !strcmp(sc->name, "sys_ni_syscall"))
			continue;
		ev = &tring_builtin_events[TRING_EV_SYS_FIRST -
					   TRING_ID_FIRST_EVENT + nr];
		ev->group = "syscalls";
		ev->name = sc->name;
		ev->id = TRING_EV_SYS_FIRST + nr;
		if (tring_sys_raw(sc)) {
			ev->size = 6 * sizeof(u64);
			ev->fields = tring_fields_sys_args;
		} else {
			ev->size = tring_sys_layout(sc, tring_sys_fields[nr]);
			ev->fields = tring_sys_fields[nr];
		}
	}
}

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

/* Events other modules added to the default buffer, by id. */
static DEFINE_MUTEX(tring_mod_events_lock);
static const struct tring_event_desc *
tring_mod_events[TRING_ID_MODULE_LAST - TRING_ID_MODULE_FIRST + 1];

static int tring_mod_event_check(const struct tring_event_desc *ev)
{
	if (ev->id < TRING_ID_MODULE_FIRST || ev->id > TRING_ID_MODULE_LAST ||
	    tring_event_desc_check(ev))
		return -EINVAL;
	return tring_mod_events[ev->id - TRING_ID_MODULE_FIRST] ? -EBUSY : 0;
}

/**
 * tring_default_events_add - describe a module's events in the default buffer
 * @evs: the descriptions; ids from TRING_ID_MODULE_FIRST to
 *	TRING_ID_MODULE_LAST. They must stay valid until removed.
 * @n: entries in @evs.
 *
 * The default buffer's metadata describes them from now on, so traces of
 * the events the module writes there decode. They have no files under
 * events/: the module writes them itself.
 *
 * Context: process.
 * Return: 0; -EINVAL for a bad description or an id out of range,
 * -EBUSY for an id in use. Nothing is added on error.
 */
int tring_default_events_add(const struct tring_event_desc *evs,
			     unsigned int n)
{
	unsigned int i, j;
	int ret = 0;

	mutex_lock(&tring_mod_events_lock);
	for (i = 0; i < n && !ret; i++) {
		ret = tring_mod_event_check(&evs[i]);
		for (j = 0; j < i && !ret; j++)
			if (evs[j].id == evs[i].id)
				ret = -EINVAL;
	}
	for (i = 0; i < n && !ret; i++) {
		tring_mod_events[evs[i].id - TRING_ID_MODULE_FIRST] = &evs[i];
		/* Listed: its layout in a persistent region, before a record. */
		tring_persist_event(&evs[i]);
	}
	mutex_unlock(&tring_mod_events_lock);
	/* Described there before the caller writes any record. */
	if (!ret)
		tring_persist_sync();
	return ret;
}
EXPORT_SYMBOL_GPL(tring_default_events_add);

/**
 * tring_default_events_remove - undo tring_default_events_add()
 * @evs: the descriptions added.
 * @n: entries in @evs.
 *
 * Context: process.
 */
void tring_default_events_remove(const struct tring_event_desc *evs,
				 unsigned int n)
{
	unsigned int i, k;

	mutex_lock(&tring_mod_events_lock);
	for (i = 0; i < n; i++)
		for (k = 0; k < ARRAY_SIZE(tring_mod_events); k++)
			if (tring_mod_events[k] == &evs[i])
				tring_mod_events[k] = NULL;
	mutex_unlock(&tring_mod_events_lock);
}
EXPORT_SYMBOL_GPL(tring_default_events_remove);

/**
 * tring_module_events_show - show the events modules added
 * @m: where.
 * @show: called for each.
 */
void tring_module_events_show(struct seq_file *m,
			      void (*show)(struct seq_file *m,
					   const struct tring_event_desc *ev))
{
	unsigned int k;

	mutex_lock(&tring_mod_events_lock);
	for (k = 0; k < ARRAY_SIZE(tring_mod_events); k++)
		if (tring_mod_events[k])
			show(m, tring_mod_events[k]);
	mutex_unlock(&tring_mod_events_lock);
}

/* A page per CPU for the path a system call is given. */
static DEFINE_PER_CPU(char[TRING_TEXT_MAX], tring_sys_path_text);

/*
 * Per call, the entries whose path could not be read without faulting
 * (not in memory, or a bad pointer: both fail alike), so recorded and
 * filtered as "": events/syscalls/path_faults. Incremented by the probe
 * on any CPU with atomic_long_inc() (no ordering: a count orders
 * nothing), read by the file with atomic_long_read(), each counter on
 * its own: a read sees every increment done before it began, and maybe
 * some done during it. Never reset.
 */
static atomic_long_t tring_sys_path_faults[TRING_NR_SYSCALLS];

/*
 * Copy the arguments of call @sc, all but its path, to @to: as many as
 * its description's fixed part holds.
 */
static __always_inline void tring_sys_args(const struct tring_sys_call *sc,
					   u64 *to, const unsigned long *args)
{
	unsigned int i;
	u64 v;

	for (i = 0; i < sc->nargs; i++) {
		if (i + 1 == sc->path)
			continue;
		v = args[i];
		/* Records are 4-byte aligned. */
		memcpy(to++, &v, sizeof(v));
	}
}

/*
 * Does the entry of system call @sc (@size bytes of arguments, @text its
 * path or NULL) pass filter @f? Its record, as tring_ev_filter.c lays
 * it out, on the stack.
 */
static bool tring_sys_keep(const struct tring_filter *f,
			   const struct tring_sys_call *sc, unsigned int size,
			   const unsigned long *args, const char *text)
{
	u64 rec[TRING_FREC_PID(6 * sizeof(u64)) / sizeof(u64) + 1] = { };
	s32 pid = current->pid;

	tring_sys_args(sc, rec, args);
	memcpy((u8 *)rec + TRING_FREC_STR(size), &text, sizeof(text));
	memcpy((u8 *)rec + TRING_FREC_PID(size), &pid, sizeof(pid));
	return tring_filter_match(f, rec, TRING_FREC_PID(size) + sizeof(pid));
}

/*
 * Copy the path of a call into the CPU's buffer: its length (0 on a
 * fault, counted unless the path is NULL, which some calls take).
 */
static long tring_sys_path(const struct tring_sys_call *sc,
			   const unsigned long *args, char *text)
{
	const char __user *path = (const char __user *)args[sc->path - 1];
	long n;

	/*
	 * Without faulting: the probe runs in the tracepoint's RCU-sched
	 * read side (preemption disabled) on 6.1 and 6.12 alike, where a
	 * page fault may not sleep; the path is read where it is, or not.
	 */
	pagefault_disable();
	n = strncpy_from_user(text, path, TRING_TEXT_MAX - 1);
	pagefault_enable();
	if (n < 0) {
		if (path)
			atomic_long_inc(&tring_sys_path_faults[sc - tring_sys_calls]);
		n = 0;
	}
	text[n] = '\0';
	return n;
}

/* events/syscalls/path_faults: "sys_<name> <count>" per call with one. */
static int tring_sys_faults_show(struct seq_file *m, void *unused)
{
	unsigned int nr;
	long n;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		n = atomic_long_read(&tring_sys_path_faults[nr]);
		if (n)
			seq_printf(m, "%s %ld\n", tring_sys_calls[nr].name, n);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_sys_faults);

/* Write sys_<name> for system call @nr: its arguments, maybe a path. */
static void tring_sys_entry(long nr, const unsigned long *args)
{
	const struct tring_sys_call *sc = &tring_sys_calls[nr];
	unsigned int id = TRING_EV_SYS_FIRST + nr;
	unsigned int size = tring_builtin_events[id - TRING_ID_FIRST_EVENT].size;
	struct tring_res res __uninitialized;
	const struct tring_filter *f;
	char *text = NULL;
	void *ev;
	long n = 0;

	preempt_disable_notrace();
	if (sc->path) {
		text = this_cpu_ptr(tring_sys_path_text);
		n = tring_sys_path(sc, args, text);
	}
	/* Rejected before anything is reserved. */
	f = tring_ev_filter(id);
	if (f && !tring_sys_keep(f, sc, size, args, text))
		goto out;
	if (text)
		ev = tring_reserve_text(id, size, text, n, &res) ? NULL : res.data;
	else
		ev = tring_reserve_fixed(id, size, &res);
	if (ev) {
		tring_sys_args(sc, ev, args);
		tring_commit(&res);
	}
out:
	preempt_enable_notrace();
}

/*
 * The system calls whose entries are recorded while syscall_entry's
 * probe is registered: a bit per number, set by its
 * events/syscalls/sys_<name>/enable, all of them by syscall_entry's
 * enable, which also records the numbers the table lacks, as
 * sys_unknown (tring_sys_all). Both change under tring_events_lock,
 * set before the probe is registered and cleared after it is
 * unregistered; the probe reads them with test_bit() and READ_ONCE(). A
 * probe that runs while a bit changes may see it either way: the call
 * is then recorded or not, as if it came just before or just after.
 */
static DECLARE_BITMAP(tring_sys_on, TRING_NR_SYSCALLS);
static bool tring_sys_all;

/* A call tring_probe_sys_enter() records: its arguments, the event. */
static noinline void tring_sys_record(struct pt_regs *regs, long id,
				      bool known)
{
	unsigned long args[6];

	syscall_get_arguments(current, regs, args);
	if (known) {
		tring_sys_entry(id, args);
		return;
	}
	tring_record_sys_unknown(id, args);
}

/*
 * The checks that leave a call out come first and take no stack frame
 * of their own: tracking, the call's own enable, its filter's pid gate.
 */
static void tring_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	bool known;

	if (tring_track_skip_current())
		return;
	known = id >= 0 && id < TRING_NR_SYSCALLS && !in_compat_syscall() &&
		tring_builtin_events[TRING_EV_SYS_FIRST -
				     TRING_ID_FIRST_EVENT + id].name;
	if (known ? !test_bit(id, tring_sys_on) : !READ_ONCE(tring_sys_all))
		return;
	if (known && tring_ev_gated_out(TRING_EV_SYS_FIRST + id))
		return;
	tring_sys_record(regs, id, known);
}

/**
 * struct tring_source - an event that can be enabled
 * @group: its group (directory under events/).
 * @name: its directory in the group.
 * @desc: its description; NULL for the system call entries, which are
 *	many events (sys_<name>) written by one probe.
 * @tp_name: the kernel tracepoint it attaches to; NULL for the marker.
 * @probe: the probe.
 * @proto_ok: the probe has the tracepoint's prototype; false: the event
 *	is left out on this kernel.
 * @tp: the tracepoint, found at load; NULL if this kernel lacks it.
 * @enabled: the probe is registered (marker: writes are recorded).
 *
 * @enabled changes under tring_events_lock; the marker's is read with
 * READ_ONCE by trace_marker writers.
 */
struct tring_source {
	const char *group;
	const char *name;
	const struct tring_event_desc *desc;
	const char *tp_name;
	void *probe;
	bool proto_ok;
	struct tracepoint *tp;
	bool enabled;
};

/* The marker first: trace_marker writes check tring_sources[0]. */
static struct tring_source tring_sources[] = {
	{ .group = "tring", .name = "marker", .desc = TRING_DESC(marker),
	  .proto_ok = true },
#define TRING_MOD_EVENT(grp, nm, proto, args, ...)
#define TRING_TP_EVENT(grp, nm, tpn, proto, args, ...)			\
	{ .group = #grp, .name = #nm, .desc = TRING_DESC(nm),		\
	  .tp_name = #tpn, .probe = tring_probe_##nm,			\
	  .proto_ok = TRING_PROTO_OK(tpn, PARAMS(proto)) },
#include "tring_event_table.h"
#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT
	{ .group = "syscalls", .name = "syscall_entry", .tp_name = "sys_enter",
	  .probe = tring_probe_sys_enter,
	  .proto_ok = TRING_PROTO_OK(sys_enter,
				     PARAMS(struct pt_regs *regs, long id)) },
};

/**
 * struct tring_enable - what an enable file switches
 * @group: a group's events, or NULL.
 * @one: one event, or NULL. Both NULL: every event.
 */
struct tring_enable {
	const char *group;
	struct tring_source *one;
};

static DEFINE_MUTEX(tring_events_lock);	/* enabling and disabling */
static struct dentry *tring_events_dir;

/* Targets of the enable files: all, each group, each source. */
static struct tring_enable tring_enable_all;
static struct tring_enable tring_enable_groups[ARRAY_SIZE(tring_sources)];
static struct tring_enable tring_enable_one[ARRAY_SIZE(tring_sources)];

/* Register or unregister @s's probe; the caller holds tring_events_lock. */
static int tring_source_attach(struct tring_source *s, bool on)
{
	int ret = 0;

	if (s->enabled == on)
		return 0;
	if (s->tp_name && (!s->tp || !s->proto_ok))
		return -ENODEV;
	if (s->tp && on)
		ret = tracepoint_probe_register(s->tp, s->probe, NULL);
	else if (s->tp)
		ret = tracepoint_probe_unregister(s->tp, s->probe, NULL);
	if (!ret)
		WRITE_ONCE(s->enabled, on);
	return ret;
}

/* syscall_entry's source: the last (see tring_sources[]). */
static struct tring_source *tring_sys_source(void)
{
	return &tring_sources[ARRAY_SIZE(tring_sources) - 1];
}

/*
 * Set one source; the caller holds tring_events_lock. syscall_entry's
 * switches every system call, whichever were on alone.
 */
static int tring_source_set(struct tring_source *s, bool on)
{
	int ret;

	if (s != tring_sys_source())
		return tring_source_attach(s, on);
	if (on) {
		bitmap_fill(tring_sys_on, TRING_NR_SYSCALLS);
		WRITE_ONCE(tring_sys_all, true);
	}
	ret = tring_source_attach(s, on);
	if (!s->enabled) {
		bitmap_zero(tring_sys_on, TRING_NR_SYSCALLS);
		WRITE_ONCE(tring_sys_all, false);
	}
	return ret;
}

/* events/syscalls/sys_<name>/enable: system call @nr alone. */
static int tring_sys_set(unsigned int nr, bool on)
{
	struct tring_source *s = tring_sys_source();
	int ret = 0;

	mutex_lock(&tring_events_lock);
	if (on) {
		set_bit(nr, tring_sys_on);
		ret = tring_source_attach(s, true);
		if (!s->enabled)
			clear_bit(nr, tring_sys_on);
	} else {
		clear_bit(nr, tring_sys_on);
		WRITE_ONCE(tring_sys_all, false);
		if (s->enabled && bitmap_empty(tring_sys_on, TRING_NR_SYSCALLS)) {
			ret = tring_source_attach(s, false);
			/* No probe runs any more once this returns. */
			tracepoint_synchronize_unregister();
		}
	}
	mutex_unlock(&tring_events_lock);
	return ret;
}

/*
 * Enable or disable every source in @group (NULL: all), or just @one.
 * Sources this kernel lacks are skipped when setting several. Sources
 * are enabled in the table's order and disabled in the reverse order, so
 * that an event ending something (softirq_exit) comes on after the one
 * beginning it and goes off before it: a trace never shows an end whose
 * beginning was not traced although the event before it was (LTTng's
 * analyses stop on a softirq_raise, then softirq_exit, with no entry).
 */
static int tring_sources_set(const char *group, struct tring_source *one,
			     bool on)
{
	const unsigned int n = ARRAY_SIZE(tring_sources);
	bool unregistered = false;
	int ret = 0, err;
	unsigned int k;

	mutex_lock(&tring_events_lock);
	for (k = 0; k < n; k++) {
		struct tring_source *s = &tring_sources[on ? k : n - 1 - k];

		if (one ? s != one : group && strcmp(s->group, group))
			continue;
		if (!one && s->tp_name && (!s->tp || !s->proto_ok))
			continue;
		unregistered |= !on && s->enabled && s->tp;
		err = tring_source_set(s, on);
		ret = ret ?: err;
	}
	/* No probe runs any more once this returns. */
	if (unregistered)
		tracepoint_synchronize_unregister();
	mutex_unlock(&tring_events_lock);
	return ret;
}

/* '1', '0' or 'X' (mixed) for @group (NULL: all) or @one. */
static char tring_sources_state(const char *group, struct tring_source *one)
{
	bool any_on = false, any_off = false;
	unsigned int i;

	mutex_lock(&tring_events_lock);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		struct tring_source *s = &tring_sources[i];

		if (one ? s != one : group && strcmp(s->group, group))
			continue;
		/* One this kernel lacks is no part of a group's state. */
		if (!one && s->tp_name && (!s->tp || !s->proto_ok))
			continue;
		if (s->enabled)
			any_on = true;
		else
			any_off = true;
		/* Some system calls only. */
		if (s == tring_sys_source() && s->enabled &&
		    !READ_ONCE(tring_sys_all))
			any_off = true;
	}
	mutex_unlock(&tring_events_lock);
	return any_on && any_off ? 'X' : any_on ? '1' : '0';
}

static ssize_t tring_enable_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	char s[2];

	s[0] = tring_sources_state(en->group, en->one);
	s[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, s, 2);
}

static ssize_t tring_enable_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = tring_sources_set(en->group, en->one, on);
	return ret ? ret : count;
}

static const struct file_operations tring_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_enable_read,
	.write	= tring_enable_write,
	.llseek	= default_llseek,
};

/* A system call's own enable file; its private data is the number. */
static ssize_t tring_sys_enable_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	unsigned int nr = (uintptr_t)file->private_data;
	char st[2] = { '0', '\n' };

	mutex_lock(&tring_events_lock);
	if (tring_sys_source()->enabled && test_bit(nr, tring_sys_on))
		st[0] = '1';
	mutex_unlock(&tring_events_lock);
	return simple_read_from_buffer(ubuf, count, ppos, st, sizeof(st));
}

static ssize_t tring_sys_enable_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = tring_sys_set((uintptr_t)file->private_data, on);
	return ret ? ret : count;
}

static const struct file_operations tring_sys_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_sys_enable_read,
	.write	= tring_sys_enable_write,
	.llseek	= default_llseek,
};

/* The source of @ev if it is left out on this kernel, else NULL. */
static struct tring_source *tring_left_out(const struct tring_event_desc *ev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].desc == ev && !tring_sources[i].proto_ok)
			return &tring_sources[i];
	return NULL;
}

static int tring_format_show(struct seq_file *m, void *unused)
{
	struct tring_source *s = tring_left_out(m->private);

	tring_ctf_format(m, m->private);
	if (s)
		seq_printf(m, "note: left out: tracepoint %s has another prototype in the headers tring was built against\n",
			   s->tp_name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_format);

/* syscall_entry/format: every sys_<name> event, one after the other. */
static int tring_sys_format_show(struct seq_file *m, void *unused)
{
	const struct tring_event_desc *ev;
	unsigned int nr;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		ev = tring_default_event(TRING_EV_SYS_FIRST + nr);
		if (ev)
			tring_ctf_format(m, ev);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_sys_format);

static int tring_id_show(struct seq_file *m, void *unused)
{
	const struct tring_event_desc *ev = m->private;

	seq_printf(m, "%u\n", ev->id);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_id);

/*
 * The text of a trace_marker write of @count bytes, the first @n of them
 * at @text: up to the first NUL (the metadata declares a NUL-terminated
 * string, so bytes after one would decode as further records), without
 * one trailing newline (echo's) unless the write was cut at @n. A write
 * with a NUL in its first @n bytes is taken whole (*@taken = @count), the
 * bytes after the NUL dropped; one cut with no NUL takes @n, and the
 * rest comes as the next write.
 */
static size_t tring_marker_text_len(const char *text, size_t n, size_t count,
				    size_t *taken)
{
	size_t len = strnlen(text, n);

	*taken = len < n ? count : n;
	if (*taken == count && len && text[len - 1] == '\n')
		len--;
	return len;
}

static ssize_t tring_marker_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_ev_marker *ev;
	struct tring_res res __uninitialized;
	size_t n = min_t(size_t, count, TRING_TEXT_MAX - 1), len, taken;
	char *text;
	int ret;

	if (!READ_ONCE(tring_sources[0].enabled))
		return -EINVAL;
	/* Left out like any event of an untracked process: not an error. */
	if (tring_track_skip(current, NULL))
		return count;
	text = memdup_user(ubuf, n);
	if (IS_ERR(text))
		return PTR_ERR(text);
	len = tring_marker_text_len(text, n, count, &taken);
	preempt_disable_notrace();
	ret = tring_reserve_text(TRING_EV_marker, sizeof(*ev), text, len, &res);
	if (!ret) {
		ev = res.data;
		ev->tid = current->pid;
		tring_commit(&res);
	}
	preempt_enable_notrace();
	kfree(text);
	return ret ? ret : taken;
}

static const struct file_operations tring_marker_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tring_marker_write,
	.llseek	= noop_llseek,
};

static void tring_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].tp_name &&
		    !strcmp(tring_sources[i].tp_name, tp->name))
			tring_sources[i].tp = tp;
}

/* A debugfs file: 0, or the error debugfs_create_file() gave. */
static int tring_create_file(const char *name, umode_t mode,
			     struct dentry *parent, void *data,
			     const struct file_operations *fops)
{
	return PTR_ERR_OR_ZERO(debugfs_create_file(name, mode, parent, data,
						   fops));
}

/*
 * The directory of source @i's group under @events, created with its
 * enable file by the group's first source. Return: the directory with a
 * reference the caller puts with dput(), or an ERR_PTR().
 */
static struct dentry *tring_event_group_dir(struct dentry *events,
					    unsigned int i)
{
	const char *group = tring_sources[i].group;
	struct dentry *dir;
	int ret;

	dir = debugfs_lookup(group, events);
	if (dir)
		return dir;
	dir = debugfs_create_dir(group, events);
	if (IS_ERR(dir))
		return dir;
	/* The group name lives in the static source table. */
	tring_enable_groups[i].group = group;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_groups[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	return dget(dir);

remove_dir:
	debugfs_remove(dir);
	return ERR_PTR(ret);
}

/* id and format of event @ev in @dir; the syscalls' one format file. */
static int tring_add_desc_files(struct dentry *dir,
				const struct tring_event_desc *ev)
{
	int ret;

	if (!ev)
		return tring_create_file("format", 0400, dir, NULL,
					 &tring_sys_format_fops);
	ret = tring_create_file("id", 0400, dir, (void *)ev, &tring_id_fops);
	if (ret)
		return ret;
	return tring_create_file("format", 0400, dir, (void *)ev,
				 &tring_format_fops);
}

/*
 * events/<group>/<event>/ of source @i. On error what this call created
 * for the event is removed; a group directory it created stays for the
 * caller, which removes all of events/.
 */
static int tring_add_event_files(struct dentry *events, unsigned int i)
{
	struct tring_source *s = &tring_sources[i];
	struct dentry *group, *dir;
	int ret;

	group = tring_event_group_dir(events, i);
	if (IS_ERR(group))
		return PTR_ERR(group);
	dir = debugfs_create_dir(s->name, group);
	ret = PTR_ERR_OR_ZERO(dir);
	if (ret)
		goto put_group;
	tring_enable_one[i].one = s;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_one[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	ret = tring_add_desc_files(dir, s->desc);
	/* A tracepoint's event can be filtered (tring_ev_filter.c). */
	if (!ret && s->tp_name && s->desc)
		ret = tring_ev_filter_file(dir, s->desc->id);
	if (ret)
		goto remove_dir;
	dput(group);
	return 0;

remove_dir:
	debugfs_remove(dir);
put_group:
	dput(group);
	return ret;
}

/* events/syscalls/sys_<name>/: enable, id, format, filter of call @nr. */
static int tring_sys_dir(struct dentry *group, unsigned int nr)
{
	const struct tring_event_desc *ev =
		tring_default_event(TRING_EV_SYS_FIRST + nr);
	struct dentry *dir;
	int ret;

	if (!ev)
		return 0;
	dir = debugfs_create_dir(ev->name, group);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	ret = tring_create_file("enable", 0600, dir, (void *)(uintptr_t)nr,
				&tring_sys_enable_fops);
	if (!ret)
		ret = tring_add_desc_files(dir, ev);
	if (!ret)
		ret = tring_ev_filter_file(dir, ev->id);
	return ret;
}

/*
 * A directory per system call, beside syscall_entry (every one), and
 * the count of paths not read, path_faults.
 */
static int tring_sys_dirs(struct dentry *events)
{
	struct dentry *group;
	unsigned int nr;
	int ret = 0;

	group = tring_event_group_dir(events, ARRAY_SIZE(tring_sources) - 1);
	if (IS_ERR(group))
		return PTR_ERR(group);
	for (nr = 0; nr < TRING_NR_SYSCALLS && !ret; nr++)
		ret = tring_sys_dir(group, nr);
	if (!ret)
		ret = tring_create_file("path_faults", 0400, group, NULL,
					&tring_sys_faults_fops);
	dput(group);
	return ret;
}

/**
 * tring_events_builtin - is an event tring describes by hand
 * @group: its group.
 * @name: its name.
 *
 * Such an event wins over the kernel's of the same group and name
 * (tring_generic.c makes no generic event for it).
 *
 * Return: true if @group/@name is one of tring's own events or event
 * directories.
 */
bool tring_events_builtin(const char *group, const char *name)
{
	const struct tring_event_desc *ev;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (!strcmp(tring_sources[i].group, group) &&
		    !strcmp(tring_sources[i].name, name))
			return true;
	for (i = 0; i < tring_nr_builtin_events; i++) {
		ev = &tring_builtin_events[i];
		if (ev->name && !strcmp(ev->group, group) &&
		    !strcmp(ev->name, name))
			return true;
	}
	return false;
}

/* Find each source's tracepoint; say which events this kernel lacks. */
static void tring_find_tracepoints(void)
{
	unsigned int i;

	i = tring_note_left_out();
	if (i)
		pr_warn("%u events left out: their tracepoints changed\n", i);
	for_each_kernel_tracepoint(tring_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		if (!tring_sources[i].proto_ok)
			pr_info("event %s left out: tracepoint %s has another prototype\n",
				tring_sources[i].name, tring_sources[i].tp_name);
		else if (tring_sources[i].tp_name && !tring_sources[i].tp)
			pr_info("no tracepoint %s in this kernel\n",
				tring_sources[i].tp_name);
	}
}

/**
 * tring_events_init - check the event table and create the files
 * @root: /sys/kernel/debug/tring.
 *
 * Every debugfs creation is checked; on error what was created here is
 * removed again.
 *
 * Return: 0 or -errno (-ENOMEM and the like from debugfs).
 */
int tring_events_init(struct dentry *root)
{
	unsigned int i;
	int ret;

	ret = tring_ev_filters_init();
	if (ret)
		return ret;
	tring_find_tracepoints();
	tring_events_dir = debugfs_create_dir("events", root);
	if (IS_ERR(tring_events_dir)) {
		tring_ev_filters_exit();
		return PTR_ERR(tring_events_dir);
	}
	ret = tring_create_file("enable", 0600, tring_events_dir,
				&tring_enable_all, &tring_enable_fops);
	if (ret)
		goto remove_events;
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		ret = tring_add_event_files(tring_events_dir, i);
		if (ret)
			goto remove_events;
	}
	ret = tring_sys_dirs(tring_events_dir);
	if (ret)
		goto remove_events;
	ret = tring_create_file("trace_marker", 0200, root, NULL,
				&tring_marker_fops);
	if (ret)
		goto remove_events;
	/* Every other event of the kernel's, after ours (tring_generic.c). */
	ret = tring_generic_init(tring_events_dir, TRING_ID_FIRST_EVENT +
				 tring_nr_builtin_events);
	if (ret)
		goto remove_events;
	return 0;

remove_events:
	/* The enable files were live: detach what they may have attached. */
	tring_sources_set(NULL, NULL, false);
	debugfs_remove(tring_events_dir);
	tring_events_dir = NULL;
	tring_ev_filters_exit();
	return ret;
}

/**
 * tring_events_exit - detach every probe
 *
 * Returns when no probe runs any more. The files go with the root.
 */
void tring_events_exit(void)
{
	tring_generic_exit();
	tring_sources_set(NULL, NULL, false);
	tring_ev_filters_exit();
}
