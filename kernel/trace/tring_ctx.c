// SPDX-License-Identifier: GPL-2.0
/*
 * tring: per-event contexts, LTTng's "add-context" for the default
 * buffer.
 *
 * The file "context" takes a list of context names (LTTng's kernel
 * names: pid, tid, procname, pid_ns, callstack-kernel, perf:cpu:cycles,
 * ...). Writing it makes a set (struct tring_ctx_set) and a new default
 * buffer whose every event carries those contexts after its header, in
 * the order written; the CTF metadata describes them as the stream's
 * event context with LTTng's field names. "available_contexts" lists
 * what this machine and kernel can record.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "tring_ctx.h"

static unsigned int stack_depth = TRING_CTX_DEPTH_DEF;
module_param(stack_depth, uint, 0644);
MODULE_PARM_DESC(stack_depth, "frames a callstack context keeps (1-128), read when the context file is written");

/* Longest text the context file takes. */
#define TRING_CTX_TEXT		2048

/**
 * struct tring_ctx_type - a context that has no parameter
 * @name: its name.
 * @kind: enum tring_ctx_kind.
 * @size: bytes in the record; 0 for a stack.
 */
struct tring_ctx_type {
	const char *name;
	u8 kind;
	u8 size;
};

static const struct tring_ctx_type tring_ctx_types[] = {
	{ "pid", TRING_CTX_PID, 4 },
	{ "tid", TRING_CTX_TID, 4 },
	{ "vpid", TRING_CTX_VPID, 4 },
	{ "vtid", TRING_CTX_VTID, 4 },
	{ "ppid", TRING_CTX_PPID, 4 },
	{ "procname", TRING_CTX_PROCNAME, TASK_COMM_LEN },
	{ "prio", TRING_CTX_PRIO, 4 },
	{ "nice", TRING_CTX_NICE, 4 },
	{ "hostname", TRING_CTX_HOSTNAME, __NEW_UTS_LEN + 1 },
	{ "cgroup_ns", TRING_CTX_CGROUP_NS, 4 },
	{ "ipc_ns", TRING_CTX_IPC_NS, 4 },
	{ "mnt_ns", TRING_CTX_MNT_NS, 4 },
	{ "net_ns", TRING_CTX_NET_NS, 4 },
	{ "pid_ns", TRING_CTX_PID_NS, 4 },
	{ "time_ns", TRING_CTX_TIME_NS, 4 },
	{ "user_ns", TRING_CTX_USER_NS, 4 },
	{ "uts_ns", TRING_CTX_UTS_NS, 4 },
	{ "interruptible", TRING_CTX_INTERRUPTIBLE, 1 },
	{ "preemptible", TRING_CTX_PREEMPTIBLE, 1 },
	{ "need_reschedule", TRING_CTX_NEED_RESCHED, 1 },
	{ "migratable", TRING_CTX_MIGRATABLE, 1 },
	{ "callstack-kernel", TRING_CTX_KSTACK, 0 },
	{ "callstack-user", TRING_CTX_USTACK, 0 },
};

/* Can this kernel record contexts of @kind? */
static bool tring_ctx_kind_ok(unsigned int kind)
{
	switch (kind) {
	case TRING_CTX_CGROUP_NS:
		return IS_ENABLED(CONFIG_CGROUPS);
	case TRING_CTX_IPC_NS:
		return IS_ENABLED(CONFIG_IPC_NS);
	case TRING_CTX_MNT_NS:
		/* Read from a private structure's known first member. */
		return IS_ENABLED(CONFIG_RANDSTRUCT_NONE);
	case TRING_CTX_NET_NS:
		return IS_ENABLED(CONFIG_NET_NS);
	case TRING_CTX_TIME_NS:
		return IS_ENABLED(CONFIG_TIME_NS);
	case TRING_CTX_MIGRATABLE:
		return IS_ENABLED(CONFIG_SMP);
	case TRING_CTX_USTACK:
		return IS_ENABLED(CONFIG_X86_64);
	}
	return true;
}

