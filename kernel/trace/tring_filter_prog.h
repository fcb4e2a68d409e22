/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: a compiled filter's program, shared by its compiler
 * (tring_filter.c) and its evaluation (tring_filter_match.c). Private to
 * those two: everyone else sees struct tring_filter as opaque.
 */
#ifndef _TRING_FILTER_PROG_H
#define _TRING_FILTER_PROG_H

#include <linux/types.h>

#include "tring_filter.h"

/* Instructions: a comparison's index, or one of these. */
#define TF_AND	0x80
#define TF_OR	0x81
#define TF_NOT	0x82

enum tf_op {
	TF_EQ, TF_NE, TF_LT, TF_LE, TF_GT, TF_GE, TF_BAND, TF_GLOB,
	TF_NGLOB,	/* ~ "!glob": not the glob */
};

/* One comparison of a field with a constant (24 bytes). */
struct tf_pred {
	u16 offset;
	u16 size;
	u8 ftype;
	u8 is_signed;
	u8 op;
	u8 gate;	/* "current's pid == val": see struct tring_filter_gate */
	u16 str_off;	/* string constant: in chars[] */
	u16 str_len;
	u64 val;	/* integer constant */
};

/**
 * struct tring_filter - a compiled filter; immutable once compiled
 * @gate: what it says of current's pid alone; first, for
 *	tring_filter_gate_pid().
 * @nr_insns: instructions in @insns.
 * @chars_used: bytes of @chars taken.
 * @insns: the program, in postfix order.
 * @preds: the comparisons the program names.
 * @chars: the filter as written, then each string constant, each with
 *	its NUL: at most twice the text's size (a constant is never
 *	longer than its quoted text).
 *
 * About 900 bytes and the text twice.
 */
struct tring_filter {
	struct tring_filter_gate gate;
	u16 nr_insns;
	u16 chars_used;
	u8 insns[TRING_FILTER_MAX_INSNS];
	struct tf_pred preds[TRING_FILTER_MAX_PREDS];
	char chars[];
};

/* Is a field of this type an integer? */
static inline bool tf_is_int(u8 ftype)
{
	return ftype == TRING_FT_INT || ftype == TRING_FT_CPU;
}

#endif /* _TRING_FILTER_PROG_H */
