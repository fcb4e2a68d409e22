/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: dynamic probes as tring events (tring_probe_event.c), and the
 * files that define them (tring_probe_fs.c).
 */
#ifndef _TRING_PROBE_EVENT_H
#define _TRING_PROBE_EVENT_H

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/path.h>
#include <linux/uprobes.h>

#include "tring_probe.h"

struct dentry;
struct seq_file;
struct tring_gen_event;
struct tring_gen_ops;

/* Bytes of one hit's record: a longer one is cut (its strings). */
#define TRING_PROBE_REC		2048
/* Probes defined at once; one more is refused (ENOSPC). */
#define TRING_PROBE_MAX_PROBES	1024

/**
 * struct tring_uprobe - a uprobe's or uretprobe's state
 * @uc: the consumer, registered while the probe's event is enabled (its
 *	->on, tring_probe_uprobe.c), unregistered when it is disabled.
 * @path: the probed file, from the definition until the probe is freed:
 *	it keeps the inode, which the uprobe names, also once the file is
 *	unlinked.
 * @inode: the probed inode, @path's.
 * @uprobe: 6.12: the uprobe uprobe_register() returned, while
 *	registered; the handle to unregister it.
 */
struct tring_uprobe {
	struct uprobe_consumer uc;
	struct path path;
	struct inode *inode;
	struct uprobe *uprobe;
};

/**
 * struct tring_probe - one dynamic probe
 * @node: in the list of probes (tring_probe_lock).
 * @def: its definition, immutable once the probe is made (its @SYM
 *	operands resolved before).
 * @ev: its event, with a reference of the probe's.
 * @text: the definition as kprobe_events lists it.
 * @missed_seen: kprobes' misses of it already counted in the trace;
 *	raised with a cmpxchg by whichever handler counts more.
 * @rp: a kprobe's: the kretprobe, or in @rp.kp the kprobe; registered
 *	while the probe exists, enabled while its event is.
 * @up: a uprobe's (tring_probe_user()).
 *
 * Made and freed under tring_probe_lock; its handlers read it until the
 * kprobe is unregistered (the uprobe: until its event is disabled).
 */
struct tring_probe {
	struct list_head node;
	struct tring_probe_def *def;
	struct tring_gen_event *ev;
	char *text;
	atomic_long_t missed_seen;
	union {
		struct kretprobe rp;
		struct tring_uprobe up;
	};
};

/* Whether @def is a uprobe's or a uretprobe's. */
static inline bool tring_probe_user(const struct tring_probe_def *def)
{
	return def->kind == TRING_PROBE_UPROBE ||
	       def->kind == TRING_PROBE_URETPROBE;
}

/* Whether @p was defined through @file. */
static inline bool tring_probe_of(const struct tring_probe *p,
				  enum tring_probe_file file)
{
	return tring_probe_user(p->def) == (file == TRING_PROBE_FILE_UPROBE);
}

/* tring_probe_event.c */
void tring_probe_hit(struct tring_probe *p,
		     const struct tring_probe_ctx *ctx);
int tring_probe_command(const char *line, enum tring_probe_file file,
			struct tring_probe_error *err);
int tring_probe_clear(enum tring_probe_file file);
void tring_probe_list(struct seq_file *m, enum tring_probe_file file);
void tring_probe_exit_all(void);

/* tring_probe_kprobe.c, built where the kernel has kretprobes */
#ifdef CONFIG_KRETPROBES
extern const struct tring_gen_ops tring_kprobe_gen_ops;

static inline const struct tring_gen_ops *tring_kprobe_ops(void)
{
	return &tring_kprobe_gen_ops;
}

int tring_kprobe_resolve(struct tring_probe_def *def,
			 struct tring_probe_error *err);
const char *tring_kprobe_why(int ret);
int tring_kprobe_register(struct tring_probe *p);
void tring_kprobe_unregister(struct tring_probe *p);
bool tring_kprobe_unregister_many(struct list_head *victims, unsigned int n);
#else
/* No kprobe can be made: kprobe_events does not exist. */
static inline const struct tring_gen_ops *tring_kprobe_ops(void)
{
	return NULL;
}

static inline int tring_kprobe_resolve(struct tring_probe_def *def,
				       struct tring_probe_error *err)
{
	return 0;
}

static inline const char *tring_kprobe_why(int ret)
{
	return "this kernel has no kprobes";
}

static inline int tring_kprobe_register(struct tring_probe *p)
{
	return -EOPNOTSUPP;
}

static inline void tring_kprobe_unregister(struct tring_probe *p)
{
}

static inline bool tring_kprobe_unregister_many(struct list_head *victims,
						unsigned int n)
{
	return true;
}
#endif

/* tring_probe_uprobe.c */
extern const struct tring_gen_ops tring_uprobe_gen_ops;
int tring_uprobe_prepare(struct tring_probe *p,
			 struct tring_probe_error *err);
void tring_uprobe_release(struct tring_probe *p);

/* tring_probe_fs.c */
int tring_probe_init(struct dentry *root);
void tring_probe_exit(void);

#endif /* _TRING_PROBE_EVENT_H */
