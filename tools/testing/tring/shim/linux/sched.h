/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: the task running, as much of it as the filter reads
 * (its comm). Each thread is its own task, named as the test sets
 * twin_task.comm (empty until then).
 */
#ifndef _TWIN_LINUX_SCHED_H
#define _TWIN_LINUX_SCHED_H

#define TASK_COMM_LEN	16

struct task_struct {
	char comm[TASK_COMM_LEN];
};

extern __thread struct task_struct twin_task;
#define current		(&twin_task)

#endif /* _TWIN_LINUX_SCHED_H */
