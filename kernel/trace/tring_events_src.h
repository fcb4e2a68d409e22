/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the sources of the default buffer's events (the probes that
 * write them, tring_events.c and tring_sys_events.c) as their enable
 * files see them (tring_events_fs.c), and what those files share.
 * Private to the three.
 */
#ifndef _TRING_EVENTS_SRC_H
#define _TRING_EVENTS_SRC_H

#include <linux/bitmap.h>
#include <linux/jump_label.h>
#include <linux/types.h>

#include "tring_events.h"
#include "tring_filter_file.h"

struct dentry;
struct pt_regs;
struct tracepoint;

/* Longest text a marker, a file name or an irq name is cut to. */
#define TRING_TEXT_MAX		1024

/*
 * Each source's index in tring_sources[]: the marker first, then the
 * tracepoints' events in the table's order, syscall_entry last.
 */
#define TRING_MOD_EVENT(grp, name, proto, args, ...)
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...) TRING_SRC_##name,
enum tring_source_index {
	TRING_SRC_MARKER,
#include "tring_event_table.h"
	TRING_SRC_SYSCALLS,
	TRING_NR_SOURCES
};

#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT

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
 * @enabled changes under tring_events_lock (tring_events_fs.c); the
 * marker's is read with READ_ONCE by trace_marker writers.
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

extern struct tring_source tring_sources[TRING_NR_SOURCES];

/*
 * The system call table's size, one more than its highest number
 * (tring_syscalls.h, generated at build time, says it first).
 */
#define TRING_SYSCALL(nr, sym, n, p, a0, a1, a2, a3, a4, a5)
#include "tring_syscalls.h"
#undef TRING_SYSCALL
#define TRING_NR_SYSCALLS	TRING_SYSCALLS_END

/*
 * Every row of the table and every system call's entry event fits the
 * 4-byte record header (ids below TRING_ID_WIDE).
 */
static_assert(TRING_EV_SYS_FIRST + TRING_NR_SYSCALLS <= TRING_ID_WIDE);

/*
 * The system calls recorded while syscall_entry's probe is registered,
 * by number: see their definition in tring_sys_events.c.
 */
extern DECLARE_BITMAP(tring_sys_on, TRING_NR_SYSCALLS);
extern bool tring_sys_all;

/* tring_events.c */
unsigned int tring_note_left_out(void);
int tring_marker_record(const char *text, size_t len);
int tring_reserve_text(unsigned int id, unsigned int fixed,
		       const char *text, size_t n, struct tring_res *res);
void *tring_reserve_fixed(unsigned int id, unsigned int len,
			  struct tring_res *res);
void tring_sys_unknown_record(long nr, const unsigned long *args);

/* tring_sys_events.c */
void tring_prepare_syscalls(void);
int tring_sys_faults_file(struct dentry *group);
void tring_probe_sys_enter(void *data, struct pt_regs *regs, long id);

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
 * passes. One int of the slot, read in any context with no section.
 */
static __always_inline bool tring_ev_gated_out(unsigned int id)
{
	if (!static_branch_unlikely(&tring_filter_key))
		return false;
	return tring_filter_slot_gated_out(&tring_ev_fslots[id -
							    TRING_ID_FIRST_EVENT]);
}

#endif /* _TRING_EVENTS_SRC_H */
