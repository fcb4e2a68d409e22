/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: kmalloc and friends on libc, with the twin's fault
 * injection (twin_fail_alloc_after()) and an outstanding-allocation
 * count so leak checks work without LeakSanitizer.
 */
#ifndef _TWIN_LINUX_SLAB_H
#define _TWIN_LINUX_SLAB_H

#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/types.h>

void *twin_kmalloc(size_t size, gfp_t gfp);
void twin_kfree(const void *p);

#define kmalloc(size, gfp)		twin_kmalloc(size, gfp)
#define kzalloc(size, gfp)		twin_kmalloc(size, (gfp) | __GFP_ZERO)
#define kcalloc(n, size, gfp)		kzalloc(array_size(n, size), gfp)
#define kmalloc_array(n, size, gfp)	kmalloc(array_size(n, size), gfp)
#define kvmalloc(size, gfp)		twin_kmalloc(size, gfp)
#define kvzalloc(size, gfp)		kzalloc(size, gfp)
#define kvmalloc_node(size, gfp, node)	twin_kmalloc(size, gfp)
#define kfree(p)			twin_kfree(p)
#define kvfree(p)			twin_kfree(p)

#endif /* _TWIN_LINUX_SLAB_H */
