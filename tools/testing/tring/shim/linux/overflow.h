/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_OVERFLOW_H
#define _TWIN_LINUX_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

/* a * b, saturating at SIZE_MAX so the allocation fails. */
static inline size_t size_mul(size_t a, size_t b)
{
	size_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return SIZE_MAX;
	return r;
}

#define array_size(a, b)	size_mul(a, b)

/* a + b, saturating at SIZE_MAX. */
static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	if (__builtin_add_overflow(a, b, &r))
		return SIZE_MAX;
	return r;
}

/* Bytes of *@p with @n elements in its flexible array @member. */
#define struct_size(p, member, n)					\
	size_add(sizeof(*(p)), size_mul(sizeof((p)->member[0]), n))

#endif /* _TWIN_LINUX_OVERFLOW_H */
