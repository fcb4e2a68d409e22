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
 * Event ids of the default buffer, one per row of tring_event_table.h in
 * its order: the rows before TRING_EXTENDED_IDS() fit the compact record
 * header (ids up to TRING_ID_MODULE_FIRST - 1), the others come after
 * TRING_ID_EXTENDED, then one id per system call number
 * (TRING_EV_SYS_FIRST + nr).
 */
#define TRING_TP_EVENT(grp, name, tp, proto, args, ...) TRING_EV_##name,
#define TRING_MOD_EVENT(grp, name, proto, args, ...) TRING_EV_##name,
#define TRING_EXTENDED_IDS()						\
	TRING_EV_COMPACT_END, TRING_EV_EXT_BASE = TRING_ID_EXTENDED,
enum tring_event_id {
	TRING_EV_BEFORE_FIRST = TRING_ID_FIRST_EVENT - 1,
#include "tring_event_table.h"
	TRING_EV_SYS_FIRST,
};
#undef TRING_TP_EVENT
#undef TRING_MOD_EVENT
#undef TRING_EXTENDED_IDS

static_assert(TRING_EV_COMPACT_END <= TRING_ID_MODULE_FIRST);

extern const struct tring_event_desc tring_builtin_events[];
extern const unsigned int tring_nr_builtin_events;

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
int tring_events_init(struct dentry *root);
void tring_events_exit(void);

/* tring_main.c: the default buffer, for the probes (RCU-sched). */
extern struct tring_buffer __rcu *tring_default_buf;

#endif /* _TRING_EVENTS_H */
