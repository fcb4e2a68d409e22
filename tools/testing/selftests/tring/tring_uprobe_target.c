// SPDX-License-Identifier: GPL-2.0
/*
 * The program tring_uprobe_test.sh probes: tring_uprobe_target(a, b)
 * called N times, call i with a = i and b = SEED - i, returning
 * 2a + b = i + SEED; it prints the sum of what the calls returned,
 * N(N - 1)/2 + N * SEED.
 *
 * usage: tring_uprobe_target --offset
 *		print the file offset of tring_uprobe_target() in this
 *		program ("0x..."), for PATH:OFFSET: its address less the
 *		start of its mapping plus the mapping's file offset, from
 *		/proc/self/maps (the guest has no nm or readelf)
 *	  tring_uprobe_target N SEED [wait]
 *		the calls; with "wait", only once standard input is at
 *		its end (the test removes the file meanwhile)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * noipa: no inlining, cloning or change of its calling convention, so
 * that a arrives in %rdi and b in %esi and every call reaches the
 * function's one entry.
 */
__attribute__((noipa)) long tring_uprobe_target(long a, int b)
{
	return 2 * a + b;
}

static int print_offset(void)
{
	unsigned long addr = (unsigned long)&tring_uprobe_target;
	unsigned long start, end, off;
	char line[512], perms[8];
	FILE *maps;

	maps = fopen("/proc/self/maps", "r");
	if (!maps) {
		perror("/proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &off) != 4 || addr < start || addr >= end)
			continue;
		printf("0x%lx\n", addr - start + off);
		fclose(maps);
		return 0;
	}
	fclose(maps);
	fprintf(stderr, "tring_uprobe_target: not in /proc/self/maps\n");
	return 1;
}

int main(int argc, char **argv)
{
	long n, seed, i, sum = 0;
	char c;

	if (argc == 2 && !strcmp(argv[1], "--offset"))
		return print_offset();
	if (argc < 3) {
		fprintf(stderr, "usage: %s --offset | N SEED [wait]\n", argv[0]);
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	seed = strtol(argv[2], NULL, 0);
	if (argc > 3 && !strcmp(argv[3], "wait"))
		while (read(0, &c, 1) > 0)
			;
	for (i = 0; i < n; i++)
		sum += tring_uprobe_target(i, seed - i);
	printf("%ld\n", sum);
	return 0;
}
