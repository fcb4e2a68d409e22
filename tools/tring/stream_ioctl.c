// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: the real backend, the kernel's stream files.
 *
 * Every ioctl argument starts with its size; we pass the size of the
 * structure as this header knows it, so an older or newer kernel takes
 * what it understands (see include/uapi/linux/tring.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC	0x64626720
#endif

/* System calls made on the streams and the output, for the summary. */
static uint64_t nr_syscalls;

/*
 * The ioctls take mutexes, not interruptible waits, so EINTR should not
 * happen; retrying costs nothing if a future kernel sleeps there.
 */
static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		nr_syscalls++;
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static uint64_t real_syscalls(void)
{
	return nr_syscalls;
}

static uid_t real_euid(void)
{
	return geteuid();
}

static bool real_is_debugfs(const char *path)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && sfs.f_type == DEBUGFS_MAGIC;
}

static bool real_isatty(int fd)
{
	return isatty(fd);
}

static uint64_t real_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A knob takes the whole value in one write() at offset 0, newline
 * included (a filter, a batch of event names: never split). Only at
 * setup and exit, never in the record loop: the buffer is allocated.
 */
static int real_knob_write(const char *path, const char *val)
{
	size_t len = strlen(val) + 1;
	char *buf = malloc(len + 1);
	ssize_t n;
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, val, len - 1);
	buf[len - 1] = '\n';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto free_buf;
	}
	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
free_buf:
	free(buf);
	return ret;
}

static int real_open(struct tr_cpu *c, const char *path)
{
	nr_syscalls++;
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int real_info(struct tr_cpu *c, struct tring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return xioctl(c->fd, TRING_IOC_INFO, info);
}

static int real_map(struct tr_cpu *c)
{
	void *p;

	if (c->info.map_size > SIZE_MAX)
		return -EFBIG;
	nr_syscalls++;
	p = mmap(NULL, c->info.map_size, PROT_READ, MAP_SHARED, c->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	c->map = p;
	return 0;
}

static void real_close(struct tr_cpu *c)
{
	if (c->map)
		munmap((void *)c->map, c->info.map_size);
	c->map = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int real_get(struct tr_cpu *c, struct tring_subbuf *sb,
		    unsigned int max, unsigned int *count)
{
	struct tring_get get = {
		.size = sizeof(get),
		.max = max,
		.subbufs = (uintptr_t)sb,
	};
	int ret;

	ret = xioctl(c->fd, TRING_IOC_GET, &get);
	if (!ret)
		*count = get.count;
	return ret;
}

static int real_put(struct tr_cpu *c, uint64_t seq, unsigned int count)
{
	struct tring_put put = {
		.size = sizeof(put),
		.count = count,
		.seq = seq,
	};

	return xioctl(c->fd, TRING_IOC_PUT, &put);
}

static int real_status(struct tr_cpu *c, struct tring_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return xioctl(c->fd, TRING_IOC_STATUS, st);
}

static int real_flush(struct tr_cpu *c, uint64_t *pos)
{
	struct tring_flush fl = { .size = sizeof(fl) };
	int ret;

	ret = xioctl(c->fd, TRING_IOC_FLUSH, &fl);
	*pos = fl.pos;
	return ret;
}

static int real_flush_ts(struct tr_cpu *c, bool empty, uint64_t *pos,
			 uint64_t *ts)
{
	struct tring_flush fl = {
		.size = sizeof(fl),
		.flags = empty ? TRING_FLUSH_EMPTY : 0,
	};
	int ret;

	ret = xioctl(c->fd, TRING_IOC_FLUSH, &fl);
	*pos = fl.pos;
	*ts = fl.timestamp;
	return ret;
}

static int real_set_watermark(struct tr_cpu *c, uint32_t wm)
{
	struct tring_watermark w = { .size = sizeof(w), .watermark = wm };

	return xioctl(c->fd, TRING_IOC_WATERMARK, &w);
}

/* PRIO_PROCESS 0 is the calling thread on Linux: the recorder's one. */
static int real_get_nice(int *nice)
{
	errno = 0;
	*nice = getpriority(PRIO_PROCESS, 0);
	return *nice == -1 && errno ? -errno : 0;
}

static int real_set_nice(int nice)
{
	return setpriority(PRIO_PROCESS, 0, nice) ? -errno : 0;
}

/*
 * ppoll() with the stop signals unblocked only while asleep: a signal
 * that came in since the last check ends the sleep at once.
 */
static int real_wait(struct tr_rec *r, struct tr_cpu **set, unsigned int n,
		     int timeout_ms)
{
	struct timespec ts, *tsp = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		r->pfd[i].fd = set[i]->fd;
		r->pfd[i].events = POLLIN;
		r->pfd[i].revents = 0;
	}
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
		tsp = &ts;
	}
	nr_syscalls++;
	ret = ppoll(r->pfd, n, tsp, &r->wait_mask);
	if (ret < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if (r->pfd[i].revents & POLLNVAL)
			return -EBADF;
		/*
		 * POLLHUP: the buffer was destroyed and nothing is left;
		 * stop polling it, or poll() would return at once forever.
		 */
		if (r->pfd[i].revents & (POLLHUP | POLLERR))
			set[i]->hup = true;
		set[i]->readable = r->pfd[i].revents != 0;
	}
	return ret;
}

static ssize_t real_writev(int fd, const struct iovec *iov, int cnt)
{
	ssize_t n;

	nr_syscalls++;
	n = writev(fd, iov, cnt);

	return n < 0 ? -errno : n;
}

const struct tr_ops tr_real_ops = {
	.euid		= real_euid,
	.is_debugfs	= real_is_debugfs,
	.isatty		= real_isatty,
	.now_ns		= real_now_ns,
	.knob_write	= real_knob_write,
	.open		= real_open,
	.info		= real_info,
	.map		= real_map,
	.close		= real_close,
	.get		= real_get,
	.put		= real_put,
	.status		= real_status,
	.flush		= real_flush,
	.flush_ts	= real_flush_ts,
	.set_watermark	= real_set_watermark,
	.get_nice	= real_get_nice,
	.set_nice	= real_set_nice,
	.wait		= real_wait,
	.writev		= real_writev,
	.syscalls	= real_syscalls,
};
