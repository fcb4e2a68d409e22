/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_tp_a, tring_tp_b: a trace event each, of different layouts, in
 * modules of their own that do not use tring, for the generic events'
 * tests (modules loaded before tring, unloaded, loaded again; an id the
 * kernel hands to another module's event).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tring_tp

#if !defined(_TRING_TEST_TP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRING_TEST_TP_TRACE_H

#include <linux/tracepoint.h>

#ifndef TRING_TP_B
TRACE_EVENT(tring_tp_a,
	    TP_PROTO(u32 seq, const char *name),
	    TP_ARGS(seq, name),
	    TP_STRUCT__entry(__field(u32, seq)
			     __dynamic_array(char, name, strlen(name) + 1)
			     __array(char, tag, 6)),
	    TP_fast_assign(__entry->seq = seq;
			   memcpy(__get_dynamic_array(name), name,
				  strlen(name) + 1);
			   memcpy(__entry->tag, "tagA\0", 6);),
	    TP_printk("seq=%u name=%s tag=%s", __entry->seq,
		      (char *)__get_dynamic_array(name),
		      __entry->tag)
);
#else
TRACE_EVENT(tring_tp_b,
	    TP_PROTO(u32 seq),
	    TP_ARGS(seq),
	    TP_STRUCT__entry(__field(u64, big)
			     __field(u16, small)),
	    TP_fast_assign(__entry->big = 0x100000000ULL + seq;
			   __entry->small = seq & 0xffff;),
	    TP_printk("big=%llu small=%u", __entry->big, __entry->small)
);
#endif

#endif /* _TRING_TEST_TP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tring_test_tp_trace
#include <trace/define_trace.h>
