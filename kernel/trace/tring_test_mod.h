/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring_test: what the test module's files share.
 */
#ifndef _TRING_TEST_MOD_H
#define _TRING_TEST_MOD_H

struct seq_file;

int tring_stress_run(unsigned int ms);
void tring_stress_show(struct seq_file *m);

#endif /* _TRING_TEST_MOD_H */
