/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_LOG2_H
#define _TWIN_LINUX_LOG2_H

#include <linux/types.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* Like the kernel's, undefined for 0. */
#define ilog2(n)	((int)(8 * sizeof(unsigned long long) - 1 -	\
			       __builtin_clzll((unsigned long long)(n))))

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (ilog2(n - 1) + 1);
}

#endif /* _TWIN_LINUX_LOG2_H */
