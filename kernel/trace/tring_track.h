/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: process tracking (tring_track.c). While tracking/pid holds a
 * set of processes, an event is recorded only if its subject (the
 * current task, or for scheduler events one of the two tasks they name)
 * belongs to one of them; the check runs before anything is reserved.
 */
#ifndef _TRING_TRACK_H
#define _TRING_TRACK_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>

struct dentry;

/* On while a set is in force: the only cost of tracking when it is off. */
DECLARE_STATIC_KEY_FALSE(tring_track_key);

/*
 * Per CPU, while a set is in force: true if the task running there is
 * not in it (tring_track.c states who writes it and when).
 */
DECLARE_PER_CPU(bool, tring_track_out);

bool tring_track_reject(const struct task_struct *a,
			const struct task_struct *b);

/**
 * tring_track_skip - is an event about @a (and @b) left out by tracking?
 * @a: the task the event is about, usually current.
 * @b: a second task it names (the next task of a switch, the task woken),
 *	or NULL. The event is kept if either task is tracked.
 *
 * An event about current alone costs one per-CPU load: what the CPU's
 * last context switch (or the last change of the set) found for the
 * task running there. Safe in any context, NMI included; allocates and
 * locks nothing.
 *
 * Return: true if the event must not be recorded.
 */
static __always_inline bool tring_track_skip(const struct task_struct *a,
					     const struct task_struct *b)
{
	if (!static_branch_unlikely(&tring_track_key))
		return false;
	if (!b && a == current)
		return this_cpu_read(tring_track_out);
	return tring_track_reject(a, b);
}

/**
 * tring_track_skip_current - is an event about current alone left out?
 *
 * tring_track_skip(current, NULL) without its call of the bitmap's test
 * on any path: a probe that calls nothing else keeps no registers.
 *
 * Return: true if the event must not be recorded.
 */
static __always_inline bool tring_track_skip_current(void)
{
	return static_branch_unlikely(&tring_track_key) &&
	       this_cpu_read(tring_track_out);
}

int tring_track_init(struct dentry *root);
void tring_track_exit(void);

#endif /* _TRING_TRACK_H */
