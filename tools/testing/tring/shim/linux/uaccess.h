/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: the nofault readers. A test program defines them
 * (twin_probe_eval.c: over the ranges it declares mapped, as kernel or as
 * user memory; anything else faults).
 */
#ifndef _TWIN_LINUX_UACCESS_H
#define _TWIN_LINUX_UACCESS_H

#include <linux/compiler.h>
#include <linux/types.h>

long copy_from_kernel_nofault(void *dst, const void *src, size_t size);
long copy_from_user_nofault(void *dst, const void __user *src, size_t size);

#endif /* _TWIN_LINUX_UACCESS_H */
