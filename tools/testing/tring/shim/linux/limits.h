/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: the C library's limits (INT_MAX...) for the kernel's. */
#ifndef _TWIN_LINUX_LIMITS_H
#define _TWIN_LINUX_LIMITS_H
#include <limits.h>
#endif
