// SPDX-License-Identifier: GPL-2.0
/*
 * tring: uprobes and uretprobes, the probes uprobe_events defines.
 *
 * tring_probe_event.c makes the probe and its event as for a kprobe;
 * what is a uprobe's is here. At definition, tring_uprobe_prepare()
 * resolves the file (kern_path(), following links) and refuses one that
 * is missing, not a regular file, not ELF, or shorter than the offsets
 * given; the probe keeps the path until it is freed, which keeps the
 * inode (the uprobe's key) valid also if the file is unlinked meanwhile.
 *
 * The consumer is registered when the event is enabled and unregistered
 * when it is disabled, as ftrace does, rather than registered disabled
 * at definition: a registered uprobe writes its breakpoint into every
 * process that maps the file, now and at each later mmap, and every
 * call then traps into the kernel, whether its handler records or not.
 * A probe defined and left off costs nothing this way. What the kernel
 * checks only at registration (an offset inside an instruction, a
 * reference counter that does not fit) then fails the enable instead of
 * the definition; the file and the offsets are checked here first.
 *
 * A hit runs in the task that hit it, preemptible (6.1: under the
 * uprobe's register_rwsem; 6.12: under RCU tasks trace), and records
 * through tring_probe_hit(), which disables preemption around its scratch.
 *
 * Concurrency: ->on and ->off run under tring_gen_enable_lock, process
 * context; the handlers read the probe, its definition and its event,
 * which tring_probe_event.c frees only once the event is off, that is
 * once the consumer is unregistered and no handler of it runs
 * (tring_uprobe_unregister()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/uprobes.h>

#include "tring_compat.h"
#include "tring_gen.h"
#include "tring_probe.h"
#include "tring_probe_event.h"

/* A uprobe's hit: the breakpoint's address is the probed one. */
static void tring_uprobe_entry(struct uprobe_consumer *uc,
			       struct pt_regs *regs)
{
	struct tring_probe *p = container_of(uc, struct tring_probe, up.uc);
	unsigned long ip = instruction_pointer(regs);
	struct tring_probe_ctx ctx = {
		.regs = regs, .ip = ip, .bp_addr = ip, .user = true,
	};

	tring_probe_hit(p, &ctx);
}

/* A uretprobe's hit: @func probed, returning to where @regs are. */
static void tring_uprobe_return(struct uprobe_consumer *uc,
				unsigned long func, struct pt_regs *regs)
{
	struct tring_probe *p = container_of(uc, struct tring_probe, up.uc);
	struct tring_probe_ctx ctx = {
		.regs = regs, .ip = func, .bp_addr = func,
		.ret_ip = instruction_pointer(regs), .user = true,
	};

	tring_probe_hit(p, &ctx);
}

/*
 * The consumer's handlers; 6.13 added a session cookie, @data, which
 * tring does not use (Kbuild: TRING_UPROBE_HANDLER_DATA).
 */
#ifdef TRING_UPROBE_HANDLER_DATA
static int tring_uprobe_handler(struct uprobe_consumer *uc,
				struct pt_regs *regs, __u64 *data)
#else
static int tring_uprobe_handler(struct uprobe_consumer *uc,
				struct pt_regs *regs)
#endif
{
	tring_uprobe_entry(uc, regs);
	return 0;
}

#ifdef TRING_UPROBE_HANDLER_DATA
static int tring_uprobe_ret_handler(struct uprobe_consumer *uc,
				    unsigned long func, struct pt_regs *regs,
				    __u64 *data)
#else
static int tring_uprobe_ret_handler(struct uprobe_consumer *uc,
				    unsigned long func, struct pt_regs *regs)
#endif
{
	tring_uprobe_return(uc, func, regs);
	return 0;
}

/* ---- the event ---- */

static int tring_uprobe_on(struct tring_gen_event *ev)
{
	struct tring_probe *p = ev->priv;
	struct tring_uprobe *up = &p->up;
	int ret;

	ret = tring_uprobe_register(up->inode, p->def->offset,
				    p->def->ref_ctr_offset, &up->uc,
				    &up->uprobe);
	if (ret)
		pr_warn("uprobe_events: %s/%s: the uprobe was refused (error %d)\n",
			p->def->group, p->def->event, ret);
	return ret;
}

