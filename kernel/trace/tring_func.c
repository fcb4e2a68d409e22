// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the functions file, the set of kernel functions the events
 * ftrace/function (tring_func_event.c) and, on kernels with fprobe,
 * ftrace/function_exit (tring_fexit.c) trace, with the semantics of
 * ftrace's set_ftrace_filter: each word written is a glob ("vfs_*",
 * "*lock*", an exact name) that adds the functions it matches, or with
 * a leading '!' removes them; opened with O_TRUNC (">") the file is
 * emptied first; reading lists the functions, one a line, in address
 * order. A write is done whole or not at all: a word that matches no
 * function (EINVAL), a set past TRING_FUNC_MAX functions (ENOSPC) or
 * ftrace's refusal leaves the set as it was, and says why in the
 * kernel log. A write holds whole words (at most TRING_FUNC_WRITE_MAX
 * bytes).
 *
 * ftrace does the matching, over the functions it can trace (notrace
 * ones, and those not in its list, are never matched): each word goes
 * to ftrace_set_filter() on tring_func_match_ops, an ftrace_ops that is
 * never registered, whose filter is the set being made. The kernel
 * exports no way to list the matches (nor kallsyms' symbols), so they
 * are read from that ops' filter hash, whose layout (struct
 * ftrace_hash, private to kernel/trace before 6.13) is mirrored here and
 * checked against its count. tring's own functions are left out of the
 * set (a pattern that only matches them adds nothing): tring's write
 * path would call itself. A pattern is expanded when written: a module
 * loaded after adds nothing; a module's functions leave the set when
 * it is unloaded.
 *
 * The set, each function's symbol and size from sprint_symbol(), is an
 * immutable snapshot published with RCU: the metadata (written under
 * rcu_read_lock()) names the traced functions in a CTF enumeration over
 * their address ranges, the type of the fields ip and parent_ip, so
 * that a CTF reader prints the function's name beside the address (a
 * caller outside the set is shown unnamed). tring-record copies the
 * metadata at the start and again at the end of a recording: the end's
 * set is the one that names the recording's functions, so the set is
 * best fixed before recording.
 *
 * Memory per traced function: 24 bytes here and its name (about 20),
 * and in ftrace an entry of 32 bytes in each of the two ops' filter
 * hashes (with their buckets' share): about 130 bytes.
 *
 * Concurrency: tring_func_lock serializes the writers, the match ops,
 * the module notifier and the publication of tring_func_cur; readers of
 * the metadata dereference tring_func_cur under RCU, and a replaced set
 * is freed after a grace period.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_func.h"
#include "tring_gen.h"

/* Bytes a single write may hold. */
#define TRING_FUNC_WRITE_MAX	SZ_64K

#ifndef TRING_HAVE_FTRACE_HASH
/* kernel/trace/trace.h's, the same from 4.13 to 6.12. */
struct ftrace_hash {
	unsigned long size_bits;
	struct hlist_head *buckets;
	unsigned long count;
	unsigned long flags;
	struct rcu_head rcu;
};
#endif

static DEFINE_MUTEX(tring_func_lock);
/* Never registered: its filter is where ftrace matches the patterns. */
static struct ftrace_ops tring_func_match_ops;
/* The set in force; under tring_func_lock, read under RCU. */
static struct tring_func_set __rcu *tring_func_cur;
static struct tring_gen_event *tring_func_ev;
/* ftrace/function_exit, NULL where the kernel has no fprobe. */
static struct tring_gen_event *tring_func_exit_ev;
static struct dentry *tring_func_file;

static int tring_func_cmp_ip(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The functions of the match ops' filter, tring's own left out, sorted:
 * *@ips (kvmalloc'd, NULL if none) and *@nr. Return: 0 or -errno.
 */
static int tring_func_matched(unsigned long **ips, unsigned int *nr)
{
	struct ftrace_ops_hash *oh = tring_func_match_ops.func_hash;
	struct ftrace_func_entry *e;
	struct ftrace_hash *hash;
	unsigned long i, n = 0, seen = 0;
	unsigned long *a = NULL;

	mutex_lock(&oh->regex_lock);
	hash = rcu_dereference_protected(oh->filter_hash,
					 lockdep_is_held(&oh->regex_lock));
	if (hash->count)
		a = kvmalloc_array(hash->count, sizeof(*a), GFP_KERNEL);
	for (i = 0; a && i < BIT(hash->size_bits); i++) {
		hlist_for_each_entry(e, &hash->buckets[i], hlist) {
			if (++seen > hash->count)
				break;
			if (!within_module(e->ip, THIS_MODULE))
				a[n++] = e->ip;
		}
	}
	mutex_unlock(&oh->regex_lock);
	if (seen != hash->count) {
		kvfree(a);
		/* Only if struct ftrace_hash is not the mirrored one. */
		WARN_ONCE(a, "ftrace's filter hash is not as tring expects\n");
		return a ? -EIO : -ENOMEM;
	}
	if (n > TRING_FUNC_MAX) {
		kvfree(a);
		return -ENOSPC;
	}
	sort(a, n, sizeof(*a), tring_func_cmp_ip, NULL);
	*ips = a;
	*nr = n;
	return 0;
}

static void tring_func_set_free(struct tring_func_set *set)
{
	if (!set)
		return;
	kvfree(set->ips);
	kvfree(set->fn);
	kvfree(set->names);
	kfree(set);
}

static void tring_func_set_free_rcu(struct rcu_head *rcu)
{
	tring_func_set_free(container_of(rcu, struct tring_func_set, rcu));
}

/*
 * Function @i of @set from its ftrace location: its symbol's start and
 * size; its name's length returned, and the name written at
 * @set->names + *@len if @set->names, then *@len moved past it.
 */
static void tring_func_symbol(struct tring_func_set *set, unsigned int i,
			      size_t *len)
{
	struct tring_func *f = &set->fn[i];
	unsigned long off = 0, size = 0;
	char sym[KSYM_SYMBOL_LEN];
	size_t n;

	sprint_symbol(sym, set->ips[i]);
	/* "name+0xOFF/0xSIZE [module]" */
	n = strcspn(sym, "+ ");
	if (sym[n] == '+' && sscanf(sym + n, "+%lx/%lx", &off, &size) != 2)
		size = 0;
	f->start = set->ips[i] - off;
	f->size = clamp_val(size, 1, U32_MAX);
	f->name = *len;
	if (set->names)
		memcpy(set->names + *len, sym, n);
	*len += n + 1;
}

/* A set of the @nr functions at @ips (taken over, also on error). */
static struct tring_func_set *tring_func_set_new(unsigned long *ips,
						 unsigned int nr)
{
	struct tring_func_set *set;
	size_t len = 0;
	unsigned int i;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set) {
		kvfree(ips);
		return NULL;
	}
	set->ips = ips;
	set->nr = nr;
	if (!nr)
		return set;
	set->fn = kvmalloc_array(nr, sizeof(*set->fn), GFP_KERNEL);
	/* Twice: the names' length, then the names. */
	for (i = 0; set->fn && i < nr; i++)
		tring_func_symbol(set, i, &len);
	if (set->fn)
		set->names = kvzalloc(len, GFP_KERNEL);
	if (!set->names) {
		tring_func_set_free(set);
		return NULL;
	}
	for (len = 0, i = 0; i < nr; i++)
		tring_func_symbol(set, i, &len);
	return set;
}

static struct tring_func_set *tring_func_set_get(void)
{
	return rcu_dereference_protected(tring_func_cur,
					 lockdep_is_held(&tring_func_lock));
}

/* Make the match ops' filter the set in force again (after a failure). */
static void tring_func_match_revert(void)
{
	struct tring_func_set *cur = tring_func_set_get();
	int ret;

	ret = ftrace_set_filter_ips(&tring_func_match_ops,
				    cur ? cur->ips : NULL, cur ? cur->nr : 0,
				    0, 1);
	if (ret)
		pr_warn("functions: the patterns' state could not be restored (%d): the next write starts from another set\n",
			ret);
}

/* Give the tracers the set in force @cur again (after a failure). */
static void tring_func_tracers_revert(struct tring_func_set *cur)
{
	const unsigned long *ips = cur ? cur->ips : NULL;
	unsigned int nr = cur ? cur->nr : 0;

	if (tring_func_tracer_set(ips, nr) || tring_fexit_set(ips, nr))
		pr_warn("functions: the tracers could not be given the set in force again\n");
}

/* The match ops' filter becomes the set in force; tring_func_lock held. */
static int tring_func_commit(void)
{
	struct tring_func_set *set, *old = tring_func_set_get();
	unsigned long *ips;
	unsigned int nr;
	int ret;

	ret = tring_func_matched(&ips, &nr);
	if (ret == -ENOSPC)
		pr_warn("functions: more than %u functions\n", TRING_FUNC_MAX);
	if (ret)
		return ret;
	set = tring_func_set_new(ips, nr);
	if (!set)
		return -ENOMEM;
	ret = tring_func_tracer_set(set->ips, set->nr);
	if (ret) {
		pr_warn("functions: ftrace refused the filter (%d)\n", ret);
		tring_func_set_free(set);
		return ret;
	}
	ret = tring_fexit_set(set->ips, set->nr);
	if (ret) {
		pr_warn("functions: the exit probe refused the set (%d)\n", ret);
		tring_func_tracers_revert(old);
		tring_func_set_free(set);
		return ret;
	}
	rcu_assign_pointer(tring_func_cur, set);
	if (old)
		call_rcu(&old->rcu, tring_func_set_free_rcu);
	return 0;
}

/* Apply the words of @buf to the match ops; the first that fails stops. */
static int tring_func_words(char *buf)
{
	char *word, *glob;
	int ret;

	while ((word = strsep(&buf, " \t\n")) != NULL) {
		if (!*word)
			continue;
		/* ftrace cuts the glob's '*' off: the word is kept to show. */
		glob = kstrdup(word, GFP_KERNEL);
		ret = glob ? ftrace_set_filter(&tring_func_match_ops, glob,
					       strlen(glob), 0) : -ENOMEM;
		kfree(glob);
		if (ret == -EINVAL)
			pr_warn("functions: '%s' matches no function ftrace can trace\n",
				word);
		else if (ret)
			pr_warn("functions: '%s' refused by ftrace (%d)\n",
				word, ret);
		if (ret)
			return ret;
	}
	return 0;
}

static ssize_t tring_func_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	if (count > TRING_FUNC_WRITE_MAX)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&tring_func_lock);
	ret = tring_func_words(buf);
	if (!ret)
		ret = tring_func_commit();
	if (ret)
		tring_func_match_revert();
	mutex_unlock(&tring_func_lock);
	kfree(buf);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

/* Empty the set; tring_func_lock held. */
static int tring_func_clear(void)
{
	int ret;

	ret = ftrace_set_filter_ips(&tring_func_match_ops, NULL, 0, 0, 1);
	if (!ret)
		ret = tring_func_commit();
	if (ret)
		tring_func_match_revert();
	return ret;
}

static int tring_func_show(struct seq_file *m, void *unused)
{
	struct tring_func_set *set;
	unsigned int i;

	mutex_lock(&tring_func_lock);
	set = tring_func_set_get();
	for (i = 0; set && i < set->nr; i++)
		seq_printf(m, "%s\n", set->names + set->fn[i].name);
	mutex_unlock(&tring_func_lock);
	return 0;
}

static int tring_func_open(struct inode *inode, struct file *file)
{
	int ret;

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		mutex_lock(&tring_func_lock);
		ret = tring_func_clear();
		mutex_unlock(&tring_func_lock);
		if (ret)
			return ret;
	}
	return single_open(file, tring_func_show, NULL);
}

