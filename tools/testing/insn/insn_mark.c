// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the instruction counter's mark once (tring_insn_mark.h), for
 * shell scripts that measure what runs between two of them.
 *
 * usage: insn_mark [TAG]   (TAG: a number the plugin writes with the
 *                           counts; default 0)
 */
#include <stdlib.h>

#include "tring_insn_mark.h"

int main(int argc, char **argv)
{
	tring_insn_mark_tag(argc > 1 ? strtoul(argv[1], NULL, 0) : 0);
	return 0;
}
