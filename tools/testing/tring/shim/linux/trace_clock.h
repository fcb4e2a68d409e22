/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_TRACE_CLOCK_H
#define _TWIN_LINUX_TRACE_CLOCK_H

#include <linux/types.h>
#include <twin_shim.h>

/* CLOCK_MONOTONIC, or the test's clock hook (clock 1). */
static inline u64 trace_clock_local(void)
{
	return twin_clock_ns(1);
}

#endif /* _TWIN_LINUX_TRACE_CLOCK_H */
