/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the events of the default buffer (tring_events.c) and the CTF
 * metadata generator (tring_ctf.c).
 */
#ifndef _TRING_EVENTS_H
#define _TRING_EVENTS_H

#include <linux/sched.h>
#include <linux/tring.h>

#include "tring_test.h"

/* Event ids of the default buffer; all fit the compact header. */
enum tring_event_id {
	TRING_EV_MARKER = TRING_ID_FIRST_EVENT,
	TRING_EV_TEST = TRING_TEST_EVENT_ID,
	TRING_EV_STRESS = TRING_STRESS_EVENT_ID,
	TRING_EV_SCHED_SWITCH,
	TRING_EV_SCHED_WAKEUP,
	TRING_EV_SCHED_PROCESS_FORK,
	TRING_EV_SCHED_PROCESS_EXEC,
	TRING_EV_SCHED_PROCESS_EXIT,
	TRING_EV_IRQ_HANDLER_ENTRY,
	TRING_EV_IRQ_HANDLER_EXIT,
	TRING_EV_SOFTIRQ_ENTRY,
	TRING_EV_SOFTIRQ_EXIT,
	TRING_EV_SYS_ENTER,
	TRING_EV_SYS_EXIT,
};

/*
 * Payloads, written in place at 4-byte alignment (hence __packed). Fields
 * follow each other without holes (checked at load).
 */
struct tring_ev_marker {
	s32 tid;
	/* then the text, NUL-terminated */
} __packed;

struct tring_ev_sched_switch {
	char prev_comm[TASK_COMM_LEN];
	s32 prev_tid;
	s32 prev_prio;
	u32 prev_state;
	char next_comm[TASK_COMM_LEN];
	s32 next_tid;
	s32 next_prio;
} __packed;

struct tring_ev_sched_wakeup {
	char comm[TASK_COMM_LEN];
	s32 tid;
	s32 prio;
	s32 target_cpu;
} __packed;

struct tring_ev_sched_process_fork {
	char parent_comm[TASK_COMM_LEN];
	s32 parent_tid;
	char child_comm[TASK_COMM_LEN];
	s32 child_tid;
} __packed;

struct tring_ev_sched_process_exec {
	s32 tid;
	s32 old_tid;
	/* then the file name, NUL-terminated */
} __packed;

struct tring_ev_sched_process_exit {
	char comm[TASK_COMM_LEN];
	s32 tid;
	s32 prio;
} __packed;

struct tring_ev_irq_handler_entry {
	s32 irq;
	/* then the handler's name, NUL-terminated */
} __packed;

struct tring_ev_irq_handler_exit {
	s32 irq;
	s32 ret;
} __packed;

struct tring_ev_softirq {
	u32 vec;
} __packed;

struct tring_ev_sys_enter {
	s64 id;
	u64 args[6];
} __packed;

struct tring_ev_sys_exit {
	s64 id;
	s64 ret;
} __packed;

extern const struct tring_event_desc tring_builtin_events[];
extern const unsigned int tring_nr_builtin_events;

struct seq_file;
struct dentry;

/* tring_ctf.c */
void tring_ctf_metadata(struct seq_file *m, const struct tring_buffer_attr *attr);
void tring_ctf_format(struct seq_file *m, const struct tring_event_desc *ev);
int tring_event_desc_check(const struct tring_event_desc *ev);

/* tring_events.c */
int tring_events_init(struct dentry *root);
void tring_events_exit(void);

/* tring_main.c: the default buffer, for the probes (RCU-sched). */
extern struct tring_buffer __rcu *tring_default_buf;

#endif /* _TRING_EVENTS_H */
