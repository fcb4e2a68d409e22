// SPDX-License-Identifier: GPL-2.0
/*
 * tring: filters of generic events, events/<group>/<event>/filter.
 *
 * A filter names the kernel's fields of the event (common_pid included)
 * and is evaluated by the perf overflow handler on the kernel's record,
 * before anything is reserved (tring_gen_perf.c): an event it rejects
 * costs no buffer space, no commit and no reader time.
 *
 * Writing the file compiles the text (tring_filter.c) and puts the
 * filter in force; "0" (or an empty line) removes it. A filter that does
 * not compile changes nothing: the write fails with EINVAL, and reading
 * the file shows the error, its position and the text, then the filter
 * still in force, until the next write. Writes of one event's filter
 * are serialized by tring_gen_enable_lock; the handler reads the filter
 * under RCU-sched (the tracepoint disables preemption), and a replaced
 * filter is freed after synchronize_rcu().
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_filter.h"
#include "tring_gen.h"

/**
 * struct tring_gen_ferr - the last filter refused
 * @err: where and why.
 * @text: what was written.
 */
struct tring_gen_ferr {
	struct tring_filter_error err;
	char text[];
};

/* What kind of filter field a field of @ev is; false if none. */
static bool tring_gen_ffield(const struct tring_gen_field *f,
			     struct tring_filter_field *ff)
{
	ff->name = f->name;
	/* The kernel's name: the trace's escapes a CTF keyword with '_'. */
	if (f->name[0] == '_' && tring_gen_ctf_keyword(f->name + 1))
		ff->name = f->name + 1;
	ff->offset = f->src;
	ff->size = f->size;
	ff->is_signed = f->is_signed;
	switch (f->kind) {
	case TRING_GEN_INT:
		ff->type = TRING_FT_INT;
		return true;
	case TRING_GEN_CHARS:
		ff->type = TRING_FT_CHARS;
		return true;
	case TRING_GEN_DSTR:
		ff->type = f->rel ? TRING_FT_REL_LOC : TRING_FT_DATA_LOC;
		return true;
	}
	return false;
}

/* Compile @text for @ev's fields. */
static struct tring_filter *tring_gen_compile(const struct tring_gen_event *ev,
					      const char *text,
					      struct tring_filter_error *err)
{
	struct tring_filter_field *ff;
	struct tring_filter *f;
	unsigned int i, n = 0;

	ff = kcalloc(ev->nr_fields, sizeof(*ff), GFP_KERNEL);
	if (!ff)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < ev->nr_fields; i++)
		n += tring_gen_ffield(&ev->fields[i], &ff[n]);
	f = tring_filter_compile(text, ff, n, err);
	kfree(ff);
	return f;
}

/* Put @f (NULL: none) in force on @ev, with @ferr as its last error. */
static void tring_gen_filter_set(struct tring_gen_event *ev,
				 struct tring_filter *f,
				 struct tring_gen_ferr *ferr)
{
	struct tring_filter *old;

	mutex_lock(&tring_gen_enable_lock);
	old = rcu_replace_pointer(ev->filter, f,
				  lockdep_is_held(&tring_gen_enable_lock));
	swap(ev->ferr, ferr);
	mutex_unlock(&tring_gen_enable_lock);
	kfree(ferr);
	if (old) {
		/* No handler still reads it after this. */
		synchronize_rcu();
		tring_filter_free(old);
	}
}

/* Keep a refused filter's text and error for reading. */
static int tring_gen_filter_refused(struct tring_gen_event *ev,
				    const char *text,
				    const struct tring_filter_error *err)
{
	struct tring_gen_ferr *ferr;

	ferr = kmalloc(struct_size(ferr, text, strlen(text) + 1), GFP_KERNEL);
	if (ferr) {
		ferr->err = *err;
		strcpy(ferr->text, text);
		mutex_lock(&tring_gen_enable_lock);
		swap(ev->ferr, ferr);
		mutex_unlock(&tring_gen_enable_lock);
		kfree(ferr);
	}
	return -EINVAL;
}

static ssize_t tring_gen_filter_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct tring_gen_event *ev = file_inode(file)->i_private;
	struct tring_filter_error err;
	struct tring_filter *f = NULL;
	char *text;
	int ret = 0;

	if (*ppos || count > TRING_FILTER_MAX_LEN + 1)
		return -EINVAL;
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return PTR_ERR(text);
	strim(text);
	if (*text && strcmp(text, "0")) {
		f = tring_gen_compile(ev, text, &err);
		if (IS_ERR(f))
			ret = PTR_ERR(f) == -EINVAL ?
			      tring_gen_filter_refused(ev, text, &err) :
			      PTR_ERR(f);
	}
	if (!ret)
		tring_gen_filter_set(ev, f, NULL);
	kfree(text);
	return ret ?: count;
}

static int tring_gen_filter_show(struct seq_file *m, void *unused)
{
	struct tring_gen_event *ev = m->private;
	const struct tring_filter *f;

	mutex_lock(&tring_gen_enable_lock);
	f = rcu_dereference_protected(ev->filter,
				      lockdep_is_held(&tring_gen_enable_lock));
	if (ev->ferr)
		seq_printf(m, "error at %u: %s\n%s\n%*s^\nin force: ",
			   ev->ferr->err.pos, ev->ferr->err.msg,
			   ev->ferr->text, (int)ev->ferr->err.pos, "");
	seq_printf(m, "%s\n", f ? tring_filter_text(f) : "none");
	mutex_unlock(&tring_gen_enable_lock);
	return 0;
}

static int tring_gen_filter_open(struct inode *inode, struct file *file)
{
	return single_open(file, tring_gen_filter_show, inode->i_private);
}

static const struct file_operations tring_gen_filter_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_gen_filter_open,
	.read		= seq_read,
	.write		= tring_gen_filter_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * tring_gen_filter_file - make events/<group>/<event>/filter
 * @ev: the event.
 * @dir: its directory.
 *
 * Return: the file, or an ERR_PTR().
 */
struct dentry *tring_gen_filter_file(struct tring_gen_event *ev,
				     struct dentry *dir)
{
	return debugfs_create_file("filter", 0600, dir, ev,
				   &tring_gen_filter_fops);
}

/**
 * tring_gen_filter_free - free an event's filter and last error
 * @ev: the event, which no handler can run for any more.
 */
void tring_gen_filter_free(struct tring_gen_event *ev)
{
	tring_filter_free(rcu_dereference_protected(ev->filter, true));
	kfree(ev->ferr);
}
