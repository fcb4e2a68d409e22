// SPDX-License-Identifier: GPL-2.0
/*
 * tring: process tracking, the processes whose events are recorded.
 *
 * /sys/kernel/debug/tring/tracking/
 *   pid      the processes recorded, one per line; empty: all of them.
 *            The first write of an open replaces the set, unless it was
 *            opened to append (">>"); later writes add. Numbers are
 *            separated by blanks or commas and read in the writer's PID
 *            namespace; a thread's number stands for its whole process.
 *            One that names no process fails the write with ESRCH, and
 *            nothing changes. An empty replacing write clears the set.
 *   follow   1: a process the set holds adds each child it forks, before
 *            the child first runs; 0 (the default): the set holds only
 *            what was written.
 *
 * The set is a bitmap of thread-group ids in the initial namespace,
 * PID_MAX_LIMIT bits (512 KiB on 64-bit), allocated while a set is in
 * force. A process that exits keeps its bit: its threads' last
 * sched_switch (do_task_dead()) and their sched_process_free (a grace
 * period after the parent reaped them) are its own events and are
 * recorded. Its number leaves the set when it is reused: every new
 * process passes the fork probe before it first runs, which takes a
 * number found in the set out of it (or, with follow, leaves it in for a
 * tracked parent's child). A set whose processes have all exited
 * records nothing until it is cleared; reading it shows only the
 * processes that still exist.
 *
 * Concurrency: tring_track_lock serializes the files' writes, the
 * map's allocation and freeing, and the probe's registration. The map's
 * bits change with atomic bit operations: from the writes and from the
 * fork probe (task context, preemption off). Event writers, in any
 * context, NMI included, test bits of the map they find under
 * rcu_read_lock_sched; it is freed after a grace period once
 * unpublished.
 *
 * Events about the current task test a per-CPU flag instead,
 * tring_track_out: whether the task running on the CPU is outside the
 * set. Each CPU writes its own: its sched_switch probe, for the task it
 * switches to (in __schedule(), preemption and interrupts off), and
 * tring_track_refresh_cpu(), run on every CPU by IPI after a write
 * changed the set (interrupts off). Its event writers read it, in any
 * context; a read on the CPU sees the value for the task running there
 * then (a bool, written and read whole). Before the key goes on, the
 * starter sets every CPU's flag (no reader consults it while the key
 * is off), so that an empty set records nothing. A CPU that comes
 * online keeps its flag from when it went offline (its idle task's,
 * outside any set) until its first switch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bsearch.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <trace/events/sched.h>

#include "tring_event_gen.h"
#include "tring_track.h"

/* The longest write tracking/pid takes: thousands of numbers. */
#define TRING_TRACK_WRITE_MAX	(64 * 1024)

/*
 * Probes of a higher priority run first: the child joins (or a reused
 * number leaves) before any probe of the fork sees it.
 */
#define TRING_TRACK_FORK_PRIO	(TRACEPOINT_DEFAULT_PRIO + 1)

DEFINE_STATIC_KEY_FALSE(tring_track_key);
DEFINE_PER_CPU(bool, tring_track_out);	/* see above */

static DEFINE_MUTEX(tring_track_lock);
static unsigned long __rcu *tring_track_map;	/* see above */
/* Written with WRITE_ONCE() under the lock, read by the fork probe. */
static bool tring_track_follow;
static struct tracepoint *tring_track_tp_fork;
static struct tracepoint *tring_track_tp_switch;

/* Whether @t's process is outside the set @map (NULL: no set). */
static bool tring_track_out_of(const unsigned long *map,
			       const struct task_struct *t)
{
	return !map || !test_bit(t->tgid, map);
}

/**
 * tring_track_reject - the tracking check, out of line
 * @a: a task the event is about.
 * @b: another, or NULL.
 *
 * Return: true if a set is in force and holds neither task's process.
 */
bool tring_track_reject(const struct task_struct *a,
			const struct task_struct *b)
{
	const unsigned long *map;
	bool reject = false;

	preempt_disable_notrace();
	map = rcu_dereference_sched(tring_track_map);
	if (map)
		reject = !test_bit(a->tgid, map) &&
			 (!b || !test_bit(b->tgid, map));
	preempt_enable_notrace();
	return reject;
}

/*
 * A new process, before it first runs: with follow, the child of a
 * tracked process joins; any other takes its number out of the set, where
 * a process that had it before may have left it (see above).
 */
