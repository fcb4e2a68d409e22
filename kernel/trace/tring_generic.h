/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: generic events (tring_generic.c), every trace event of the
 * running kernel, recorded through perf's tracepoint events.
 */
#ifndef _TRING_GENERIC_H
#define _TRING_GENERIC_H

#include <linux/types.h>

struct dentry;
struct seq_file;

/* tring_generic.c */
int tring_generic_init(struct dentry *events, unsigned int first_id);
void tring_generic_exit(void);
void tring_generic_ctf(struct seq_file *m);

/* tring_events_fs.c: is group/name a hand-written event (which wins)? */
bool tring_events_builtin(const char *group, const char *name);

#endif /* _TRING_GENERIC_H */
