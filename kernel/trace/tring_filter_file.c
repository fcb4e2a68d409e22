// SPDX-License-Identifier: GPL-2.0
/*
 * tring: an event's filter file, events/<group>/<event>/filter.
 *
 * Writing the file compiles the text (tring_filter.c, through the
 * slot's compile function, which knows the event's fields) and puts the
 * filter in force; "0" (or an empty line), blanks around it, removes it
 * (the compiler says so with NULL). A filter that does
 * not compile changes nothing: the write fails with EINVAL, and reading
 * the file shows the error, its position and the text, then the filter
 * still in force, until the next write.
 *
 * The event's writers read the filter under RCU-sched (tracepoints and
 * the perf overflow handler run with preemption disabled); a replaced
 * filter is freed by an RCU callback, so a write never waits for a grace
 * period, and tring_filter_file_exit() waits for the callbacks before
 * the module goes.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_filter_file.h"

DEFINE_STATIC_KEY_FALSE(tring_filter_key);

/**
 * struct tring_filter_ferr - the last filter refused
 * @err: where and why.
 * @text: what was written.
 */
struct tring_filter_ferr {
	struct tring_filter_error err;
	char text[];
};

/**
 * struct tring_filter_dead - a replaced filter, freed after a grace period
 * @rcu: the callback's head.
 * @filter: the filter.
 */
struct tring_filter_dead {
	struct rcu_head rcu;
	struct tring_filter *filter;
};

static void tring_filter_dead_free(struct rcu_head *rcu)
{
	struct tring_filter_dead *dead =
		container_of(rcu, struct tring_filter_dead, rcu);

	tring_filter_free(dead->filter);
	kfree(dead);
}

/*
 * Put @f (NULL: none) in force in @slot, with @ferr as its last error;
 * @dead, allocated by the caller, carries the old filter to its RCU
 * callback. The static key counts the slots that hold a filter.
 */
static void tring_filter_set(struct tring_filter_slot *slot,
			     struct tring_filter *f,
			     struct tring_filter_ferr *ferr,
			     struct tring_filter_dead *dead)
{
	struct tring_filter *old;

	mutex_lock(slot->lock);
	/*
	 * A release: the compiled filter is visible before its pointer, to
	 * the rcu_dereference_sched() in tring_filter_get().
	 */
	old = rcu_replace_pointer(slot->filter, f, lockdep_is_held(slot->lock));
	/* No order needed with the pointer: see struct tring_filter_slot. */
	WRITE_ONCE(slot->gate_pid, f ? tring_filter_gate_pid(f) : 0);
	swap(slot->ferr, ferr);
	if (!old && f)
		static_branch_inc(&tring_filter_key);
	else if (old && !f)
		static_branch_dec(&tring_filter_key);
	mutex_unlock(slot->lock);
	kfree(ferr);
	if (old) {
		dead->filter = old;
		call_rcu(&dead->rcu, tring_filter_dead_free);
	} else {
		kfree(dead);
	}
}

/* Keep a refused filter's text and error for reading. */
static int tring_filter_refused(struct tring_filter_slot *slot,
				const char *text,
				const struct tring_filter_error *err)
{
	struct tring_filter_ferr *ferr;

	ferr = kmalloc(struct_size(ferr, text, strlen(text) + 1), GFP_KERNEL);
	if (ferr) {
		ferr->err = *err;
		strcpy(ferr->text, text);
		mutex_lock(slot->lock);
		swap(slot->ferr, ferr);
		mutex_unlock(slot->lock);
		kfree(ferr);
	}
	return -EINVAL;
}

/* Compile @text (unless it removes the filter) and put it in force. */
static int tring_filter_apply(struct tring_filter_slot *slot, char *text)
{
	struct tring_filter_dead *dead;
	struct tring_filter_error err;
	struct tring_filter *f;

	dead = kmalloc(sizeof(*dead), GFP_KERNEL);
	if (!dead)
		return -ENOMEM;
	/*
	 * As ftrace keeps it: the trailing blanks (a newline) cut, the
	 * leading ones kept, and the error's position counted from them.
	 */
	strim(text);
	f = slot->compile(slot, text, &err);
	if (IS_ERR(f)) {
		kfree(dead);
		return PTR_ERR(f) == -EINVAL ?
		       tring_filter_refused(slot, text, &err) : PTR_ERR(f);
	}
	tring_filter_set(slot, f, NULL, dead);
	return 0;
}

static ssize_t tring_filter_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_filter_slot *slot = file_inode(file)->i_private;
	char *text;
	int ret;

	if (*ppos || count > TRING_FILTER_MAX_LEN + 1)
		return -EINVAL;
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = tring_filter_apply(slot, text);
	kfree(text);
	return ret ?: count;
}

static int tring_filter_show(struct seq_file *m, void *unused)
{
	struct tring_filter_slot *slot = m->private;
	struct tring_filter_ferr *ferr;
	const struct tring_filter *f;

	mutex_lock(slot->lock);
	f = rcu_dereference_protected(slot->filter, lockdep_is_held(slot->lock));
	ferr = slot->ferr;
	if (ferr)
		seq_printf(m, "error at %u: %s\n%s\n%*s^\nin force: ",
			   ferr->err.pos, ferr->err.msg, ferr->text,
			   (int)ferr->err.pos, "");
	seq_printf(m, "%s\n", f ? tring_filter_text(f) : "none");
	mutex_unlock(slot->lock);
	return 0;
}

static int tring_filter_open(struct inode *inode, struct file *file)
{
	return single_open(file, tring_filter_show, inode->i_private);
}

static const struct file_operations tring_filter_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_filter_open,
	.read		= seq_read,
	.write		= tring_filter_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * tring_filter_file - make an event's filter file
 * @slot: the event's slot, its compile function and lock set.
 * @dir: the event's directory.
 *
 * Return: the file, or an ERR_PTR().
 */
struct dentry *tring_filter_file(struct tring_filter_slot *slot,
				 struct dentry *dir)
{
	return debugfs_create_file("filter", 0600, dir, slot,
				   &tring_filter_fops);
}

/**
 * tring_filter_slot_release - stop counting a slot's filter as in force
 * @slot: the slot, whose file is gone and which its owner alone holds.
 *
 * Turns the static key down for the slot's filter, once. It may sleep
 * (it patches text): in process context, so that the slot may then be
 * freed from an RCU callback by tring_filter_slot_free(), which only
 * frees. The filter stays readable until then.
 */
void tring_filter_slot_release(struct tring_filter_slot *slot)
{
	might_sleep();
	if (rcu_access_pointer(slot->filter) && !slot->released) {
		slot->released = true;
		static_branch_dec(&tring_filter_key);
	}
}

/**
 * tring_filter_slot_free - free a slot's filter and last error
 * @slot: the slot, whose event no writer can run for any more and whose
 *	file is gone.
 *
 * In process context, or in an RCU callback after
 * tring_filter_slot_release().
 */
void tring_filter_slot_free(struct tring_filter_slot *slot)
{
	struct tring_filter *f = rcu_dereference_protected(slot->filter, true);

	if (f && !slot->released)
		tring_filter_slot_release(slot);
	tring_filter_free(f);
	RCU_INIT_POINTER(slot->filter, NULL);
	slot->gate_pid = 0;
	kfree(slot->ferr);
	slot->ferr = NULL;
}

/**
 * tring_filter_file_exit - wait for the replaced filters' callbacks
 *
 * At module exit, after every filter file is gone.
 */
void tring_filter_file_exit(void)
{
	rcu_barrier();
}
