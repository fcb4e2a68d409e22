/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_test: what the test module's files share.
 */
#ifndef _TRING_TEST_MOD_H
#define _TRING_TEST_MOD_H

#include <linux/types.h>

struct seq_file;

s64 tring_test_probe_target(u64 a, s32 b, const char *name);
int tring_stress_run(unsigned int ms);
void tring_stress_show(struct seq_file *m);

#endif /* _TRING_TEST_MOD_H */
