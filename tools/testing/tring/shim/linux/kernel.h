/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: the bits of <linux/kernel.h> the filter uses. */
#ifndef _TWIN_LINUX_KERNEL_H
#define _TWIN_LINUX_KERNEL_H

#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define U64_MAX		UINT64_MAX

#endif /* _TWIN_LINUX_KERNEL_H */
