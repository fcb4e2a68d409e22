/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: WARN_ON() and BUG_ON(). A warning in the core is a
 * test failure: it is counted (twin_warnings) and printed, and the tests
 * check the count.
 */
#ifndef _TWIN_LINUX_BUG_H
#define _TWIN_LINUX_BUG_H

#include <stdio.h>
#include <stdlib.h>

extern unsigned long twin_warnings;

#define WARN_ON(cond) ({						\
	int __w = !!(cond);						\
	if (__builtin_expect(__w, 0)) {					\
		__atomic_fetch_add(&twin_warnings, 1, __ATOMIC_RELAXED); \
		fprintf(stderr, "WARNING: %s:%d: %s\n", __FILE__,	\
			__LINE__, #cond);				\
	}								\
	__w;								\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN(cond, ...)		WARN_ON(cond)
#define BUG_ON(cond)							\
	do {								\
		if (cond) {						\
			fprintf(stderr, "BUG: %s:%d: %s\n", __FILE__,	\
				__LINE__, #cond);			\
			abort();					\
		}							\
	} while (0)
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif /* _TWIN_LINUX_BUG_H */