static const struct file_operations tring_func_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_func_open,
	.read		= seq_read,
	.write		= tring_func_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* A module goes: its functions leave the set (ftrace drops them). */
static int tring_func_module_notify(struct notifier_block *nb,
				    unsigned long val, void *data)
{
	struct module *mod = data;
	struct tring_func_set *cur;
	unsigned int i, gone = 0;
	int ret = 0;

	if (val != MODULE_STATE_GOING)
		return NOTIFY_OK;
	mutex_lock(&tring_func_lock);
	cur = tring_func_set_get();
	for (i = 0; cur && i < cur->nr && !ret; i++) {
		if (!within_module(cur->ips[i], mod))
			continue;
		ret = ftrace_set_filter_ip(&tring_func_match_ops, cur->ips[i],
					   1, 0);
		gone++;
	}
	if (!ret && gone)
		ret = tring_func_commit();
	if (ret) {
		pr_warn("functions: the functions of %s could not be removed (%d)\n",
			mod->name, ret);
		tring_func_match_revert();
	}
	mutex_unlock(&tring_func_lock);
	return NOTIFY_OK;
}

static struct notifier_block tring_func_module_nb = {
	.notifier_call = tring_func_module_notify,
};

/**
 * tring_func_ctf_decl - the CTF type of the function events' addresses
 * @m: where.
 * @ev: the event (ftrace/function or ftrace/function_exit).
 * @done: the shared declarations this metadata has already: the type is
 *	written once (TRING_GEN_CTF_FUNCTION), for whichever comes first.
 *
 * tring_function_t: an enumeration whose labels are the traced
 * functions' names over their address ranges; a plain integer while
 * the set is empty (CTF has no empty enumeration). Under RCU.
 */
