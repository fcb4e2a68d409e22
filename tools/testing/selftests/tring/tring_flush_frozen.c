// SPDX-License-Identifier: GPL-2.0
/*
 * For persist-test.sh: TRING_IOC_FLUSH asking for an empty packet on a
 * frozen stream (instances/last_boot, the previous boot's trace) must be
 * refused with EPERM, and leave the stream as it was.
 *
 * usage: tring_flush_frozen STREAM
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/tring.h>

int main(int argc, char **argv)
{
	struct tring_flush fl = { .size = sizeof(fl), .flags = TRING_FLUSH_EMPTY };
	struct tring_status before = { .size = sizeof(before) };
	struct tring_status after = { .size = sizeof(after) };
	int fd, ret, err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s STREAM\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, TRING_IOC_STATUS, &before)) {
		perror(argv[1]);
		return 1;
	}
	ret = ioctl(fd, TRING_IOC_FLUSH, &fl);
	err = errno;
	if (ioctl(fd, TRING_IOC_STATUS, &after)) {
		perror("TRING_IOC_STATUS");
		return 1;
	}
	printf("empty flush on a frozen stream: %s; write_pos %llu, then %llu\n",
	       ret ? strerror(err) : "taken",
	       (unsigned long long)before.write_pos,
	       (unsigned long long)after.write_pos);
	return ret == -1 && err == EPERM && before.write_pos == after.write_pos ?
	       0 : 1;
}
