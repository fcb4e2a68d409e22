// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction counter's own test (insn-test.sh): the mark, N
 * iterations of a two-instruction loop, the mark. Between the marks the
 * vCPU runs 2 * N user instructions and a few of the loop's setup, so
 * two runs' counts differ by exactly 2 * (N2 - N1). Both marks carry N
 * as their tag. With "prof", the marks switch the plugin's profile on
 * and off instead (TRING_INSN_PROF_ON, _OFF).
 *
 * usage: insn_loop N [prof]
 */
#include <stdlib.h>
#include <string.h>

#include "tring_insn_mark.h"

static void spin(unsigned long n)
{
	asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int prof = argc > 2 && !strcmp(argv[2], "prof");

	if (!n)
		return 2;
	tring_insn_mark_tag(prof ? TRING_INSN_PROF_ON : n);
	spin(n);
	tring_insn_mark_tag(prof ? TRING_INSN_PROF_OFF : n);
	return 0;
}