/* LTTng's field name of context @name: "_" and @name, '-' and ':' as '_'. */
static void tring_ctx_field_name(struct tring_ctx_item *it)
{
	char *p;

	it->field[0] = '_';
	strscpy(it->field + 1, it->name, sizeof(it->field) - 1);
	for (p = it->field; *p; p++)
		if (*p == '-' || *p == ':')
			*p = '_';
}

/* Fill @it for context @name. Return: 0, or -EINVAL naming it. */
static int tring_ctx_item_parse(const char *name, struct tring_ctx_item *it)
{
	unsigned int i;

	if (strscpy(it->name, name, sizeof(it->name)) < 0)
		goto unknown;
	for (i = 0; i < ARRAY_SIZE(tring_ctx_types); i++) {
		if (strcmp(name, tring_ctx_types[i].name))
			continue;
		if (!tring_ctx_kind_ok(tring_ctx_types[i].kind)) {
			pr_warn("tring: context %s: not in this kernel\n", name);
			return -EOPNOTSUPP;
		}
		it->kind = tring_ctx_types[i].kind;
		it->size = tring_ctx_types[i].size;
		tring_ctx_field_name(it);
		return 0;
	}
	if (!tring_ctx_perf_lookup(name, it)) {
		tring_ctx_field_name(it);
		return 0;
	}
unknown:
	pr_warn("tring: context '%.*s': no such context\n",
		TRING_CTX_NAME, name);
	return -EINVAL;
}

/* Add the context @name to @set. */
static int tring_ctx_add(struct tring_ctx_set *set, const char *name)
{
	struct tring_ctx_item *it = &set->items[set->nr];
	unsigned int i;
	int ret;

	if (set->nr == TRING_CTX_MAX) {
		pr_warn("tring: more than %d contexts\n", TRING_CTX_MAX);
		return -E2BIG;
	}
	ret = tring_ctx_item_parse(name, it);
	if (ret)
		return ret;
	for (i = 0; i < set->nr; i++) {
		if (!strcmp(set->items[i].name, it->name)) {
			pr_warn("tring: context %s given twice\n", name);
			return -EINVAL;
		}
	}
	set->nr++;
	set->fixed += it->size;
	set->kstack |= it->kind == TRING_CTX_KSTACK;
	set->ustack |= it->kind == TRING_CTX_USTACK;
	set->perf |= it->kind == TRING_CTX_PERF;
	return 0;
}

