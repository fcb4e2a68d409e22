/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_STRING_H
#define _TWIN_LINUX_STRING_H

#include <errno.h>
#include <string.h>
#include <sys/types.h>

/* Copy a C string into @dest; -E2BIG if it had to be truncated. */
static inline ssize_t strscpy(char *dest, const char *src, size_t count)
{
	size_t len;

	if (!count)
		return -E2BIG;
	len = strnlen(src, count);
	if (len == count) {
		memcpy(dest, src, count - 1);
		dest[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dest, src, len + 1);
	return len;
}

#endif /* _TWIN_LINUX_STRING_H */
