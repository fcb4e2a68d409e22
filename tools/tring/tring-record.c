// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: save the tring per-CPU trace buffers as CTF stream files.
 * See tr_usage() (usage.c) or run tring-record --help.
 */
#include "record.h"

int main(int argc, char **argv)
{
	return tr_main(argc, argv, &tr_real_ops);
}
