/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: the bits of <linux/kernel.h> the filter and the probe
 * parser use (snprintf() is the C library's).
 */
#ifndef _TWIN_LINUX_KERNEL_H
#define _TWIN_LINUX_KERNEL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define U64_MAX		UINT64_MAX
#define U16_MAX		UINT16_MAX
#define U32_MAX		UINT32_MAX
#define S64_MAX		INT64_MAX
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define round_up(x, y)	((((x) - 1) | ((__typeof__(x))(y) - 1)) + 1)

#endif /* _TWIN_LINUX_KERNEL_H */