/* Returns once no handler of the probe runs. */
static void tring_uprobe_off(struct tring_gen_event *ev)
{
	struct tring_probe *p = ev->priv;
	struct tring_uprobe *up = &p->up;

	tring_uprobe_unregister(up->inode, p->def->offset, &up->uc,
				&up->uprobe);
}

static void tring_uprobe_show(struct seq_file *m,
			      const struct tring_gen_event *ev)
{
	const struct tring_probe *p = ev->priv;

	seq_printf(m, "probe: %s\n", p->text);
}

const struct tring_gen_ops tring_uprobe_gen_ops = {
	.on = tring_uprobe_on,
	.off = tring_uprobe_off,
	.show = tring_uprobe_show,
};

/* ---- the definition ---- */

/* Whether @path's first bytes are ELF's magic; -errno if unreadable. */
static int tring_uprobe_is_elf(const struct path *path)
{
	char magic[SELFMAG];
	struct file *file;
	loff_t pos = 0;
	ssize_t n;

	file = dentry_open(path, O_RDONLY | O_LARGEFILE, current_cred());
	if (IS_ERR(file))
		return PTR_ERR(file);
	n = kernel_read(file, magic, SELFMAG, &pos);
	fput(file);
	if (n < 0)
		return n;
	return n == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

/* Whether @p's file and offsets can be probed; @err says why not. */
static int tring_uprobe_check(const struct tring_probe *p,
			      struct tring_probe_error *err)
{
	const struct tring_probe_def *def = p->def;
	struct inode *inode = p->up.inode;
	loff_t size = i_size_read(inode);
	int elf;

	if (!S_ISREG(inode->i_mode)) {
		err->msg = "not a regular file";
		return -EINVAL;
	}
	elf = tring_uprobe_is_elf(&p->up.path);
	if (elf < 0) {
		err->msg = "the file cannot be read";
		return elf;
	}
	if (!elf) {
		err->msg = "not an ELF file";
		return -ENOEXEC;
	}
	if (def->offset >= size) {
		err->msg = "the offset is past the end of the file";
		return -EINVAL;
	}
	if (def->ref_ctr_offset &&
	    (def->ref_ctr_offset >= size ||
	     !IS_ALIGNED(def->ref_ctr_offset, sizeof(short)))) {
		err->msg = "the reference counter's offset is past the end of the file or odd";
		return -EINVAL;
	}
	return 0;
}

/**
 * tring_uprobe_prepare - resolve and check a uprobe's file
 * @p: the probe, its definition set, its union zeroed.
 * @err: why it is refused; @err->msg a static string.
 *
 * Takes the path of the definition's file for @p (tring_uprobe_release()
 * puts it) and sets up the consumer; registers nothing (see above).
 * Process context.
 *
 * Return: 0, or -errno with @err set and nothing held.
 */
int tring_uprobe_prepare(struct tring_probe *p, struct tring_probe_error *err)
{
	struct tring_uprobe *up = &p->up;
	int ret;

	ret = kern_path(p->def->path, LOOKUP_FOLLOW, &up->path);
	if (ret) {
		err->msg = ret == -ENOENT ? "no such file" :
			   "the file cannot be looked up";
		return ret;
	}
	up->inode = d_real_inode(up->path.dentry);
	ret = tring_uprobe_check(p, err);
	if (ret) {
		tring_uprobe_release(p);
		return ret;
	}
	if (p->def->kind == TRING_PROBE_URETPROBE)
		up->uc.ret_handler = tring_uprobe_ret_handler;
	else
		up->uc.handler = tring_uprobe_handler;
	return 0;
}

/**
 * tring_uprobe_release - put what tring_uprobe_prepare() took
 * @p: the probe; its consumer is not registered (its event is off).
 *
 * Safe on a probe whose preparation failed or never ran.
 */
void tring_uprobe_release(struct tring_probe *p)
{
	struct tring_uprobe *up = &p->up;

	if (!up->path.dentry)
		return;
	path_put(&up->path);
	up->path.dentry = NULL;
	up->path.mnt = NULL;
	up->inode = NULL;
}
