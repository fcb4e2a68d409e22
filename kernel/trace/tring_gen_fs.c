// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the generic events' files.
 *
 * /sys/kernel/debug/tring/events/
 *   generic_events              write "group:event" lines to offer those
 *                               kernel events (tracefs's available_events
 *                               as it is); read: the events offered
 *   generic_enable              1/0: every generic event; X when mixed
 *   generic_stats               events offered and enabled, perf events
 *                               and their memory against the budget
 *   <group>/enable              every event of a group of generic events
 *                               only (tring's own groups keep theirs)
 *   <group>/<event>/enable      one generic event
 *   <group>/<event>/id          its id in the trace
 *   <group>/<event>/format      its fields in the trace, and the kernel's id
 *
 * A file's private data (an event, a group) lives until the file is
 * removed: debugfs_remove() waits for the file's running operations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "tring_gen.h"

/* Groups and the directory tree; never held around an enable. */
static DEFINE_MUTEX(tring_gen_fs_lock);
static LIST_HEAD(tring_gen_groups);
static struct dentry *tring_gen_events_dir;
static struct dentry *tring_gen_top[3];	/* generic_{enable,events,stats} */

/* The state of @one, or "X" when some of @group's (all: NULL) are on. */
static ssize_t tring_gen_state_read(const struct tring_gen_event *one,
				    const char *group, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	bool any_on = false, any_off = false;
	const struct tring_gen_event *ev;
	char s[2];

	if (one) {
		any_on = READ_ONCE(one->on);
		any_off = !any_on;
	} else {
		rcu_read_lock();
		list_for_each_entry_rcu(ev, &tring_gen_list, node) {
			if (!tring_gen_selected(ev, group))
				continue;
			if (READ_ONCE(ev->on))
				any_on = true;
			else
				any_off = true;
		}
		rcu_read_unlock();
	}
	s[0] = any_on && any_off ? 'X' : any_on ? '1' : '0';
	s[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, s, 2);
}

/* Switch one event of many. Return: the error that fails the write, or 0. */
static int tring_gen_switch(struct tring_gen_event *ev, bool on, bool many,
			    unsigned int *refused)
{
	int err;

	mutex_lock(&tring_gen_enable_lock);
	err = tring_gen_set(ev, on);
	mutex_unlock(&tring_gen_enable_lock);
	/* Of many, one that went away meanwhile is no longer selected. */
	if (!err || (many && err == -ENOENT))
		return 0;
	if (!many || err == -ENOMEM)
		return err;
	if ((*refused)++ < 10)
		pr_info("%s:%s cannot be recorded (error %d)\n", ev->group,
			ev->name, err);
	return 0;
}

/*
 * Switch @one, or the selected events, each under tring_gen_enable_lock
 * on its own. Of many, those perf refuses are skipped and counted; a
 * memory shortage (or the budget) fails the write, and stops it there.
 */
static ssize_t tring_gen_state_write(struct tring_gen_event *one,
				     const char *group,
				     const char __user *ubuf, size_t count)
{
	unsigned int i, n, refused = 0;
	struct tring_gen_event **evs;
	int ret;
	bool on;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	/* Its file keeps the event alive (tring_gen_files_remove()). */
	if (one)
		return tring_gen_switch(one, on, false, &refused) ?: count;
	evs = tring_gen_snapshot(group, &n);
	if (IS_ERR_OR_NULL(evs))
		return evs ? PTR_ERR(evs) : count;
	for (i = 0; i < n && !ret; i++)
		ret = tring_gen_switch(evs[i], on, true, &refused);
	tring_gen_snapshot_put(evs, n);
	if (refused)
		pr_info("%u kernel events cannot be recorded\n", refused);
	return ret ? ret : count;
}

/*
 * events/<group>/<event>/enable (->private_data: the event) and
 * events/generic_enable (NULL: every generic event).
 */
static ssize_t tring_gen_enable_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	return tring_gen_state_read(file->private_data, NULL, ubuf, count,
				    ppos);
}

static ssize_t tring_gen_enable_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	return tring_gen_state_write(file->private_data, NULL, ubuf, count);
}

static const struct file_operations tring_gen_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_gen_enable_read,
	.write	= tring_gen_enable_write,
	.llseek	= default_llseek,
};

