/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_bench: an ftrace event with the same 64-byte payload as the
 * events the read-side benchmark writes into tring, so both readers
 * drain the same amount of data produced at the same rate.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tring_bench

#if !defined(_TRING_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRING_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(tring_bench_event,
	    TP_PROTO(const u8 *data),
	    TP_ARGS(data),
	    TP_STRUCT__entry(__array(u8, data, 64)),
	    TP_fast_assign(memcpy(__entry->data, data, 64);),
	    TP_printk("%*phN", 8, __entry->data)
);

#endif /* _TRING_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tring_bench_trace
#include <trace/define_trace.h>
