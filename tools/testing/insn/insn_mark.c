// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the instruction counter's mark once (tring_insn_mark.h), for
 * shell scripts that measure what runs between two of them.
 *
 * usage: insn_mark
 */
#include "tring_insn_mark.h"

int main(void)
{
	tring_insn_mark();
	return 0;
}
