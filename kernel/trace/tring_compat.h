/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the kernel API differences between the kernels tring builds
 * against (6.1 and 6.12), kept in one place.
 */
#ifndef _TRING_COMPAT_H
#define _TRING_COMPAT_H

#include <linux/mm.h>
#include <linux/ring_buffer.h>

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
 * 6.3 added ipi:ipi_send_cpu, which tring_event_table.h probes itself;
 * Kbuild defines TRING_HAVE_IPI_SEND_CPU when <trace/events/ipi.h> has it.
 */

#endif /* _TRING_COMPAT_H */
