// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the files of the default buffer's events, and enabling them.
 * The events and their probes are tring_events.c's.
 *
 * /sys/kernel/debug/tring/
 *   events/enable                   1/0: every event (reads X if mixed)
 *   events/<group>/enable           one group
 *   events/<group>/<event>/enable   one event
 *   events/<group>/<event>/id       its id in the trace
 *   events/<group>/<event>/format   its payload's fields
 *   events/syscalls/syscall_entry/{enable,format}   the sys_<name> events
 *   trace_marker                    a write becomes a tring:marker event
 *
 * Enabling registers the probe with tracepoint_probe_register();
 * disabling unregisters it and waits with tracepoint_synchronize_unregister()
 * before returning, so nothing a probe uses can go away under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "tring_events.h"
#include "tring_events_src.h"
#include "tring_generic.h"
#include "tring_track.h"

/**
 * struct tring_enable - what an enable file switches
 * @group: a group's events, or NULL.
 * @one: one event, or NULL. Both NULL: every event.
 */
struct tring_enable {
	const char *group;
	struct tring_source *one;
};

static DEFINE_MUTEX(tring_events_lock);	/* enabling and disabling */
static struct dentry *tring_events_dir;

/* Targets of the enable files: all, each group, each source. */
static struct tring_enable tring_enable_all;
static struct tring_enable tring_enable_groups[ARRAY_SIZE(tring_sources)];
static struct tring_enable tring_enable_one[ARRAY_SIZE(tring_sources)];

/* Register or unregister @s's probe; the caller holds tring_events_lock. */
static int tring_source_attach(struct tring_source *s, bool on)
{
	int ret = 0;

	if (s->enabled == on)
		return 0;
	if (s->tp_name && (!s->tp || !s->proto_ok))
		return -ENODEV;
	if (s->tp && on)
		ret = tracepoint_probe_register(s->tp, s->probe, NULL);
	else if (s->tp)
		ret = tracepoint_probe_unregister(s->tp, s->probe, NULL);
	if (!ret)
		WRITE_ONCE(s->enabled, on);
	return ret;
}

/* syscall_entry's source: the last (see tring_sources[]). */
static struct tring_source *tring_sys_source(void)
{
	return &tring_sources[ARRAY_SIZE(tring_sources) - 1];
}

/*
 * Set one source; the caller holds tring_events_lock. syscall_entry's
 * switches every system call, whichever were on alone.
 */
static int tring_source_set(struct tring_source *s, bool on)
{
	int ret;

	if (s != tring_sys_source())
		return tring_source_attach(s, on);
	if (on) {
		bitmap_fill(tring_sys_on, TRING_NR_SYSCALLS);
		WRITE_ONCE(tring_sys_all, true);
	}
	ret = tring_source_attach(s, on);
	if (!s->enabled) {
		bitmap_zero(tring_sys_on, TRING_NR_SYSCALLS);
		WRITE_ONCE(tring_sys_all, false);
	}
	return ret;
}

/* events/syscalls/sys_<name>/enable: system call @nr alone. */
static int tring_sys_set(unsigned int nr, bool on)
{
	struct tring_source *s = tring_sys_source();
	int ret = 0;

	mutex_lock(&tring_events_lock);
	if (on) {
		set_bit(nr, tring_sys_on);
		ret = tring_source_attach(s, true);
		if (!s->enabled)
			clear_bit(nr, tring_sys_on);
	} else {
		clear_bit(nr, tring_sys_on);
		WRITE_ONCE(tring_sys_all, false);
		if (s->enabled && bitmap_empty(tring_sys_on, TRING_NR_SYSCALLS)) {
			ret = tring_source_attach(s, false);
			/* No probe runs any more once this returns. */
			tracepoint_synchronize_unregister();
		}
	}
	mutex_unlock(&tring_events_lock);
	return ret;
}

/*
 * Enable or disable every source in @group (NULL: all), or just @one.
 * Sources this kernel lacks are skipped when setting several. Sources
 * are enabled in the table's order and disabled in the reverse order, so
 * that an event ending something (softirq_exit) comes on after the one
 * beginning it and goes off before it: a trace never shows an end whose
 * beginning was not traced although the event before it was (LTTng's
 * analyses stop on a softirq_raise, then softirq_exit, with no entry).
 */
