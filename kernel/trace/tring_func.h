/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: kernel function entry and exit tracing. tring_func.c keeps the
 * set of traced functions (the functions file) and its CTF enumeration;
 * tring_func_event.c records the event ftrace/function through an
 * ftrace_ops of tring's, tring_fexit.c ftrace/function_exit through an
 * fprobe of tring's (kernels with fprobe).
 */
#ifndef _TRING_FUNC_H
#define _TRING_FUNC_H

#include <linux/rcupdate.h>
#include <linux/types.h>

struct dentry;
struct seq_file;
struct tring_gen_event;

/* Functions traced at once; a write that would make more is refused. */
#define TRING_FUNC_MAX		65536

/**
 * struct tring_func - one traced function
 * @start: the symbol's address.
 * @size: the symbol's bytes, as kallsyms has them.
 * @name: offset of its name in the set's names.
 */
struct tring_func {
	unsigned long start;
	unsigned int size;
	unsigned int name;
};

/**
 * struct tring_func_set - the traced functions, as one immutable snapshot
 * @rcu: frees it after the readers of the metadata are done.
 * @nr: entries in @ips and @fn.
 * @ips: the functions' ftrace locations (where the callback's ip
 *	points), in address order: the ftrace_ops' filter.
 * @fn: the functions, in the same order.
 * @names: their names, NUL-terminated, one after the other.
 */
struct tring_func_set {
	struct rcu_head rcu;
	unsigned int nr;
	unsigned long *ips;
	struct tring_func *fn;
	char *names;
};

/* tring_func.c, built where the kernel has the dynamic function tracer */
#ifdef CONFIG_DYNAMIC_FTRACE
int tring_func_init(struct dentry *root);
void tring_func_exit(void);
#else
/* No functions file: nothing to trace function entry with. */
static inline int tring_func_init(struct dentry *root)
{
	return 0;
}

static inline void tring_func_exit(void)
{
}
#endif
void tring_func_ctf_decl(struct seq_file *m, const struct tring_gen_event *ev,
			 unsigned long *done);
bool tring_func_ctf_field(struct seq_file *m, const struct tring_gen_event *ev,
			  unsigned int i);

/* tring_func_event.c */
struct tring_gen_event *tring_func_event_new(void);
void tring_func_event_free(struct tring_gen_event *ev);
int tring_func_tracer_set(const unsigned long *ips, unsigned int nr);
void tring_func_tracer_show(struct seq_file *m);
int tring_func_field_add(struct tring_gen_event *ev, const char *name,
			 unsigned int src, bool is_signed);

/*
 * tring_fexit.c: ftrace/function_exit, where the kernel has fprobe
 * (Kbuild's TRING_HAVE_FPROBE); elsewhere there is no such event.
 */
#ifdef TRING_HAVE_FPROBE
struct tring_gen_event *tring_fexit_event_new(void);
void tring_fexit_event_free(struct tring_gen_event *ev);
int tring_fexit_set(const unsigned long *ips, unsigned int nr);
#else
static inline struct tring_gen_event *tring_fexit_event_new(void)
{
	return NULL;
}

static inline void tring_fexit_event_free(struct tring_gen_event *ev)
{
}

static inline int tring_fexit_set(const unsigned long *ips, unsigned int nr)
{
	return 0;
}
#endif

#endif /* _TRING_FUNC_H */