/* events/<group>/enable of a group of generic events only. */
static ssize_t tring_gen_group_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	const struct tring_gen_group *g = file->private_data;

	return tring_gen_state_read(NULL, g->name, ubuf, count, ppos);
}

static ssize_t tring_gen_group_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	const struct tring_gen_group *g = file->private_data;

	return tring_gen_state_write(NULL, g->name, ubuf, count);
}

static const struct file_operations tring_gen_group_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_gen_group_read,
	.write	= tring_gen_group_write,
	.llseek	= default_llseek,
};

static int tring_gen_id_show(struct seq_file *m, void *unused)
{
	const struct tring_gen_event *ev = m->private;

	seq_printf(m, "%u\n", ev->id);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_gen_id);

static const char *const tring_gen_kind_names[] = {
	[TRING_GEN_INT] = "int", [TRING_GEN_CHARS] = "char[]",
	[TRING_GEN_ARRAY] = "int[]", [TRING_GEN_BYTES] = "u8[]",
	[TRING_GEN_DSTR] = "string", [TRING_GEN_DARR] = "u32 count, int[count]",
};

/* The kernel's id of @ev now, -1 if it has none (gone, or not the same). */
static int tring_gen_kernel_id(const struct tring_gen_event *ev)
{
	struct trace_event_file *file;
	int kid = -1;

	file = trace_get_event_file(NULL, ev->group, ev->name);
	if (IS_ERR(file))
		return -1;
	if ((file->event_call->flags & TRACE_EVENT_FL_DYNAMIC) ||
	    file->event_call->module == ev->mod)
		kid = file->event_call->event.type;
	trace_put_event_file(file);
	return kid;
}

static int tring_gen_format_show(struct seq_file *m, void *unused)
{
	const struct tring_gen_event *ev = m->private;
	const struct tring_gen_field *f;
	unsigned int i;

	seq_printf(m, "name: %s\nID: %u\n", ev->name, ev->id);
	if (ev->err) {
		seq_printf(m, "note: cannot be recorded: %s (error %d)\n",
			   ev->err == -EOPNOTSUPP ?
			   "the kernel defines its fields in code, not in a table" :
			   "its fields do not fit", ev->err);
		return 0;
	}
	if (ev->ops)
		ev->ops->show(m, ev);
	else
		seq_printf(m, "kernel_id: %d\n", tring_gen_kernel_id(ev));
	seq_puts(m, "format: (in the trace's order; dynamic fields hold their content)\n");
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		seq_printf(m, "\tfield:%s %s;\telement_size:%u;\tsigned:%d;\tkernel_offset:%u;\n",
			   tring_gen_kind_names[f->kind], f->name, f->elem,
			   f->is_signed, f->src);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_gen_format);

/* events/generic_events, read: every event offered. */
static int tring_gen_list_show(struct seq_file *m, void *unused)
{
	const struct tring_gen_event *ev;

	mutex_lock(&tring_gen_lock);
	list_for_each_entry(ev, &tring_gen_list, node)
		if (!ev->gone)
			seq_printf(m, "%s:%s\n", ev->group, ev->name);
	mutex_unlock(&tring_gen_lock);
	return 0;
}

static int tring_gen_stats_show(struct seq_file *m, void *unused)
{
	const struct tring_gen_event *ev;
	unsigned int offered = 0, enabled = 0, unrecordable = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(ev, &tring_gen_list, node) {
		if (READ_ONCE(ev->gone))
			continue;
		offered++;
		enabled += READ_ONCE(ev->on);
		unrecordable += !!ev->err;
	}
	rcu_read_unlock();
	seq_printf(m, "offered: %u\nenabled: %u\nunrecordable: %u\n",
		   offered, enabled, unrecordable);
	tring_gen_mem_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_gen_stats);

/**
 * struct tring_gen_writer - an open events/generic_events being written
 * @len: bytes in @carry.
 * @failed: names the kernel did not offer, so far.
 * @carry: the start of a line a write ended in.
 */
struct tring_gen_writer {
	size_t len;
	unsigned int failed;
	char carry[128];
};