/* Parse @text, names separated by commas or white space, into @set. */
static int tring_ctx_parse(struct tring_ctx_set *set, char *text)
{
	char *name;
	int ret;

	while ((name = strsep(&text, ", \t\n"))) {
		if (!*name)
			continue;
		ret = tring_ctx_add(set, name);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Put the stacks last, the kernel's before the user's; the fixed-size
 * contexts keep the order given. The writers then loop over the
 * fixed-size ones only and write the stacks after them.
 */
static void tring_ctx_order(struct tring_ctx_set *set)
{
	struct tring_ctx_item k, u;
	bool has_k = false, has_u = false;
	unsigned int i, n = 0;

	for (i = 0; i < set->nr; i++) {
		const struct tring_ctx_item *it = &set->items[i];

		if (it->kind == TRING_CTX_KSTACK) {
			k = *it;
			has_k = true;
		} else if (it->kind == TRING_CTX_USTACK) {
			u = *it;
			has_u = true;
		} else {
			if (n != i)
				set->items[n] = *it;
			n++;
		}
	}
	set->fixed_end = set->items + n;
	if (has_k)
		set->items[n++] = k;
	if (has_u)
		set->items[n++] = u;
}

/**
 * tring_ctx_set_free - free a set out of force for a grace period
 * @set: the set, or NULL.
 */
void tring_ctx_set_free(struct tring_ctx_set *set)
{
	if (!set)
		return;
	tring_ctx_perf_stop(set);
	free_percpu(set->scratch);
	kfree(set);
}

/*
 * A set of the contexts named in @text, its counters counting; NULL for
 * an empty list, or an ERR_PTR().
 */
static struct tring_ctx_set *tring_ctx_set_new(char *text)
{
	struct tring_ctx_set *set;
	unsigned int depth = READ_ONCE(stack_depth);
	int ret;

	if (!depth || depth > TRING_CTX_DEPTH_MAX) {
		pr_warn("tring: stack_depth=%u is not within 1-%d\n", depth,
			TRING_CTX_DEPTH_MAX);
		return ERR_PTR(-EINVAL);
	}
	set = kzalloc(struct_size(set, items, TRING_CTX_MAX), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->depth = depth;
	ret = tring_ctx_parse(set, text);
	if (ret)
		goto free_set;
	if (!set->nr) {
		kfree(set);
		return NULL;
	}
	tring_ctx_order(set);
	ret = tring_ctx_scratch_alloc(set);
	if (ret)
		goto free_set;
	ret = tring_ctx_perf_start(set);
	if (ret)
		goto free_set;
	return set;

free_set:
	tring_ctx_set_free(set);
	return ERR_PTR(ret);
}

/**
 * tring_ctx_set_from_user - a set of the contexts a write names
 * @ubuf: the text: names separated by commas or white space.
 * @count: its bytes.
 *
 * Return: the set, its counters counting; NULL for an empty list; or an
 * ERR_PTR(): -E2BIG for a text of TRING_CTX_TEXT bytes or more, -EFAULT,
 * -EINVAL for a name unknown, given twice or one too many (the kernel
 * log says which), -ENOMEM.
 */
struct tring_ctx_set *tring_ctx_set_from_user(const char __user *ubuf,
					      size_t count)
{
	struct tring_ctx_set *set;
	char *text;

	if (count >= TRING_CTX_TEXT)
		return ERR_PTR(-E2BIG);
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return ERR_CAST(text);
	set = tring_ctx_set_new(text);
	kfree(text);
	return set;
}

/**
 * tring_ctx_set_show - a set's names, one a line, in its order
 * @m: the file.
 * @set: the set, or NULL (nothing).
 */
void tring_ctx_set_show(struct seq_file *m, const struct tring_ctx_set *set)
{
	unsigned int i;

	for (i = 0; set && i < set->nr; i++)
		seq_printf(m, "%s\n", set->items[i].name);
}

/* One context's CTF declaration. */
static void tring_ctx_ctf_item(struct seq_file *m, const struct tring_ctx_item *it)
{
	switch (it->kind) {
	case TRING_CTX_PROCNAME:
	case TRING_CTX_HOSTNAME:
		seq_printf(m, "\t\tinteger { size = 8; align = 8; signed = false; encoding = UTF8; } %s[%u];\n",
			   it->field, it->size);
		break;
	case TRING_CTX_KSTACK:
	case TRING_CTX_USTACK:
		seq_printf(m, "\t\tuint32_t %s_length;\n", it->field);
		seq_printf(m, "\t\tinteger { size = 64; align = 8; signed = false; base = 16; } %s[%s_length];\n",
			   it->field, it->field);
		break;
	case TRING_CTX_PERF:
		seq_printf(m, "\t\tuint64_t %s;\n", it->field);
		break;
	default:
		if (it->size == 1)
			seq_printf(m, "\t\tuint8_t %s;\n", it->field);
		else if (it->kind >= TRING_CTX_CGROUP_NS)
			seq_printf(m, "\t\tuint32_t %s;\n", it->field);
		else
			seq_printf(m, "\t\tint32_t %s;\n", it->field);
	}
}

/**
 * tring_ctx_ctf - the stream's event context, if a buffer carries one
 * @m: where the metadata goes.
 * @attr: the buffer's attributes.
 *
 * Writes "event.context := struct { ... };" for the stream block when
 * @attr is the default buffer's and a context set is in force.
 *
 * Return: whether it wrote anything.
 */
bool tring_ctx_ctf(struct seq_file *m, const struct tring_buffer_attr *attr)
{
	const struct tring_buffer *owner =
		container_of(attr, struct tring_buffer, attr);
	const struct tring_ctx_set *set;
	struct tring_buffer *buf;
	unsigned int i;

	rcu_read_lock_sched();
	/*
	 * An instance's own contexts (pairs with rcu_assign_pointer() in
	 * tring_ctx_inst_set()), else the default buffer's.
	 */
	set = rcu_dereference_sched(owner->ctx);
	if (!set) {
		set = rcu_dereference_sched(tring_ctx_cur);
		buf = set ? rcu_dereference_sched(set->buf) : NULL;
		if (!buf || &buf->attr != attr)
			set = NULL;
	}
	if (set) {
		seq_puts(m, "\tevent.context := struct {\n");
		for (i = 0; i < set->nr; i++)
			tring_ctx_ctf_item(m, &set->items[i]);
		/* The contexts take a multiple of 4 bytes. */
		if (set->fixed % 4)
			seq_puts(m, "\t\tstruct { } align(32) _tring_ctx_pad;\n");
		seq_puts(m, "\t};\n");
	}
	rcu_read_unlock_sched();
	return set;
}

static int tring_ctx_show(struct seq_file *m, void *unused)
{
	rcu_read_lock_sched();
	tring_ctx_set_show(m, rcu_dereference_sched(tring_ctx_cur));
	rcu_read_unlock_sched();
	return 0;
}

/*
 * Opened for writing with O_TRUNC and closed without a write (": >"):
 * no context any more. The seq_file's private pointer says so until a
 * write comes.
 */
static int tring_ctx_open(struct inode *inode, struct file *file)
{
	bool trunc = (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);

	return single_open(file, tring_ctx_show, trunc ? file : NULL);
}

static int tring_ctx_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	int ret = 0;

	if (m->private)
		ret = tring_default_set_context(NULL);
	if (ret)
		pr_warn("tring: context not emptied: %d\n", ret);
	return single_release(inode, file);
}

/*
 * A new list of contexts: a new set and a new default buffer, or EBUSY
 * while the buffer is being read, EPERM in a persistent region; on any
 * error nothing changed.
 */
static ssize_t tring_ctx_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct tring_ctx_set *set;
	int ret;

	/* A write: the release does not empty the list (": >"). */
	((struct seq_file *)file->private_data)->private = NULL;
	if (*ppos)
		return -EINVAL;
	set = tring_ctx_set_from_user(ubuf, count);
	if (IS_ERR(set))
		return PTR_ERR(set);
	ret = tring_default_set_context(set);
	if (ret)
		tring_ctx_set_free(set);
	return ret ? ret : count;
}

static const struct file_operations tring_ctx_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_ctx_open,
	.read		= seq_read,
	.write		= tring_ctx_write,
	.llseek		= seq_lseek,
	.release	= tring_ctx_release,
};

