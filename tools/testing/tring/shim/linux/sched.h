/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: the task running, as much of it as the filter reads
 * (its comm and pid). Each thread is its own task, named and numbered
 * as the test sets twin_task.comm and .pid (empty and 0 until then).
 */
#ifndef _TWIN_LINUX_SCHED_H
#define _TWIN_LINUX_SCHED_H

#define TASK_COMM_LEN	16

struct task_struct {
	char comm[TASK_COMM_LEN];
	int pid;
};

extern __thread struct task_struct twin_task;
#define current		(&twin_task)

#endif /* _TWIN_LINUX_SCHED_H */