/* Offer the event a line names ("group:event"). Return: 0 or -errno. */
static int tring_gen_offer_line(char *line)
{
	char *colon;
	int err;

	line = strim(line);
	if (!*line || *line == '#')
		return 0;
	colon = strchr(line, ':');
	if (!colon || colon == line || !colon[1] || strchr(colon + 1, ':'))
		return -EINVAL;
	*colon = '\0';
	err = tring_gen_register_name(line, colon + 1);
	if (err && err != -ENOMEM)
		pr_info("no kernel event %s:%s to offer (error %d)\n", line,
			colon + 1, err);
	return err;
}

/* Offer the whole lines of @w's carry; keep the rest. */
static int tring_gen_offer_lines(struct tring_gen_writer *w, bool all)
{
	char *nl, *line = w->carry;
	int err, ret = 0;

	while ((nl = memchr(line, '\n', w->carry + w->len - line)) ||
	       (all && line < w->carry + w->len)) {
		if (nl)
			*nl = '\0';
		else
			w->carry[w->len] = '\0';
		err = tring_gen_offer_line(line);
		if (err == -ENOMEM)
			return err;
		w->failed += !!err;
		ret = ret ?: err;
		line = nl ? nl + 1 : w->carry + w->len;
	}
	w->len -= line - w->carry;
	memmove(w->carry, line, w->len);
	return ret;
}

static ssize_t tring_gen_list_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct tring_gen_writer *w =
		((struct seq_file *)file->private_data)->private;
	size_t done = 0, n;
	int err = 0;

	while (done < count) {
		n = min(count - done, sizeof(w->carry) - 1 - w->len);
		if (!n)
			return -E2BIG;	/* a line longer than any event name */
		if (copy_from_user(w->carry + w->len, ubuf + done, n))
			return -EFAULT;
		w->len += n;
		done += n;
		err = tring_gen_offer_lines(w, false);
		if (err == -ENOMEM)
			return err;
	}
	/* One name alone (echo group:event >...): its own error. */
	if (err && !w->len && count < sizeof(w->carry))
		return err;
	return count;
}

static int tring_gen_list_open(struct inode *inode, struct file *file)
{
	struct tring_gen_writer *w;
	int ret;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	ret = single_open(file, tring_gen_list_show, w);
	if (ret)
		kfree(w);
	return ret;
}

static int tring_gen_list_release(struct inode *inode, struct file *file)
{
	struct tring_gen_writer *w =
		((struct seq_file *)file->private_data)->private;

	/* A last line without its newline. */
	tring_gen_offer_lines(w, true);
	if (w->failed > 1)
		pr_info("%u names were not offered: the kernel has no such events\n",
			w->failed);
	kfree(w);
	return single_release(inode, file);
}

static const struct file_operations tring_gen_list_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_gen_list_open,
	.read		= seq_read,
	.write		= tring_gen_list_write,
	.llseek		= seq_lseek,
	.release	= tring_gen_list_release,
};

/*
 * The group directory of @name, found or made with its enable file.
 * Return: the group, or an ERR_PTR(). Under tring_gen_fs_lock.
 */
static struct tring_gen_group *tring_gen_group(const char *name)
{
	struct tring_gen_group *g;
	struct dentry *dir, *f;