void tring_func_ctf_decl(struct seq_file *m, const struct tring_gen_event *ev,
			 unsigned long *done)
{
	static const char *const base =
		"integer { size = 64; align = 8; signed = false; base = 16; }";
	const struct tring_func_set *set;
	const struct tring_func *f;
	unsigned int i;

	if (*done & TRING_GEN_CTF_FUNCTION)
		return;
	*done |= TRING_GEN_CTF_FUNCTION;
	set = rcu_dereference(tring_func_cur);
	if (!set || !set->nr) {
		seq_printf(m, "typealias %s := tring_function_t;\n\n", base);
		return;
	}
	seq_printf(m, "typealias enum : %s {\n", base);
	for (i = 0; i < set->nr; i++) {
		f = &set->fn[i];
		seq_printf(m, "\t\"%s\" = 0x%lx ... 0x%lx,\n",
			   set->names + f->name, f->start,
			   f->start + f->size - 1);
	}
	seq_puts(m, "} := tring_function_t;\n\n");
}

/**
 * tring_func_ctf_field - a field of the function event, in CTF
 * @m: where.
 * @ev: the event.
 * @i: the field: ip or parent_ip, both of type tring_function_t.
 *
 * Return: true (written).
 */
bool tring_func_ctf_field(struct seq_file *m, const struct tring_gen_event *ev,
			  unsigned int i)
{
	seq_printf(m, "\t\ttring_function_t %s;\n", ev->fields[i].name);
	return true;
}

