// SPDX-License-Identifier: GPL-2.0
/*
 * tring_tp_a (and, built with TRING_TP_B, tring_tp_b): a module with one
 * trace event, for tring's generic-event tests. Writing N to its
 * parameter "fire" fires the event N times, with seq 0 to N - 1, on the
 * writer's CPU. It does not use tring: it can be loaded before it.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "tring_test_tp_trace.h"

static int tring_tp_fire(const char *val, const struct kernel_param *kp)
{
	u32 n, i;
	int ret;

	ret = kstrtou32(val, 0, &n);
	if (ret)
		return ret;
	if (n > 1000000)
		return -ERANGE;
	for (i = 0; i < n; i++) {
#ifndef TRING_TP_B
		trace_tring_tp_a(i, "tring");
#else
		trace_tring_tp_b(i);
#endif
	}
	return 0;
}

static const struct kernel_param_ops tring_tp_fire_ops = {
	.set = tring_tp_fire,
};
module_param_cb(fire, &tring_tp_fire_ops, NULL, 0200);
MODULE_PARM_DESC(fire, "fire the event this many times");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: a module with a trace event, for tests");
