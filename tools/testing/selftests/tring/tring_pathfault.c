// SPDX-License-Identifier: GPL-2.0
/*
 * For tring_filter_test.sh: N open() calls (openat) whose path lies in a
 * page of a shared file mapping that is not mapped in at the call
 * (mapped anew before each): tring's probe, which reads the path
 * without faulting, cannot read it; the call itself faults the page in
 * and opens the file. Then one open of the same path from the stack,
 * which is in memory. Its name is 15 bytes: its whole comm.
 *
 * usage: tring_pathfault FILE N
 *	FILE is created and holds the path ("/dev/null"); exit status 0
 *	if every open succeeded.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Open @path and close it again; 0 or -1 with a message. */
static int open_close(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror("open");
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[16];
	int fd, i, n;
	char *map;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	/* Built at run time: on the stack, so in memory when opened. */
	snprintf(path, sizeof(path), "/dev/%s", "null");
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, path, strlen(path) + 1) < 0 ||
	    ftruncate(fd, pg)) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		/*
		 * A new mapping each time: nothing of it is mapped in until
		 * the call itself faults (madvise() is not in every kernel:
		 * the tinyconfig-based debug kernels lack it).
		 */
		map = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		if (open_close(map))
			return 1;
		munmap(map, pg);
	}
	close(fd);
	if (open_close(path))
		return 1;
	unlink(argv[1]);
	return 0;
}