static void tring_track_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
	unsigned long *map = rcu_dereference_sched(tring_track_map);

	/* A new thread has its process's tgid, and its bit. */
	if (!map || child->pid != child->tgid)
		return;
	if (READ_ONCE(tring_track_follow) && test_bit(parent->tgid, map)) {
		set_bit(child->tgid, map);
		return;
	}
	/*
	 * Orders the number's release by the process that had it (its
	 * exit, signal->live at zero, came before) before the test_bit(),
	 * pairing with the smp_mb__after_atomic() in tring_track_add(): a
	 * write that set the bit of an exiting process either sees it dead
	 * there, or its bit is seen and taken out here.
	 */
	smp_mb();
	if (test_bit(child->tgid, map))
		clear_bit(child->tgid, map);
}

/* The CPU switches to @next: its flag becomes @next's. */
static void tring_track_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	this_cpu_write(tring_track_out,
		       tring_track_out_of(rcu_dereference_sched(tring_track_map),
					  next));
}

/* By IPI after the set changed: the flag for the task running here. */
static void tring_track_refresh_cpu(void *unused)
{
	this_cpu_write(tring_track_out,
		       tring_track_out_of(rcu_dereference_sched(tring_track_map),
					  current));
}

/* Attach or detach the fork and switch probes; under tring_track_lock. */
static int tring_track_probes(bool on)
{
	int ret;

	if (!on) {
		tracepoint_probe_unregister(tring_track_tp_switch,
					    tring_track_switch, NULL);
		tracepoint_probe_unregister(tring_track_tp_fork,
					    tring_track_fork, NULL);
		return 0;
	}
	ret = tracepoint_probe_register_prio(tring_track_tp_fork,
					     tring_track_fork, NULL,
					     TRING_TRACK_FORK_PRIO);
	if (ret)
		return ret;
	/* Before any event probe of the switch, as the fork probe. */
	ret = tracepoint_probe_register_prio(tring_track_tp_switch,
					     tring_track_switch, NULL,
					     TRING_TRACK_FORK_PRIO);
	if (ret)
		tracepoint_probe_unregister(tring_track_tp_fork,
					    tring_track_fork, NULL);
	return ret;
}

/*
 * Put a set in force: an empty map, published, then the probes, then
 * the static key. Events are left out until the caller sets its bits.
 */
static int tring_track_start(void)
{
	unsigned long *map;
	int cpu, ret;

	map = vzalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
	if (!map)
		return -ENOMEM;
	/*
	 * A release: the zeroed map is visible before its pointer, to the
	 * rcu_dereference_sched() in tring_track_reject() and the probes.
	 */
	rcu_assign_pointer(tring_track_map, map);
	for_each_possible_cpu(cpu)
		per_cpu(tring_track_out, cpu) = true;
	ret = tring_track_probes(true);
	if (ret)
		goto unpublish;
	static_branch_enable(&tring_track_key);
	return 0;

unpublish:
	RCU_INIT_POINTER(tring_track_map, NULL);
	synchronize_rcu();
	vfree(map);
	return ret;
}

/* Clear the set: every process is recorded again. */
static void tring_track_stop(void)
{
	unsigned long *map = rcu_dereference_protected(tring_track_map,
				lockdep_is_held(&tring_track_lock));

	if (!map)
		return;
	static_branch_disable(&tring_track_key);
	tring_track_probes(false);
	RCU_INIT_POINTER(tring_track_map, NULL);
	/* No probe and no event writer uses the map after this. */
	tracepoint_synchronize_unregister();
	vfree(map);
}

static int tring_track_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Parse @text: numbers separated by blanks or commas, each naming a
 * live task in the writer's namespace. Fill @tasks with a reference to
 * each (at most @max). Return: how many, or -EINVAL, -ESRCH.
 */
static int tring_track_parse(char *text, struct task_struct **tasks,
			     int max)
{
	char *tok;
	int n = 0, nr, ret;

	while ((tok = strsep(&text, " \t\n,")) != NULL) {
		if (!*tok)
			continue;
		ret = kstrtoint(tok, 10, &nr);
		if (ret || nr <= 0 || n == max) {
			ret = -EINVAL;
			goto put_tasks;
		}
		/* find_vpid() is valid under RCU only: the pid may be freed. */
		rcu_read_lock();
		tasks[n] = get_pid_task(find_vpid(nr), PIDTYPE_PID);
		rcu_read_unlock();
		if (!tasks[n]) {
			ret = -ESRCH;
			goto put_tasks;
		}
		n++;
	}
	return n;

put_tasks:
	while (n--)
		put_task_struct(tasks[n]);
	return ret;
}