	list_for_each_entry(g, &tring_gen_groups, node)
		if (!strcmp(g->name, name))
			return g;
	g = kzalloc(struct_size(g, name, strlen(name) + 1), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	strcpy(g->name, name);
	/* A group of tring's own events keeps its directory and switch. */
	dir = debugfs_lookup(name, tring_gen_events_dir);
	if (dir) {
		dput(dir);
		g->own = true;
	} else {
		dir = debugfs_create_dir(name, tring_gen_events_dir);
		f = IS_ERR(dir) ? dir :
		    debugfs_create_file("enable", 0600, dir, g,
					&tring_gen_group_fops);
		if (IS_ERR(f)) {
			debugfs_remove(IS_ERR(dir) ? NULL : dir);
			kfree(g);
			return ERR_CAST(f);
		}
	}
	g->dir = dir;
	list_add_tail(&g->node, &tring_gen_groups);
	return g;
}

/* The files of @ev in @dir. Return: 0 or -errno. */
static int tring_gen_event_files(struct tring_gen_event *ev, struct dentry *dir)
{
	struct dentry *d;

	d = debugfs_create_file("enable", 0600, dir, ev, &tring_gen_enable_fops);
	if (!IS_ERR(d))
		d = debugfs_create_file("id", 0400, dir, ev, &tring_gen_id_fops);
	if (!IS_ERR(d))
		d = debugfs_create_file("format", 0400, dir, ev,
					&tring_gen_format_fops);
	if (!IS_ERR(d))
		d = tring_gen_filter_file(ev, dir);
	return PTR_ERR_OR_ZERO(d);
}

/**
 * tring_gen_files - make the directory and files of a generic event
 * @ev: the event, listed.
 *
 * Return: 0 or -errno (then it has none).
 */
int tring_gen_files(struct tring_gen_event *ev)
{
	struct tring_gen_group *g;
	struct dentry *dir;
	int ret;

	mutex_lock(&tring_gen_fs_lock);
	ret = -ENODEV;
	if (!tring_gen_events_dir)
		goto unlock;
	g = tring_gen_group(ev->group);
	ret = PTR_ERR_OR_ZERO(g);
	if (ret)
		goto unlock;
	dir = debugfs_create_dir(ev->name, g->dir);
	ret = PTR_ERR_OR_ZERO(dir);
	if (ret)
		goto unlock;
	ret = tring_gen_event_files(ev, dir);
	if (ret)
		debugfs_remove(dir);
	else
		ev->dir = dir;
unlock:
	mutex_unlock(&tring_gen_fs_lock);
	return ret;
}

/**
 * tring_gen_files_remove - remove the directory of a generic event
 * @ev: the event.
 *
 * Returns when no operation on its files runs any more.
 */
void tring_gen_files_remove(struct tring_gen_event *ev)
{
	struct dentry *dir;

	mutex_lock(&tring_gen_fs_lock);
	dir = ev->dir;
	ev->dir = NULL;
	mutex_unlock(&tring_gen_fs_lock);
	debugfs_remove(dir);
}

/**
 * tring_gen_fs_init - make events/generic_{enable,events,stats}
 * @events: /sys/kernel/debug/tring/events.
 *
 * Return: 0 or -errno; nothing is left on error.
 */
int tring_gen_fs_init(struct dentry *events)
{
	static const char *const names[] = {
		"generic_enable", "generic_events", "generic_stats",
	};
	static const struct file_operations *const fops[] = {
		&tring_gen_enable_fops, &tring_gen_list_fops,
		&tring_gen_stats_fops,
	};
	static const umode_t modes[] = { 0600, 0600, 0400 };
	unsigned int i;

	tring_gen_events_dir = events;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		tring_gen_top[i] = debugfs_create_file(names[i], modes[i],
						       events, NULL, fops[i]);
		if (IS_ERR(tring_gen_top[i])) {
			int ret = PTR_ERR(tring_gen_top[i]);

			tring_gen_top[i] = NULL;
			tring_gen_fs_exit();
			return ret;
		}
	}
	return 0;
}

/**
 * tring_gen_fs_exit - remove every file of the generic events
 *
 * Returns when no operation on them runs any more; no file is made after.
 */
void tring_gen_fs_exit(void)
{
	struct tring_gen_event *ev;
	unsigned int i;

	mutex_lock(&tring_gen_fs_lock);
	tring_gen_events_dir = NULL;
	mutex_unlock(&tring_gen_fs_lock);
	for (i = 0; i < ARRAY_SIZE(tring_gen_top); i++) {
		debugfs_remove(tring_gen_top[i]);
		tring_gen_top[i] = NULL;
	}
	/*
	 * Without tring_gen_lock, which the files' operations take: with
	 * generic_events gone and the module notifier unregistered, the
	 * list does not change any more.
	 */
	list_for_each_entry(ev, &tring_gen_list, node)
		tring_gen_files_remove(ev);
}

/**
 * tring_gen_groups_free - remove the group directories, free the groups
 *
 * After tring_gen_fs_exit() and once every event's files are gone.
 */
void tring_gen_groups_free(void)
{
	struct tring_gen_group *g, *tmp;

	list_for_each_entry_safe(g, tmp, &tring_gen_groups, node) {
		if (!g->own)
			debugfs_remove(g->dir);
		list_del(&g->node);
		kfree(g);
	}
}
