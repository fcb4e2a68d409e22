/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: what the kernel's <linux/stddef.h> adds to C's. It
 * shadows the system's uapi <linux/stddef.h>, which has none of it.
 */
#ifndef _TWIN_LINUX_STDDEF_H
#define _TWIN_LINUX_STDDEF_H

#include <stddef.h>

#define sizeof_field(TYPE, MEMBER)	sizeof((((TYPE *)0)->MEMBER))
#define offsetofend(TYPE, MEMBER)					\
	(offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))

#endif /* _TWIN_LINUX_STDDEF_H */
