/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the machinery that expands the event table
 * (tring_event_table.h). A row lists its fields as tf_*() items; each
 * expansion walks them with TRING_EACH(), which hands every item and the
 * event's name to a handler: TRING_EACH(h, name, tf_u32(a, x), ...) is
 * h(name, tf_u32(a, x)) ... The handlers paste a prefix onto the item,
 * so tf_u32(a, x) becomes TRING_STRUCT_tf_u32(a, x), TRING_ASSIGN_tf_u32(a,
 * x) and so on, defined below for each field kind.
 */
#ifndef _TRING_EVENT_GEN_H
#define _TRING_EVENT_GEN_H

#include <linux/kconfig.h>
#include <linux/tracepoint.h>

#define TRING_EACH_1(h, c, x) h(c, x)
#define TRING_EACH_2(h, c, x, ...) h(c, x) TRING_EACH_1(h, c, __VA_ARGS__)
#define TRING_EACH_3(h, c, x, ...) h(c, x) TRING_EACH_2(h, c, __VA_ARGS__)
#define TRING_EACH_4(h, c, x, ...) h(c, x) TRING_EACH_3(h, c, __VA_ARGS__)
#define TRING_EACH_5(h, c, x, ...) h(c, x) TRING_EACH_4(h, c, __VA_ARGS__)
#define TRING_EACH_6(h, c, x, ...) h(c, x) TRING_EACH_5(h, c, __VA_ARGS__)
#define TRING_EACH_7(h, c, x, ...) h(c, x) TRING_EACH_6(h, c, __VA_ARGS__)
#define TRING_EACH_8(h, c, x, ...) h(c, x) TRING_EACH_7(h, c, __VA_ARGS__)
#define TRING_EACH_9(h, c, x, ...) h(c, x) TRING_EACH_8(h, c, __VA_ARGS__)
#define TRING_EACH_10(h, c, x, ...) h(c, x) TRING_EACH_9(h, c, __VA_ARGS__)
#define TRING_EACH_11(h, c, x, ...) h(c, x) TRING_EACH_10(h, c, __VA_ARGS__)
#define TRING_EACH_12(h, c, x, ...) h(c, x) TRING_EACH_11(h, c, __VA_ARGS__)
#define TRING_EACH_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
			n, ...) TRING_EACH_##n
/* At most 12 fields per event; more is a build error. */
#define TRING_EACH(h, c, ...)						\
	TRING_EACH_PICK(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,	\
			1)(h, c, __VA_ARGS__)

/* h(c, m, args...) from c and "m, args...": expands the list first. */
#define TRING_APPLY(c, ...) TRING_APPLY_(c, __VA_ARGS__)
#define TRING_APPLY_(c, m, ...) m(c, __VA_ARGS__)

/* TRING_IF(cond, a, b): a if cond expands to 1, b if to 0. */
#define TRING_IF(c, a, b) TRING_IF_(c, a, b)
#define TRING_IF_(c, a, b) TRING_IF_##c(a, b)
#define TRING_IF_0(a, b) b
#define TRING_IF_1(a, b) a

/* The payload struct's members. */
#define TRING_GEN_STRUCT(c, x) TRING_STRUCT_##x
#define TRING_STRUCT_tf_u8(f, e) u8 f;
#define TRING_STRUCT_tf_u16(f, e) u16 f;
#define TRING_STRUCT_tf_u32(f, e) u32 f;
#define TRING_STRUCT_tf_u64(f, e) u64 f;
#define TRING_STRUCT_tf_s8(f, e) s8 f;
#define TRING_STRUCT_tf_s16(f, e) s16 f;
#define TRING_STRUCT_tf_s32(f, e) s32 f;
#define TRING_STRUCT_tf_s64(f, e) s64 f;
#define TRING_STRUCT_tf_comm(f, t) char f[TASK_COMM_LEN];
#define TRING_STRUCT_tf_string(f, e)
#define TRING_STRUCT_tf_none()

/* The field table: struct tring_field entries of struct tring_ev_<c>. */
#define TRING_GEN_FIELD(c, x) TRING_APPLY(c, TRING_FIELD_##x)
#define TRING_FIELD_tf_u8(f, e) TRING_GEN_FIXED, f, U8
#define TRING_FIELD_tf_u16(f, e) TRING_GEN_FIXED, f, U16
#define TRING_FIELD_tf_u32(f, e) TRING_GEN_FIXED, f, U32
#define TRING_FIELD_tf_u64(f, e) TRING_GEN_FIXED, f, U64
#define TRING_FIELD_tf_s8(f, e) TRING_GEN_FIXED, f, S8
#define TRING_FIELD_tf_s16(f, e) TRING_GEN_FIXED, f, S16
#define TRING_FIELD_tf_s32(f, e) TRING_GEN_FIXED, f, S32
#define TRING_FIELD_tf_s64(f, e) TRING_GEN_FIXED, f, S64
#define TRING_FIELD_tf_comm(f, t) TRING_GEN_FIXED, f, CHARS
#define TRING_FIELD_tf_string(f, e) TRING_GEN_TAIL, f, STRING
#define TRING_FIELD_tf_none() TRING_GEN_NOTHING, -, -
#define TRING_GEN_FIXED(c, f, t) TRING_FIELD(struct tring_ev_##c, f, t),
#define TRING_GEN_TAIL(c, f, t) TRING_FIELD_TAIL(struct tring_ev_##c, f, t),
#define TRING_GEN_NOTHING(c, f, t)

/* The write function: the trailing string, then the fixed fields. */
#define TRING_GEN_STR(c, x) TRING_STR_##x
#define TRING_STR_tf_u8(f, e)
#define TRING_STR_tf_u16(f, e)
#define TRING_STR_tf_u32(f, e)
#define TRING_STR_tf_u64(f, e)
#define TRING_STR_tf_s8(f, e)
#define TRING_STR_tf_s16(f, e)
#define TRING_STR_tf_s32(f, e)
#define TRING_STR_tf_s64(f, e)
#define TRING_STR_tf_comm(f, t)
#define TRING_STR_tf_string(f, e) tring_str = (e);
#define TRING_STR_tf_none()

#define TRING_GEN_ASSIGN(c, x) TRING_ASSIGN_##x
#define TRING_ASSIGN_tf_u8(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_u16(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_u32(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_u64(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_s8(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_s16(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_s32(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_s64(f, e) ev->f = (e);
#define TRING_ASSIGN_tf_comm(f, t) memcpy(ev->f, (t)->comm, TASK_COMM_LEN);
#define TRING_ASSIGN_tf_string(f, e)
#define TRING_ASSIGN_tf_none()

/*
 * 1 when the kernel's tracepoint @tp takes exactly @proto, 0 otherwise:
 * a constant, never a build error, so a changed tracepoint leaves one
 * event out instead of breaking the build.
 */
#define TRING_PROTO_OK(tp, proto)					\
	__builtin_types_compatible_p(typeof(register_trace_##tp),	\
				     int (void (*)(void *, proto), void *))

#endif /* _TRING_EVENT_GEN_H */
