// SPDX-License-Identifier: GPL-2.0
/*
 * tring: kprobe_events and uprobe_events, the files that define dynamic
 * probes, with ftrace's syntax and ftrace's file semantics, each for its
 * own kind of probe: opened for writing with O_TRUNC (">") it removes
 * every probe of its kind first (EBUSY, and nothing removed, if one is
 * enabled); each line written defines a probe or, "-:[GRP/]EVENT",
 * removes some of its kind; reading
 * lists the probes of its kind in force. A
 * write runs its lines in order and stops at the first that fails,
 * returning its error; the lines before it stay done. The error, with
 * the line and a caret at the position, goes to the kernel log. A line
 * is at most TRING_PROBE_MAX_LINE bytes; a write that ends without a
 * newline ends its last line.
 *
 * Concurrency: the file's operations are serialized by the probes' own
 * lock (tring_probe_event.c); nothing here is shared between opens.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "tring_probe_event.h"

/**
 * struct tring_probe_file_desc - one of the files, its inode's data
 * @name: its name, also in its messages.
 * @file: the probes it defines and lists.
 * @dentry: the file while it exists.
 */
struct tring_probe_file_desc {
	const char *name;
	enum tring_probe_file file;
	struct dentry *dentry;
};

static struct tring_probe_file_desc tring_probe_files[] = {
	{ .name = "kprobe_events", .file = TRING_PROBE_FILE_KPROBE },
	{ .name = "uprobe_events", .file = TRING_PROBE_FILE_UPROBE },
};

/* Run @line; say in the kernel log why it failed, if it did. */
static int tring_probe_run_line(const char *line,
				const struct tring_probe_file_desc *d)
{
	struct tring_probe_error err = {};
	char *shown;
	int ret;

	ret = tring_probe_command(line, d->file, &err);
	if (!ret)
		return 0;
	shown = kmalloc(2 * TRING_PROBE_MAX_LINE + 8, GFP_KERNEL);
	if (shown)
		tring_probe_error_show(shown, 2 * TRING_PROBE_MAX_LINE + 8,
				       line, &err);
	pr_warn("%s: %s (error %d, at byte %u):\n%s", d->name,
		err.msg ?: "refused", ret, err.pos, shown ?: "\n");
	kfree(shown);
	return ret;
}

/*
 * Run the whole lines of @buf (@len bytes, room for a NUL after them);
 * the last one also without its newline if @last. Return: the bytes
 * consumed, or -errno of the first line that failed.
 */
static ssize_t tring_probe_run_lines(char *buf, size_t len, bool last,
				     const struct tring_probe_file_desc *d)
{
	size_t done = 0;
	char *nl;
	int ret;

	while (done < len) {
		nl = memchr(buf + done, '\n', len - done);
		if (!nl && !last)
			break;
		if (nl)
			*nl = '\0';
		else
			buf[len] = '\0';
		ret = tring_probe_run_line(buf + done, d);
		if (ret)
			return ret;
		done = nl ? nl - buf + 1 : len;
	}
	return done;
}

static ssize_t tring_probe_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	const struct tring_probe_file_desc *d = file_inode(file)->i_private;
	size_t cap = TRING_PROBE_MAX_LINE + 1, done = 0, n;
	ssize_t ret = 0;
	char *buf;

	buf = kmalloc(cap + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (done < count) {
		n = min(count - done, cap);
		if (copy_from_user(buf, ubuf + done, n)) {
			ret = -EFAULT;
			break;
		}
		ret = tring_probe_run_lines(buf, n, done + n == count, d);
		if (ret < 0)
			break;
		if (!ret) {	/* no newline in a buffer's worth */
			pr_warn("%s: a line longer than %u bytes\n", d->name,
				TRING_PROBE_MAX_LINE);
			ret = -E2BIG;
			break;
		}
		done += ret;
	}
	kfree(buf);
	if (ret < 0)
		return ret;
	*ppos += done;
	return done;
}

static int tring_probe_show(struct seq_file *m, void *unused)
{
	const struct tring_probe_file_desc *d = m->private;

	tring_probe_list(m, d->file);
	return 0;
}

static int tring_probe_open(struct inode *inode, struct file *file)
{
	const struct tring_probe_file_desc *d = inode->i_private;
	int ret;

	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		ret = tring_probe_clear(d->file);
		if (ret)
			return ret;
	}
	return single_open(file, tring_probe_show, inode->i_private);
}

static const struct file_operations tring_probe_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_probe_open,
	.read		= seq_read,
	.write		= tring_probe_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * tring_probe_init - make kprobe_events and uprobe_events
 * @root: tring's debugfs directory.
 *
 * Each only where the kernel has its kind: kretprobes (CONFIG_KRETPROBES),
 * uprobes (CONFIG_UPROBES).
 *
 * Return: 0, or -errno (nothing made).
 */
int tring_probe_init(struct dentry *root)
{
	struct tring_probe_file_desc *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_probe_files); i++) {
		d = &tring_probe_files[i];
		if (d->file == TRING_PROBE_FILE_UPROBE ?
		    !IS_ENABLED(CONFIG_UPROBES) :
		    !IS_ENABLED(CONFIG_KRETPROBES))
			continue;
		d->dentry = debugfs_create_file(d->name, 0600, root, d,
						&tring_probe_fops);
		if (IS_ERR(d->dentry)) {
			int ret = PTR_ERR(d->dentry);

			d->dentry = NULL;
			tring_probe_exit();
			return ret;
		}
	}
	return 0;
}

/**
 * tring_probe_exit - remove the files, then every probe
 *
 * Returns when no handler of a probe runs any more.
 */
void tring_probe_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_probe_files); i++) {
		debugfs_remove(tring_probe_files[i].dentry);
		tring_probe_files[i].dentry = NULL;
	}
	tring_probe_exit_all();
}
