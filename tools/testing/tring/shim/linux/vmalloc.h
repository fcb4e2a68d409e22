/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: vmap() returns one new contiguous, zeroed mapping of
 * the right size with an inaccessible guard page on each side, so a
 * write past a ring's end faults in every build, sanitizers or not.
 */
#ifndef _TWIN_LINUX_VMALLOC_H
#define _TWIN_LINUX_VMALLOC_H

#include <linux/mm.h>

#define VM_MAP		0x4UL

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot);
void vunmap(const void *addr);

#endif /* _TWIN_LINUX_VMALLOC_H */
