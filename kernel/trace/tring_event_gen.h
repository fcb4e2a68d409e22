/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: what expanding the event table (tring_event_table.h) needs
 * besides the per-expansion definitions in tring_events.c.
 */
#ifndef _TRING_EVENT_GEN_H
#define _TRING_EVENT_GEN_H

#include <linux/tracepoint.h>

/* tf_integer()'s C types, as TRING_FIELD() types. */
#define TRING_FIELD_u8		TRING_FIELD_U8
#define TRING_FIELD_u16		TRING_FIELD_U16
#define TRING_FIELD_u32		TRING_FIELD_U32
#define TRING_FIELD_u64		TRING_FIELD_U64
#define TRING_FIELD_s8		TRING_FIELD_S8
#define TRING_FIELD_s16		TRING_FIELD_S16
#define TRING_FIELD_s32		TRING_FIELD_S32
#define TRING_FIELD_s64		TRING_FIELD_S64

/* tf_integer()'s struct members; the separator comes first. */
#define TRING_MEMBER_u8(f)	; u8 f
#define TRING_MEMBER_u16(f)	; u16 f
#define TRING_MEMBER_u32(f)	; u32 f
#define TRING_MEMBER_u64(f)	; u64 f
#define TRING_MEMBER_s8(f)	; s8 f
#define TRING_MEMBER_s16(f)	; s16 f
#define TRING_MEMBER_s32(f)	; s32 f
#define TRING_MEMBER_s64(f)	; s64 f

/*
 * 1 when the kernel's tracepoint @tp takes exactly @proto, 0 otherwise:
 * a constant, never a build error, so a changed tracepoint leaves one
 * event out instead of breaking the build.
 */
#define TRING_PROTO_OK(tp, proto)					\
	__builtin_types_compatible_p(typeof(register_trace_##tp),	\
				     int (void (*)(void *, proto), void *))

#endif /* _TRING_EVENT_GEN_H */
