/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: min/max/clamp. Like the kernel's, min() and max()
 * refuse arguments of different types (the pointer comparison warns),
 * so code that builds here does not trip the kernel's type check.
 */
#ifndef _TWIN_LINUX_MINMAX_H
#define _TWIN_LINUX_MINMAX_H

#define __twin_cmp(op, x, y) ({						\
	typeof(x) __x = (x);						\
	typeof(y) __y = (y);						\
	(void)(&__x == &__y);						\
	__x op __y ? __x : __y;						\
})

#define min(x, y)	__twin_cmp(<, x, y)
#define max(x, y)	__twin_cmp(>, x, y)
#define min3(x, y, z)	min((typeof(x))min(x, y), z)
#define min_t(type, x, y)	min((type)(x), (type)(y))
#define max_t(type, x, y)	max((type)(x), (type)(y))
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi)					\
	min_t(type, max_t(type, val, lo), hi)

#endif /* _TWIN_LINUX_MINMAX_H */