static int tring_sources_set(const char *group, struct tring_source *one,
			     bool on)
{
	const unsigned int n = ARRAY_SIZE(tring_sources);
	bool unregistered = false;
	int ret = 0, err;
	unsigned int k;

	mutex_lock(&tring_events_lock);
	for (k = 0; k < n; k++) {
		struct tring_source *s = &tring_sources[on ? k : n - 1 - k];

		if (one ? s != one : group && strcmp(s->group, group))
			continue;
		if (!one && s->tp_name && (!s->tp || !s->proto_ok))
			continue;
		unregistered |= !on && s->enabled && s->tp;
		err = tring_source_set(s, on);
		ret = ret ?: err;
	}
	/* No probe runs any more once this returns. */
	if (unregistered)
		tracepoint_synchronize_unregister();
	mutex_unlock(&tring_events_lock);
	return ret;
}

/* '1', '0' or 'X' (mixed) for @group (NULL: all) or @one. */
static char tring_sources_state(const char *group, struct tring_source *one)
{
	bool any_on = false, any_off = false;
	unsigned int i;

	mutex_lock(&tring_events_lock);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		struct tring_source *s = &tring_sources[i];

		if (one ? s != one : group && strcmp(s->group, group))
			continue;
		/* One this kernel lacks is no part of a group's state. */
		if (!one && s->tp_name && (!s->tp || !s->proto_ok))
			continue;
		if (s->enabled)
			any_on = true;
		else
			any_off = true;
		/* Some system calls only. */
		if (s == tring_sys_source() && s->enabled &&
		    !READ_ONCE(tring_sys_all))
			any_off = true;
	}
	mutex_unlock(&tring_events_lock);
	return any_on && any_off ? 'X' : any_on ? '1' : '0';
}

static ssize_t tring_enable_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	char s[2];

	s[0] = tring_sources_state(en->group, en->one);
	s[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, s, 2);
}

static ssize_t tring_enable_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tring_enable *en = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = tring_sources_set(en->group, en->one, on);
	return ret ? ret : count;
}

static const struct file_operations tring_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_enable_read,
	.write	= tring_enable_write,
	.llseek	= default_llseek,
};

/* A system call's own enable file; its private data is the number. */
static ssize_t tring_sys_enable_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	unsigned int nr = (uintptr_t)file->private_data;
	char st[2] = { '0', '\n' };

	mutex_lock(&tring_events_lock);
	if (tring_sys_source()->enabled && test_bit(nr, tring_sys_on))
		st[0] = '1';
	mutex_unlock(&tring_events_lock);
	return simple_read_from_buffer(ubuf, count, ppos, st, sizeof(st));
}

static ssize_t tring_sys_enable_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = tring_sys_set((uintptr_t)file->private_data, on);
	return ret ? ret : count;
}

static const struct file_operations tring_sys_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_sys_enable_read,
	.write	= tring_sys_enable_write,
	.llseek	= default_llseek,
};

/* The source of @ev if it is left out on this kernel, else NULL. */
static struct tring_source *tring_left_out(const struct tring_event_desc *ev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].desc == ev && !tring_sources[i].proto_ok)
			return &tring_sources[i];
	return NULL;
}

static int tring_format_show(struct seq_file *m, void *unused)
{
	struct tring_source *s = tring_left_out(m->private);

	tring_ctf_format(m, m->private);
	if (s)
		seq_printf(m, "note: left out: tracepoint %s has another prototype in the headers tring was built against\n",
			   s->tp_name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_format);

/* syscall_entry/format: every sys_<name> event, one after the other. */
static int tring_sys_format_show(struct seq_file *m, void *unused)
{
	const struct tring_event_desc *ev;
	unsigned int nr;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		ev = tring_default_event(TRING_EV_SYS_FIRST + nr);
		if (ev)
			tring_ctf_format(m, ev);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_sys_format);

static int tring_id_show(struct seq_file *m, void *unused)
{
	const struct tring_event_desc *ev = m->private;

	seq_printf(m, "%u\n", ev->id);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_id);

/*
 * The text of a trace_marker write of @count bytes, the first @n of them
 * at @text: up to the first NUL (the metadata declares a NUL-terminated
 * string, so bytes after one would decode as further records), without
 * one trailing newline (echo's) unless the write was cut at @n. A write
 * with a NUL in its first @n bytes is taken whole (*@taken = @count), the
 * bytes after the NUL dropped; one cut with no NUL takes @n, and the
 * rest comes as the next write.
 */
static size_t tring_marker_text_len(const char *text, size_t n, size_t count,
				    size_t *taken)
{
	size_t len = strnlen(text, n);

	*taken = len < n ? count : n;
	if (*taken == count && len && text[len - 1] == '\n')
		len--;
	return len;
}

static ssize_t tring_marker_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	size_t n = min_t(size_t, count, TRING_TEXT_MAX - 1), len, taken;
	char *text;
	int ret;

	if (!READ_ONCE(tring_sources[0].enabled))
		return -EINVAL;
	/* Left out like any event of an untracked process: not an error. */
	if (tring_track_skip(current, NULL))
		return count;
	text = memdup_user(ubuf, n);
	if (IS_ERR(text))
		return PTR_ERR(text);
	len = tring_marker_text_len(text, n, count, &taken);
	ret = tring_marker_record(text, len);
	kfree(text);
	return ret ? ret : taken;
}