/* Drop from @map every process not among the @n sorted @tgids. */
static void tring_track_keep_only(unsigned long *map, const pid_t *tgids,
				  int n)
{
	unsigned long bit;
	pid_t nr;

	for_each_set_bit(bit, map, PID_MAX_LIMIT) {
		nr = bit;
		if (!bsearch(&nr, tgids, n, sizeof(*tgids), tring_track_cmp))
			clear_bit(bit, map);
	}
}

/*
 * Add task @t's process to @map, unless it has exited meanwhile: its
 * number may then be free, and a new process's.
 */
static void tring_track_add(unsigned long *map, struct task_struct *t)
{
	pid_t tgid = task_tgid_nr(t);

	set_bit(tgid, map);
	/*
	 * Orders the set_bit() before the read of signal->live, pairing
	 * with the smp_mb() in tring_track_fork(): a process whose last
	 * thread exited (and whose number a new process took) before the
	 * bit was set is seen dead here and taken out again.
	 */
	smp_mb__after_atomic();
	if (!atomic_read(&t->signal->live))
		clear_bit(tgid, map);
}

/*
 * Put the processes of @tasks (@n of them) in the set: in place of it if
 * @replace, else beside it. An empty replacement clears the set.
 */
static int tring_track_apply(struct task_struct **tasks, int n, bool replace)
{
	unsigned long *map = rcu_dereference_protected(tring_track_map,
				lockdep_is_held(&tring_track_lock));
	pid_t *tgids;
	int i, ret;

	if (!n) {
		if (replace)
			tring_track_stop();
		return 0;
	}
	tgids = kmalloc_array(n, sizeof(*tgids), GFP_KERNEL);
	if (!tgids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		tgids[i] = task_tgid_nr(tasks[i]);
	sort(tgids, n, sizeof(*tgids), tring_track_cmp, NULL);
	if (!map) {
		ret = tring_track_start();
		if (ret)
			goto free_tgids;
		map = rcu_dereference_protected(tring_track_map,
						lockdep_is_held(&tring_track_lock));
	} else if (replace) {
		/* A process in both sets keeps its bit all along. */
		tring_track_keep_only(map, tgids, n);
	}
	for (i = 0; i < n; i++)
		tring_track_add(map, tasks[i]);
	/*
	 * Every CPU's flag for the task it runs, as the set now is: the IPI
	 * (its call-function queue's full barriers) orders the bits set and
	 * cleared above before the handler's test_bit().
	 */
	on_each_cpu(tring_track_refresh_cpu, NULL, 1);
	ret = 0;
free_tgids:
	kfree(tgids);
	return ret;
}

/*
 * How the file was opened, which only open() sees (the flags lose
 * O_TRUNC after it), kept in seq_file's private pointer: without
 * O_APPEND (">", or a program's plain open) the first write replaces the
 * set; with O_TRUNC (">") a close without any write clears it.
 */
#define TRING_TRACK_REPLACE	1UL
#define TRING_TRACK_TRUNC	2UL

static ssize_t tring_track_pid_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	/*
	 * The first write that succeeds replaces the set (see above), the
	 * others add: a write refused changes nothing, its retry included.
	 * Two writes at once through one file may both replace: the set is
	 * then one of theirs, as if they had come one after the other.
	 */
	unsigned long how = (unsigned long)READ_ONCE(m->private);
	bool replace = how & TRING_TRACK_REPLACE;
	struct task_struct **tasks;
	int n, max = count / 2 + 1;
	char *text;
	int ret;

	/* A write came: the close no longer clears. */
	WRITE_ONCE(m->private, (void *)(how & ~TRING_TRACK_TRUNC));
	if (count > TRING_TRACK_WRITE_MAX)
		return -EINVAL;
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return PTR_ERR(text);
	tasks = kvmalloc_array(max, sizeof(*tasks), GFP_KERNEL);
	ret = -ENOMEM;
	if (!tasks)
		goto free_text;
	n = tring_track_parse(text, tasks, max);
	ret = n;
	if (n < 0)
		goto free_tasks;
	mutex_lock(&tring_track_lock);
	ret = tring_track_apply(tasks, n, replace);
	if (!ret)
		WRITE_ONCE(m->private, NULL);
	mutex_unlock(&tring_track_lock);
	while (n--)
		put_task_struct(tasks[n]);
	if (!ret)
		ret = count;
free_tasks:
	kvfree(tasks);
free_text:
	kfree(text);
	return ret;
}