static int tring_ctx_available_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tring_ctx_types); i++)
		if (tring_ctx_kind_ok(tring_ctx_types[i].kind))
			seq_printf(m, "%s\n", tring_ctx_types[i].name);
	tring_ctx_perf_list(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_ctx_available);

/**
 * tring_ctx_init - the context files
 * @root: tring's debugfs directory.
 *
 * Return: 0 or an error.
 */
int tring_ctx_init(struct dentry *root)
{
	struct dentry *f;
	int ret;

	ret = tring_ctx_perf_init();
	if (ret)
		return ret;
	f = debugfs_create_file("context", 0600, root, NULL, &tring_ctx_fops);
	if (IS_ERR(f))
		goto exit_perf;
	f = debugfs_create_file("available_contexts", 0400, root, NULL,
				&tring_ctx_available_fops);
	if (IS_ERR(f))
		goto exit_perf;
	return 0;

exit_perf:
	tring_ctx_perf_exit();
	return PTR_ERR(f);
}

/**
 * tring_ctx_exit - after the default buffer's last writer: free the set
 */
void tring_ctx_exit(void)
{
	struct tring_ctx_set *set = rcu_dereference_protected(tring_ctx_cur, 1);

	RCU_INIT_POINTER(tring_ctx_cur, NULL);
	synchronize_rcu();
	tring_ctx_set_free(set);
	tring_ctx_perf_exit();
}
