/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: crc32_le(), bit by bit (the kernel's is table-driven). */
#ifndef _TWIN_LINUX_CRC32_H
#define _TWIN_LINUX_CRC32_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t crc32_le(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *b = p;
	int k;

	while (len--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320U & -(crc & 1));
	}
	return crc;
}

#endif /* _TWIN_LINUX_CRC32_H */
