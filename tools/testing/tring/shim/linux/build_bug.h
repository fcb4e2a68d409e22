/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: static_assert(). */
#ifndef _TWIN_LINUX_BUILD_BUG_H
#define _TWIN_LINUX_BUILD_BUG_H

#include <assert.h>

#endif /* _TWIN_LINUX_BUILD_BUG_H */