/* The set, in the reader's PID namespace (processes it cannot see left out). */
static int tring_track_pid_show(struct seq_file *m, void *unused)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	unsigned long *map, bit;
	struct pid *pid;
	pid_t nr;

	mutex_lock(&tring_track_lock);
	map = rcu_dereference_protected(tring_track_map,
					lockdep_is_held(&tring_track_lock));
	if (map) {
		for_each_set_bit(bit, map, PID_MAX_LIMIT) {
			rcu_read_lock();
			pid = find_pid_ns(bit, &init_pid_ns);
			nr = pid ? pid_nr_ns(pid, ns) : 0;
			rcu_read_unlock();
			if (nr > 0)
				seq_printf(m, "%d\n", nr);
		}
	}
	mutex_unlock(&tring_track_lock);
	return 0;
}

static int tring_track_pid_open(struct inode *inode, struct file *file)
{
	unsigned long how = 0;

	if ((file->f_mode & FMODE_WRITE) && !(file->f_flags & O_APPEND))
		how |= TRING_TRACK_REPLACE;
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC))
		how |= TRING_TRACK_TRUNC;
	return single_open(file, tring_track_pid_show, (void *)how);
}

/* ": > pid" opens with O_TRUNC and writes nothing: that clears too. */
static int tring_track_pid_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	if ((unsigned long)m->private & TRING_TRACK_TRUNC) {
		mutex_lock(&tring_track_lock);
		tring_track_stop();
		mutex_unlock(&tring_track_lock);
	}
	return single_release(inode, file);
}

static const struct file_operations tring_track_pid_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_track_pid_open,
	.read		= seq_read,
	.write		= tring_track_pid_write,
	.llseek		= noop_llseek,
	.release	= tring_track_pid_release,
};

static ssize_t tring_track_follow_read(struct file *file, char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	char text[2] = { READ_ONCE(tring_track_follow) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, text, sizeof(text));
}

static ssize_t tring_track_follow_write(struct file *file,
					const char __user *ubuf, size_t count,
					loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&tring_track_lock);
	WRITE_ONCE(tring_track_follow, on);
	mutex_unlock(&tring_track_lock);
	return count;
}

static const struct file_operations tring_track_follow_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_track_follow_read,
	.write	= tring_track_follow_write,
	.llseek	= noop_llseek,
};

static void tring_track_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		tring_track_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_switch"))
		tring_track_tp_switch = tp;
}

/**
 * tring_track_init - create the tracking files
 * @root: /sys/kernel/debug/tring.
 *
 * Without the fork and switch tracepoints, with the prototypes the
 * probes have, tracking is left out with a message: the files are not
 * made.
 *
 * Return: 0 or -errno from debugfs.
 */
int tring_track_init(struct dentry *root)
{
	struct dentry *dir, *f;

	for_each_kernel_tracepoint(tring_track_find_tp, NULL);
	if (!tring_track_tp_fork || !tring_track_tp_switch ||
	    !TRING_PROTO_OK(sched_process_fork,
			    PARAMS(struct task_struct *parent,
				   struct task_struct *child)) ||
	    !TRING_PROTO_OK(sched_switch,
			    PARAMS(bool preempt, struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state))) {
		pr_info("process tracking left out: sched_process_fork or sched_switch differs in this kernel\n");
		return 0;
	}
	dir = debugfs_create_dir("tracking", root);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	f = debugfs_create_file("pid", 0600, dir, NULL, &tring_track_pid_fops);
	if (!IS_ERR(f))
		f = debugfs_create_file("follow", 0600, dir, NULL,
					&tring_track_follow_fops);
	if (IS_ERR(f)) {
		debugfs_remove(dir);
		return PTR_ERR(f);
	}
	return 0;
}

/**
 * tring_track_exit - clear the set
 *
 * After every event probe is detached: frees the map once no probe of
 * ours can run. The files go with the root.
 */
void tring_track_exit(void)
{
	mutex_lock(&tring_track_lock);
	tring_track_stop();
	mutex_unlock(&tring_track_lock);
}
