/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the kernel API differences between the kernels tring builds
 * against (6.1 and 6.12), kept in one place.
 */
#ifndef _TRING_COMPAT_H
#define _TRING_COMPAT_H

#include <linux/mm.h>
#include <linux/ring_buffer.h>
#include <linux/uprobes.h>

/*
 * 6.3 made vma->vm_flags read-only behind vm_flags_mod() and friends.
 * Kbuild defines TRING_HAVE_VM_FLAGS_MOD when the kernel's headers have it.
 */
static inline void tring_vm_flags_mod(struct vm_area_struct *vma,
				      unsigned long set, unsigned long clear)
{
#ifdef TRING_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * 6.3 dropped the event argument of ring_buffer_unlock_commit(); Kbuild
 * defines TRING_RB_COMMIT_NO_EVENT when the headers show the new form.
 */
static inline int tring_rb_unlock_commit(struct trace_buffer *buffer,
					 struct ring_buffer_event *event)
{
#ifdef TRING_RB_COMMIT_NO_EVENT
	return ring_buffer_unlock_commit(buffer);
#else
	return ring_buffer_unlock_commit(buffer, event);
#endif
}

/*
 * 6.12 made uprobe_register() return the uprobe, the handle that
 * uprobe_unregister_nosync() takes; uprobe_unregister_sync() then waits
 * for the handlers running (6.1's uprobe_unregister() waits itself: it
 * takes the uprobe's register_rwsem, which the handlers run under).
 * Kbuild defines TRING_HAVE_UPROBE_NOSYNC when <linux/uprobes.h> has it.
 * @handle: where 6.12's uprobe is kept between the two calls.
 */
static inline int tring_uprobe_register(struct inode *inode, loff_t offset,
					loff_t ref_ctr_offset,
					struct uprobe_consumer *uc,
					struct uprobe **handle)
{
#ifdef TRING_HAVE_UPROBE_NOSYNC
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
#else
	return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
#endif
}

/* Unregister what tring_uprobe_register() did; no handler runs after. */
static inline void tring_uprobe_unregister(struct inode *inode,
					   loff_t offset,
					   struct uprobe_consumer *uc,
					   struct uprobe **handle)
{
#ifdef TRING_HAVE_UPROBE_NOSYNC
	uprobe_unregister_nosync(*handle, uc);
	uprobe_unregister_sync();
	*handle = NULL;
#else
	uprobe_unregister(inode, offset, uc);
#endif
}

/*
 * 6.3 added ipi:ipi_send_cpu, which tring_event_table.h probes itself;
 * Kbuild defines TRING_HAVE_IPI_SEND_CPU when <trace/events/ipi.h> has it.
 */

#endif /* _TRING_COMPAT_H */
