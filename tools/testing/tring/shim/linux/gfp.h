/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: page allocation. A struct page is only a token here:
 * the core writes through the vmap() of its pages, and only the kernel's
 * mmap code would look at the pages themselves.
 */
#ifndef _TWIN_LINUX_GFP_H
#define _TWIN_LINUX_GFP_H

#include <linux/types.h>

#define __GFP_ZERO		0x1u
#define __GFP_NOWARN		0x2u
#define __GFP_RETRY_MAYFAIL	0x4u
#define GFP_KERNEL		0x10u
#define GFP_ATOMIC		0x20u
#define GFP_NOWAIT		0x40u

struct page {
	unsigned long id;
};

struct page *alloc_pages_node(int node, gfp_t gfp, unsigned int order);
void __free_page(struct page *page);

#endif /* _TWIN_LINUX_GFP_H */
