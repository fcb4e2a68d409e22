// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace_read: drain one CPU of ftrace's ring buffer to a file the way
 * ftrace's own tools do, for tring's read-side benchmark:
 *
 *   ftrace_read splice CPU OUT   trace_pipe_raw through splice(), one
 *                                sub-buffer at a time (as trace-cmd)
 *   ftrace_read mmap CPU OUT     the 6.10+ mmap interface: one
 *                                TRACE_MMAP_IOCTL_GET_READER per
 *                                sub-buffer, written from the mapping
 *   ftrace_read dd BYTES OUT     the floor: BYTES of zeroes written with
 *                                1 MiB write()s
 *
 * It stops when the buffer is empty, or with "follow" after the mode
 * (splice-follow, mmap-follow) keeps reading while writers run until
 * SIGTERM or SIGINT, then drains. It prints one line:
 *   bytes N ns N user_ns N sys_ns N syscalls N
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS	"/sys/kernel/tracing"

/* The 6.10+ uapi (linux/trace_mmap.h), for building against any headers. */
struct ftrace_meta {
	uint32_t meta_page_size;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	uint64_t reader_lost_events;
	uint32_t reader_id;
	uint32_t reader_read;
	uint64_t flags;
	uint64_t entries;
	uint64_t overrun;
	uint64_t read;
	uint64_t reserved1;
	uint64_t reserved2;
};

#define FTRACE_GET_READER	_IO('R', 0x20)

static uint64_t syscalls;
static volatile sig_atomic_t stop;
static int follow;

static void on_stop(int sig __attribute__((unused)))
{
	stop = 1;
}

/* Following: nothing to read now; sleep a little unless told to stop. */
static int keep_following(void)
{
	if (!follow || stop)
		return 0;
	syscalls++;
	usleep(1000);
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "ftrace_read: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void write_all(int fd, const void *p, size_t n)
{
	ssize_t w;

	while (n) {
		syscalls++;
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		p = (const char *)p + w;
		n -= w;
	}
}

static int open_cpu(int cpu, int flags)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/trace_pipe_raw",
		 cpu);
	syscalls++;
	fd = open(path, flags);
	if (fd < 0)
		die(path);
	return fd;
}

static uint64_t drain_splice(int cpu, int out)
{
	size_t sub = sysconf(_SC_PAGESIZE);
	int in = open_cpu(cpu, O_RDONLY | O_NONBLOCK);
	uint64_t bytes = 0;
	int pfd[2];
	ssize_t n, m;

	syscalls++;
	if (pipe(pfd))
		die("pipe");
	for (;;) {
		syscalls++;
		n = splice(in, NULL, pfd[1], NULL, sub,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && keep_following())
			continue;
		if (n <= 0)
			break;
		while (n > 0) {
			syscalls++;
			m = splice(pfd[0], NULL, out, NULL, n, SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				die("splice to file");
			n -= m;
			bytes += m;
		}
	}
	if (n < 0 && errno != EAGAIN)
		die("splice");
	return bytes;
}

static uint64_t drain_mmap(int cpu, int out)
{
	int fd = open_cpu(cpu, O_RDONLY | O_NONBLOCK);
	size_t page = sysconf(_SC_PAGESIZE);
	struct ftrace_meta *meta;
	uint32_t last_id = UINT32_MAX;
	uint64_t bytes = 0;
	uint8_t *data;

	syscalls++;
	meta = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		die("mmap meta page");
	syscalls++;
	data = mmap(NULL, (size_t)meta->subbuf_size * meta->nr_subbufs,
		    PROT_READ, MAP_SHARED, fd, meta->meta_page_size);
	if (data == MAP_FAILED)
		die("mmap sub-buffers");
	/*
	 * The meta page is brought up to date by GET_READER itself, which
	 * swaps in the next sub-buffer when there is one: ask, and write the
	 * reader sub-buffer whenever it is a new one.
	 */
	for (;;) {
		syscalls++;
		if (ioctl(fd, FTRACE_GET_READER) < 0)
			die("TRACE_MMAP_IOCTL_GET_READER");
		if (meta->reader_id != last_id) {
			last_id = meta->reader_id;
			write_all(out, data + (size_t)last_id * meta->subbuf_size,
				  meta->subbuf_size);
			bytes += meta->subbuf_size;
			continue;
		}
		if (meta->read >= meta->entries && !keep_following())
			break;
	}
	return bytes;
}

static uint64_t write_zeroes(uint64_t total, int out)
{
	static char block[1 << 20];
	uint64_t left = total;
	size_t n;

	while (left) {
		n = left < sizeof(block) ? left : sizeof(block);
		write_all(out, block, n);
		left -= n;
	}
	return total;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	uint64_t t0, bytes;
	int out;

	if (argc != 4) {
		fprintf(stderr, "usage: ftrace_read splice|mmap[-follow] CPU OUT\n"
			"       ftrace_read dd BYTES OUT\n");
		return 2;
	}
	if (strstr(argv[1], "-follow")) {
		follow = 1;
		argv[1][strlen(argv[1]) - strlen("-follow")] = '\0';
		signal(SIGTERM, on_stop);
		signal(SIGINT, on_stop);
	}
	syscalls++;
	out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0)
		die(argv[3]);
	t0 = now_ns();
	if (!strcmp(argv[1], "splice"))
		bytes = drain_splice(atoi(argv[2]), out);
	else if (!strcmp(argv[1], "mmap"))
		bytes = drain_mmap(atoi(argv[2]), out);
	else if (!strcmp(argv[1], "dd"))
		bytes = write_zeroes(strtoull(argv[2], NULL, 0), out);
	else
		return 2;
	syscalls++;
	close(out);
	t0 = now_ns() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("bytes %llu ns %llu user_ns %llu sys_ns %llu syscalls %llu\n",
	       (unsigned long long)bytes, (unsigned long long)t0,
	       (unsigned long long)ru.ru_utime.tv_sec * 1000000000ULL +
	       ru.ru_utime.tv_usec * 1000ULL,
	       (unsigned long long)ru.ru_stime.tv_sec * 1000000000ULL +
	       ru.ru_stime.tv_usec * 1000ULL,
	       (unsigned long long)syscalls);
	return 0;
}
