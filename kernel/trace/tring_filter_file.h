/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: an event's filter file, events/<group>/<event>/filter, for
 * generic and hand-written events alike (tring_filter_file.c).
 */
#ifndef _TRING_FILTER_FILE_H
#define _TRING_FILTER_FILE_H

#include <linux/jump_label.h>
#include <linux/rcupdate.h>

#include "tring_filter.h"

struct dentry;
struct mutex;
struct tring_filter_ferr;

/**
 * struct tring_filter_slot - one event's filter and its file's state
 * @filter: the filter in force, or NULL. Replaced under @lock; read by
 *	the event's writers, in any context, under RCU-sched; a replaced
 *	filter is freed after a grace period.
 * @ferr: the last text refused and why, shown until the next write;
 *	under @lock.
 * @compile: compile a text for the event this slot belongs to: as
 *	tring_filter_compile(), NULL for a text that removes the filter.
 * @lock: serializes the file's writes and reads (and, for its owner,
 *	whatever else must not run while a filter changes).
 * @released: tring_filter_slot_release() has turned the static key
 *	down for @filter; set once, by the slot's last holder.
 * @gate_pid: tring_filter_gate_pid() of @filter, 0 without one: a
 *	writer tests it before anything else of the filter, with no
 *	section (tring_filter_slot_gated_out()). Written with @filter under
 *	@lock, each with a store of its own: a writer racing with a change
 *	may read the old gate and the new filter or the reverse, and so
 *	judges its event by the old filter or the new one.
 */
struct tring_filter_slot {
	struct tring_filter __rcu *filter;
	struct tring_filter_ferr *ferr;
	struct tring_filter *(*compile)(struct tring_filter_slot *slot,
					const char *text,
					struct tring_filter_error *err);
	struct mutex *lock;	/* the file's; its owner's too */
	bool released;
	int gate_pid;
};

/* On while any slot holds a filter: hand-written events check it. */
DECLARE_STATIC_KEY_FALSE(tring_filter_key);

struct dentry *tring_filter_file(struct tring_filter_slot *slot,
				 struct dentry *dir);
void tring_filter_slot_release(struct tring_filter_slot *slot);
void tring_filter_slot_free(struct tring_filter_slot *slot);
void tring_filter_file_exit(void);

/**
 * tring_filter_slot_gated_out - does @slot's filter leave current out?
 * @slot: the slot.
 *
 * Context: any, NMI included, preemptible or not: it reads one int.
 *
 * Return: true if the filter in force (or the one it replaced, for a
 * writer racing with the change) keeps no event of current's pid.
 */
static __always_inline bool
tring_filter_slot_gated_out(const struct tring_filter_slot *slot)
{
	int pid = READ_ONCE(slot->gate_pid);

	return pid && pid != current->pid;
}

/**
 * tring_filter_get - the filter in force in @slot, or NULL
 * @slot: the slot.
 *
 * Caller: an event writer, with preemption disabled (RCU-sched).
 *
 * Return: the filter, valid until preemption is enabled again.
 */
static __always_inline const struct tring_filter *
tring_filter_get(const struct tring_filter_slot *slot)
{
	return rcu_dereference_sched(slot->filter);
}

#endif /* _TRING_FILTER_FILE_H */
