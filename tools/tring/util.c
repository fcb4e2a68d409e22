// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's shared helpers, below every other file: messages and
 * the status line they clear, paths, small files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* A status line is on the terminal and must be cleared before a message. */
static bool status_dirty;

void tr_clear_status(void)
{
	if (status_dirty) {
		fputs("\r\033[K", stderr);
		status_dirty = false;
	}
}

/* A status line is on the terminal now. */
void tr_status_dirty(void)
{
	status_dirty = true;
}

void tr_msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	tr_clear_status();
	fprintf(stderr, "tring-record: %s", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* @path's contents, NUL-terminated, into @buf: 0 or -errno. */
int tr_read_small_file(const char *path, char *buf, size_t size)
{
	return tr_read_small_at(AT_FDCWD, path, buf, size);
}

/* The same, @path relative to the directory @dfd (or AT_FDCWD). */
int tr_read_small_at(int dfd, const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, size - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/**
 * tr_read_whole_file - a file's contents, whatever their size
 * @path: the file (a debugfs file: no size to ask first).
 * @text: set to a malloc'd copy, NUL-terminated (NULL when empty).
 * @len: set to its bytes.
 *
 * Return: 0 or -errno.
 */
int tr_read_whole_file(const char *path, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL, *p;
	ssize_t got;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		if (cap - n < 4097) {
			p = realloc(buf, cap = cap ? 2 * cap : 8192);
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno != EINTR)
			ret = -errno;
		n += got > 0 ? got : 0;
	} while (!ret && got);
	close(fd);
	if (ret || !n) {
		free(buf);
		buf = NULL;
		n = 0;
	} else {
		buf[n] = '\0';
	}
	*text = buf;
	*len = n;
	return ret;
}

int tr_join(char *dst, size_t n, const char *a, const char *b)
{
	if ((size_t)snprintf(dst, n, "%s/%s", a, b) >= n) {
		tr_err("path too long: %s/%s", a, b);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* No status line on the terminal (a new run). */
void tr_status_reset(void)
{
	status_dirty = false;
}

/**
 * tr_iov_advance - skip what a short write or send took
 * @iov: the vector; moved to the first entry not fully written.
 * @cnt: its entries; lowered as whole ones go.
 * @n: bytes written.
 */
void tr_iov_advance(struct iovec **iov, int *cnt, size_t n)
{
	while (*cnt > 0 && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*cnt)--;
	}
	if (*cnt > 0) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}
