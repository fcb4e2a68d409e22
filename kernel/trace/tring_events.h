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

/* The frequent events (up to this row) fit the compact record header. */
static_assert(TRING_EV_power_cpu_frequency < TRING_ID_EXTENDED);

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

/* The system call entries' layouts; ends with a NULL name. */
extern const struct tring_struct_name tring_sys_structs[];

void tring_module_events_show(struct seq_file *m,
			      void (*show)(struct seq_file *m,
					   const struct tring_event_desc *ev));

struct seq_file;
struct dentry;

/* tring_ctf.c */
void tring_ctf_metadata(struct seq_file *m, const struct tring_buffer_attr *attr);
void tring_ctf_format(struct seq_file *m, const struct tring_event_desc *ev);
int tring_event_desc_check(const struct tring_event_desc *ev);

/* tring_events.c */
int tring_events_prepare(void);
int tring_events_init(struct dentry *root);
void tring_events_exit(void);

/* tring_main.c: the default buffer, for the probes (RCU-sched). */
extern struct tring_buffer __rcu *tring_default_buf;

#endif /* _TRING_EVENTS_H */
