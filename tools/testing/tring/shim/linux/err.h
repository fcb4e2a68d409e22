/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_ERR_H
#define _TWIN_LINUX_ERR_H

#include <errno.h>
#include <stdbool.h>

#include <linux/compiler.h>

/* Kernel-internal error numbers user space has no name for. */
#define ERESTARTSYS	512

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR(ptr);
}

#endif /* _TWIN_LINUX_ERR_H */