static const struct file_operations tring_marker_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tring_marker_write,
	.llseek	= noop_llseek,
};

static void tring_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (tring_sources[i].tp_name &&
		    !strcmp(tring_sources[i].tp_name, tp->name))
			tring_sources[i].tp = tp;
}

/* A debugfs file: 0, or the error debugfs_create_file() gave. */
static int tring_create_file(const char *name, umode_t mode,
			     struct dentry *parent, void *data,
			     const struct file_operations *fops)
{
	return PTR_ERR_OR_ZERO(debugfs_create_file(name, mode, parent, data,
						   fops));
}

/*
 * The directory of source @i's group under @events, created with its
 * enable file by the group's first source. Return: the directory with a
 * reference the caller puts with dput(), or an ERR_PTR().
 */
static struct dentry *tring_event_group_dir(struct dentry *events,
					    unsigned int i)
{
	const char *group = tring_sources[i].group;
	struct dentry *dir;
	int ret;

	dir = debugfs_lookup(group, events);
	if (dir)
		return dir;
	dir = debugfs_create_dir(group, events);
	if (IS_ERR(dir))
		return dir;
	/* The group name lives in the static source table. */
	tring_enable_groups[i].group = group;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_groups[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	return dget(dir);

remove_dir:
	debugfs_remove(dir);
	return ERR_PTR(ret);
}

/* id and format of event @ev in @dir; the syscalls' one format file. */
static int tring_add_desc_files(struct dentry *dir,
				const struct tring_event_desc *ev)
{
	int ret;

	if (!ev)
		return tring_create_file("format", 0400, dir, NULL,
					 &tring_sys_format_fops);
	ret = tring_create_file("id", 0400, dir, (void *)ev, &tring_id_fops);
	if (ret)
		return ret;
	return tring_create_file("format", 0400, dir, (void *)ev,
				 &tring_format_fops);
}

/*
 * events/<group>/<event>/ of source @i. On error what this call created
 * for the event is removed; a group directory it created stays for the
 * caller, which removes all of events/.
 */
static int tring_add_event_files(struct dentry *events, unsigned int i)
{
	struct tring_source *s = &tring_sources[i];
	struct dentry *group, *dir;
	int ret;

	group = tring_event_group_dir(events, i);
	if (IS_ERR(group))
		return PTR_ERR(group);
	dir = debugfs_create_dir(s->name, group);
	ret = PTR_ERR_OR_ZERO(dir);
	if (ret)
		goto put_group;
	tring_enable_one[i].one = s;
	ret = tring_create_file("enable", 0600, dir, &tring_enable_one[i],
				&tring_enable_fops);
	if (ret)
		goto remove_dir;
	ret = tring_add_desc_files(dir, s->desc);
	/* A tracepoint's event can be filtered (tring_ev_filter.c). */
	if (!ret && s->tp_name && s->desc)
		ret = tring_ev_filter_file(dir, s->desc->id);
	if (ret)
		goto remove_dir;
	dput(group);
	return 0;

remove_dir:
	debugfs_remove(dir);
put_group:
	dput(group);
	return ret;
}

/* events/syscalls/sys_<name>/: enable, id, format, filter of call @nr. */
static int tring_sys_dir(struct dentry *group, unsigned int nr)
{
	const struct tring_event_desc *ev =
		tring_default_event(TRING_EV_SYS_FIRST + nr);
	struct dentry *dir;
	int ret;

	if (!ev)
		return 0;
	dir = debugfs_create_dir(ev->name, group);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	ret = tring_create_file("enable", 0600, dir, (void *)(uintptr_t)nr,
				&tring_sys_enable_fops);
	if (!ret)
		ret = tring_add_desc_files(dir, ev);
	if (!ret)
		ret = tring_ev_filter_file(dir, ev->id);
	return ret;
}

/*
 * A directory per system call, beside syscall_entry (every one), and
 * the count of paths not read, path_faults.
 */
static int tring_sys_dirs(struct dentry *events)
{
	struct dentry *group;
	unsigned int nr;
	int ret = 0;

	group = tring_event_group_dir(events, ARRAY_SIZE(tring_sources) - 1);
	if (IS_ERR(group))
		return PTR_ERR(group);
	for (nr = 0; nr < TRING_NR_SYSCALLS && !ret; nr++)
		ret = tring_sys_dir(group, nr);
	if (!ret)
		ret = tring_sys_faults_file(group);
	dput(group);
	return ret;
}

/**
 * tring_events_builtin - is an event tring describes by hand
 * @group: its group.
 * @name: its name.
 *
 * Such an event wins over the kernel's of the same group and name
 * (tring_generic.c makes no generic event for it).
 *
 * Return: true if @group/@name is one of tring's own events or event
 * directories.
 */
bool tring_events_builtin(const char *group, const char *name)
{
	const struct tring_event_desc *ev;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_sources); i++)
		if (!strcmp(tring_sources[i].group, group) &&
		    !strcmp(tring_sources[i].name, name))
			return true;
	for (i = 0; i < tring_nr_builtin_events; i++) {
		ev = &tring_builtin_events[i];
		if (ev->name && !strcmp(ev->group, group) &&
		    !strcmp(ev->name, name))
			return true;
	}
	return false;
}

