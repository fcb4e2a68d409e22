/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_BITS_H
#define _TWIN_LINUX_BITS_H

#define BITS_PER_LONG	(8 * (int)sizeof(long))
#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))
#define GENMASK(h, l)	((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))

#endif /* _TWIN_LINUX_BITS_H */
