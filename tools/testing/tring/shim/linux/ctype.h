/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: the kernel's isspace(), not the C library's (which
 * depends on the locale): the kernel's ctype table counts as space
 * '\t' to '\r', ' ' and the Latin-1 no-break space 0xa0.
 */
#ifndef _TWIN_LINUX_CTYPE_H
#define _TWIN_LINUX_CTYPE_H

#include <stdbool.h>

static inline bool twin_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

#define isspace(c)	twin_isspace(c)

#endif /* _TWIN_LINUX_CTYPE_H */
