/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_MM_H
#define _TWIN_LINUX_MM_H

#include <linux/gfp.h>
#include <linux/types.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_KERNEL	((pgprot_t)0)

/* Memory as the core's guard sees it: twin_set_memory() sets it. */
long si_mem_available(void);
unsigned long totalram_pages(void);

#endif /* _TWIN_LINUX_MM_H */
