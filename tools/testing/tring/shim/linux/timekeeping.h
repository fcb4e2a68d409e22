/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_TIMEKEEPING_H
#define _TWIN_LINUX_TIMEKEEPING_H

#include <linux/types.h>
#include <twin_shim.h>

/* CLOCK_MONOTONIC, or the test's clock hook (clock 0). */
static inline u64 ktime_get_mono_fast_ns(void)
{
	return twin_clock_ns(0);
}

#endif /* _TWIN_LINUX_TIMEKEEPING_H */
