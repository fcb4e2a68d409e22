/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the kernel API differences between the kernels tring builds
 * against (6.1 and 6.12), kept in one place.
 */
#ifndef _TRING_COMPAT_H
#define _TRING_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/* 6.3 made vma->vm_flags read-only behind vm_flags_set()/_clear(). */
static inline void tring_vm_flags_mod(struct vm_area_struct *vma,
				      unsigned long set, unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _TRING_COMPAT_H */