/* List ftrace/function_exit where the kernel has fprobe (tring_fexit.c). */
static int tring_func_exit_add(void)
{
	struct tring_gen_event *ev;
	int ret;

	ev = tring_fexit_event_new();
	if (IS_ERR_OR_NULL(ev))
		return PTR_ERR_OR_ZERO(ev);
	kref_get(&ev->ref);
	ret = tring_gen_add(ev);
	if (ret) {
		tring_gen_put(ev);
		return ret;
	}
	tring_func_exit_ev = ev;
	return 0;
}

/* Disable, unlist and free ftrace/function_exit, if listed. */
static void tring_func_exit_remove(void)
{
	if (!tring_func_exit_ev)
		return;
	tring_gen_unlist(tring_func_exit_ev);
	tring_fexit_event_free(tring_func_exit_ev);
	tring_func_exit_ev = NULL;
}

/**
 * tring_func_init - the function events and the functions file
 * @root: tring's debugfs directory.
 *
 * After the generic events are up (tring_events_init()). Without
 * generic events (generic_events=0) there is neither.
 *
 * Return: 0, or -errno with nothing left.
 */
int tring_func_init(struct dentry *root)
{
	struct tring_gen_event *ev;
	int ret;

	ev = tring_func_event_new();
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	/* Ours, beside the list's (tring_gen_add() drops one if it fails). */
	kref_get(&ev->ref);
	ret = tring_gen_add(ev);
	if (ret) {
		tring_gen_put(ev);
		return ret == -ENODEV ? 0 : ret;
	}
	tring_func_ev = ev;
	ret = tring_func_exit_add();
	if (ret)
		goto unlist;
	ret = register_module_notifier(&tring_func_module_nb);
	if (ret)
		goto unlist;
	tring_func_file = debugfs_create_file("functions", 0600, root, NULL,
					      &tring_func_fops);
	if (!IS_ERR(tring_func_file))
		return 0;
	ret = PTR_ERR(tring_func_file);
	unregister_module_notifier(&tring_func_module_nb);
unlist:
	tring_func_exit_remove();
	tring_gen_unlist(ev);
	tring_func_event_free(ev);
	tring_func_ev = NULL;
	return ret;
}

/**
 * tring_func_exit - remove the file, disable and unlist the event
 *
 * Returns when no callback runs any more and the set is freed.
 */
void tring_func_exit(void)
{
	struct tring_func_set *set;

	if (!tring_func_ev)
		return;
	debugfs_remove(tring_func_file);
	unregister_module_notifier(&tring_func_module_nb);
	/* Disabled: the ops and fprobe unregistered, no callback running. */
	tring_func_exit_remove();
	tring_gen_unlist(tring_func_ev);
	tring_func_event_free(tring_func_ev);
	tring_func_ev = NULL;
	mutex_lock(&tring_func_lock);
	set = tring_func_set_get();
	RCU_INIT_POINTER(tring_func_cur, NULL);
	ftrace_free_filter(&tring_func_match_ops);
	mutex_unlock(&tring_func_lock);
	/* Readers of the metadata may still hold it. */
	if (set)
		call_rcu(&set->rcu, tring_func_set_free_rcu);
	/* This set's callback and the replaced sets' run before unload. */
	rcu_barrier();
}