/* Find each source's tracepoint; say which events this kernel lacks. */
static void tring_find_tracepoints(void)
{
	unsigned int i;

	i = tring_note_left_out();
	if (i)
		pr_warn("%u events left out: their tracepoints changed\n", i);
	for_each_kernel_tracepoint(tring_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		if (!tring_sources[i].proto_ok)
			pr_info("event %s left out: tracepoint %s has another prototype\n",
				tring_sources[i].name, tring_sources[i].tp_name);
		else if (tring_sources[i].tp_name && !tring_sources[i].tp)
			pr_info("no tracepoint %s in this kernel\n",
				tring_sources[i].tp_name);
	}
}

/**
 * tring_events_init - check the event table and create the files
 * @root: /sys/kernel/debug/tring.
 *
 * Every debugfs creation is checked; on error what was created here is
 * removed again.
 *
 * Return: 0 or -errno (-ENOMEM and the like from debugfs).
 */
int tring_events_init(struct dentry *root)
{
	unsigned int i;
	int ret;

	ret = tring_ev_filters_init();
	if (ret)
		return ret;
	tring_find_tracepoints();
	tring_events_dir = debugfs_create_dir("events", root);
	if (IS_ERR(tring_events_dir)) {
		tring_ev_filters_exit();
		return PTR_ERR(tring_events_dir);
	}
	ret = tring_create_file("enable", 0600, tring_events_dir,
				&tring_enable_all, &tring_enable_fops);
	if (ret)
		goto remove_events;
	for (i = 0; i < ARRAY_SIZE(tring_sources); i++) {
		ret = tring_add_event_files(tring_events_dir, i);
		if (ret)
			goto remove_events;
	}
	ret = tring_sys_dirs(tring_events_dir);
	if (ret)
		goto remove_events;
	ret = tring_create_file("trace_marker", 0200, root, NULL,
				&tring_marker_fops);
	if (ret)
		goto remove_events;
	/* Every other event of the kernel's, after ours (tring_generic.c). */
	ret = tring_generic_init(tring_events_dir, TRING_ID_FIRST_EVENT +
				 tring_nr_builtin_events);
	if (ret)
		goto remove_events;
	return 0;

remove_events:
	/* The enable files were live: detach what they may have attached. */
	tring_sources_set(NULL, NULL, false);
	debugfs_remove(tring_events_dir);
	tring_events_dir = NULL;
	tring_ev_filters_exit();
	return ret;
}

/**
 * tring_events_exit - detach every probe
 *
 * Returns when no probe runs any more. The files go with the root.
 */
void tring_events_exit(void)
{
	tring_generic_exit();
	tring_sources_set(NULL, NULL, false);
	tring_ev_filters_exit();
}
