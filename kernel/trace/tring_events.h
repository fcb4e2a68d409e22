/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the events of the default buffer (tring_events.c) and the CTF
 * metadata generator (tring_ctf.c).
 */
#ifndef _TRING_EVENTS_H
#define _TRING_EVENTS_H

#include <linux/sched.h>
#include <linux/tring.h>

#include "tring_event_gen.h"

/**
 * struct tring_sd_ids - a thread's ids in a statedump, besides its own
 * @vtid: its tid in its own pid namespace.
 * @vpid: its pid (thread group id) there.
 * @ppid: its parent process's pid.
 * @vppid: that pid in the thread's pid namespace.
 */
struct tring_sd_ids {
	pid_t vtid;
	pid_t vpid;
	pid_t ppid;
	pid_t vppid;
};

/* LTTng's statedump values (lttng-modules, lttng-statedump-impl.c). */
#define TRING_SD_USER_THREAD		0
#define TRING_SD_KERNEL_THREAD		1
#define TRING_SD_MODE_UNKNOWN		5
#define TRING_SD_SUBMODE_UNKNOWN	1
#define TRING_SD_UNNAMED		0
#define TRING_SD_WAIT_CPU		2
#define TRING_SD_ZOMBIE			4
#define TRING_SD_WAIT			5
#define TRING_SD_RUN			6
#define TRING_SD_DEAD			7

/*
 * Event ids of the default buffer: after the ids modules may use
 * (TRING_ID_MODULE_FIRST..LAST), one per row of tring_event_table.h in
 * its order, then one per system call number (TRING_EV_SYS_FIRST + nr).
 */
#define TRING_MOD_EVENT(grp, name, proto, args, ...) TRING_EV_##name,
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...) TRING_EV_##name,
enum tring_event_id {
	TRING_EV_BEFORE_FIRST = TRING_ID_MODULE_LAST,
#include "tring_event_table.h"
	TRING_EV_SYS_FIRST,
};

#undef TRING_MOD_EVENT
#undef TRING_TP_EVENT

extern struct tring_event_desc tring_builtin_events[];
extern const unsigned int tring_nr_builtin_events;

/**
 * struct tring_struct_name - a field layout many events share
 * @name: its name in the CTF metadata (struct <name>).
 * @fields: the fields, as in struct tring_event_desc.
 */
struct tring_struct_name {
	const char *name;
	const struct tring_field *fields;
};

/* tring_sys_events.c: the system call entries' layouts; a NULL name ends it. */
extern const struct tring_struct_name tring_sys_structs[];

/* tring_mod_events.c */
void tring_module_events_show(struct seq_file *m,
			      void (*show)(struct seq_file *m,
					   const struct tring_event_desc *ev));

struct seq_file;
struct dentry;

/* tring_ctf.c */
void tring_ctf_metadata(struct seq_file *m, const struct tring_buffer_attr *attr);
void tring_ctf_format(struct seq_file *m, const struct tring_event_desc *ev);
int tring_event_desc_check(const struct tring_event_desc *ev);

/* tring_events_fs.c */
int tring_events_init(struct dentry *root);
void tring_events_exit(void);

/* tring_events.c */
int tring_events_prepare(void);
void tring_sd_write_start(void);
void tring_sd_write_process(struct task_struct *p,
			    const struct tring_sd_ids *ids, int type,
			    int status);
void tring_sd_write_interrupt(unsigned int irq, const char *chip,
			      const char *action);
void tring_sd_write_block_device(u32 dev, const char *name);
void tring_sd_write_end(void);

/*
 * tring_ev_filter.c: the hand-written events' filters, a slot per id -
 * TRING_ID_FIRST_EVENT. A filter reads a record laid out as the
 * payload's fixed part, then at TRING_FREC_STR() the trailing string as
 * a pointer, then common_pid (s32, the writer's tid) at TRING_FREC_PID().
 */
#define TRING_FREC_STR(fixed)	ALIGN((fixed), sizeof(void *))
#define TRING_FREC_PID(fixed)	(TRING_FREC_STR(fixed) + sizeof(void *))

struct tring_filter_slot;
extern struct tring_filter_slot *tring_ev_fslots;
int tring_ev_filters_init(void);
void tring_ev_filters_exit(void);
int tring_ev_filter_file(struct dentry *dir, unsigned int id);

/* tring_statedump.c */
int tring_statedump_init(struct dentry *root);

/* tring_main.c: the default buffer, for the probes (RCU-sched). */
extern struct tring_buffer __rcu *tring_default_buf;

#endif /* _TRING_EVENTS_H */
