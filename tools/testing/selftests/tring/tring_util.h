/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring kselftests: helpers shared by the test programs. They drive the
 * module through debugfs exactly as a tool would: knobs, the test
 * module's triggers, and each CPU's stream file (mmap + ioctls + poll).
 */
#ifndef _TRING_UTIL_H
#define _TRING_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/tring.h>
#include "tring_test.h"
#include "tring_decode.h"

#define TRING_DIR	"/sys/kernel/debug/tring"
#define TRING_TEST_DIR	TRING_DIR "/test"
#define TRING_MODDIR	"/lib/tring"	/* the guests' modules */

/* Write @val to a file; 0 or -errno. */
static inline int tu_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Read a file into @buf (NUL-terminated); bytes read or -errno. */
static inline int tu_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1 &&
	       (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

static inline int tu_knob(const char *name, const char *fmt, ...)
{
	char path[256], val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), TRING_DIR "/%s", name);
	return tu_write_file(path, val);
}

static inline long tu_knob_read(const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), TRING_DIR "/%s", name);
	if (tu_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 0);
}

/*
 * Give the test module's instance file a command ("create NAME KB COUNT
 * [overwrite]", "write NAME CPU COUNT LEN", "destroy NAME"); 0 or -errno.
 */
static inline int tu_instance_cmd(const char *fmt, ...)
{
	char cmd[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return tu_write_file(TRING_TEST_DIR "/instance", cmd);
}

/*
 * Rebuild the default buffer as @count sub-buffers of @subbuf_kb KiB,
 * empty, in discard or overwrite mode. 0 or -errno.
 */
static inline int tu_reset_buffer(unsigned int subbuf_kb, unsigned int count,
				  int overwrite)
{
	int err;

	err = tu_knob("buffer_subbuf_size_kb", "%u", subbuf_kb);
	if (!err)
		err = tu_knob("buffer_size_kb", "%u", subbuf_kb * count);
	if (!err)
		err = tu_knob("overwrite", "%d", overwrite);
	return err;
}

/*
 * Write @count test events of @len bytes on @cpu with sequence numbers
 * from @seq; reports how many were written and refused. 0 or -errno.
 */
static inline int tu_trigger(unsigned int cpu, unsigned long count,
			     unsigned int len, uint64_t seq,
			     unsigned long *written, unsigned long *failed)
{
	char cmd[96], res[96];
	int err;

	snprintf(cmd, sizeof(cmd), "%u %lu %u %llu", cpu, count, len,
		 (unsigned long long)seq);
	err = tu_write_file(TRING_TEST_DIR "/write", cmd);
	if (err)
		return err;
	if (tu_read_file(TRING_TEST_DIR "/write", res, sizeof(res)) < 0 ||
	    sscanf(res, "written %lu failed %lu", written, failed) != 2)
		return -EIO;
	return 0;
}

static inline int tu_nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_CONF);
}

/* Take CPU @cpu offline (@on 0) or bring it back (1); 0 or -errno. */
static inline int tu_set_online(int cpu, int on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return tu_write_file(path, on ? "1" : "0");
}

/* One CPU's stream: open, shape and mapping. */
struct tu_stream {
	int fd;
	int cpu;
	struct tring_info info;
	uint8_t *map;
};

static inline int tu_stream_open_path(struct tu_stream *s, const char *path,
				      int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->fd = open(path, O_RDONLY);
	if (s->fd < 0)
		return -errno;
	s->info.size = sizeof(s->info);
	if (ioctl(s->fd, TRING_IOC_INFO, &s->info))
		goto fail;
	s->map = mmap(NULL, s->info.map_size, PROT_READ, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		goto fail;
	}
	return 0;
fail:
	close(s->fd);
	s->fd = -1;
	return -errno;
}

static inline int tu_stream_open(struct tu_stream *s, int cpu)
{
	char path[128];

	snprintf(path, sizeof(path), TRING_DIR "/per_cpu/cpu%d/stream", cpu);
	return tu_stream_open_path(s, path, cpu);
}

static inline void tu_stream_close(struct tu_stream *s)
{
	if (s->map)
		munmap(s->map, s->info.map_size);
	if (s->fd >= 0)
		close(s->fd);
	s->map = NULL;
	s->fd = -1;
}

/* Take up to @max sub-buffers; count taken, or -errno. */
static inline int tu_get(struct tu_stream *s, struct tring_subbuf *sb,
			 unsigned int max)
{
	struct tring_get get = {
		.size = sizeof(get),
		.max = max,
		.subbufs = (uintptr_t)sb,
	};

	if (ioctl(s->fd, TRING_IOC_GET, &get))
		return -errno;
	return get.count;
}

static inline int tu_put(struct tu_stream *s, uint64_t seq, unsigned int count)
{
	struct tring_put put = { .size = sizeof(put), .count = count, .seq = seq };

	return ioctl(s->fd, TRING_IOC_PUT, &put) ? -errno : 0;
}

static inline int tu_status(struct tu_stream *s, struct tring_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(s->fd, TRING_IOC_STATUS, st) ? -errno : 0;
}

static inline int tu_flush(struct tu_stream *s, uint64_t *pos)
{
	struct tring_flush fl = { .size = sizeof(fl) };

	*pos = 0;
	if (ioctl(s->fd, TRING_IOC_FLUSH, &fl))
		return -errno;
	*pos = fl.pos;
	return 0;
}

/* Set the watermark; the value in use (clamped), or -errno. */
static inline int tu_watermark(struct tu_stream *s, uint32_t wm)
{
	struct tring_watermark w = { .size = sizeof(w), .watermark = wm };

	if (ioctl(s->fd, TRING_IOC_WATERMARK, &w))
		return -errno;
	return w.watermark;
}

/* Called for every sub-buffer a drain takes; non-zero stops the drain. */
typedef int (*tu_packet_fn)(const uint8_t *pkt, const struct tring_subbuf *sb,
			    void *arg);

/*
 * Take and give back every complete sub-buffer until the read position
 * reaches @until (or, with @until 0, until none is ready), waiting up to
 * @timeout_ms for sub-buffers still being committed. Returns the number
 * of sub-buffers taken, or -errno.
 */
static inline long tu_drain(struct tu_stream *s, uint64_t until,
			    int timeout_ms, tu_packet_fn fn, void *arg)
{
	struct tring_subbuf sb[16];
	struct tring_status st;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	long taken = 0;
	int n, i, err;

	for (;;) {
		n = tu_get(s, sb, 16);
		if (n == -EAGAIN) {
			err = tu_status(s, &st);
			if (err)
				return err;
			if (st.read_pos >= until)
				return taken;
			if (poll(&pfd, 1, timeout_ms) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			err = fn ? fn(s->map + sb[i].offset, &sb[i], arg) : 0;
			if (err)
				return err;
		}
		err = tu_put(s, sb[0].seq, n);
		if (err)
			return err;
		taken += n;
	}
}

/* Payload lengths of the test module's events. */
static inline long tu_test_len(uint32_t id, const uint8_t *payload,
			       size_t avail, void *arg)
{
	const struct tring_test_payload *tp = (const void *)payload;
	const struct tring_stress_payload *sp = (const void *)payload;

	(void)arg;
	if (id == TRING_TEST_EVENT_ID && avail >= sizeof(*tp))
		return sizeof(*tp) + tp->data_len;
	if (id == TRING_STRESS_EVENT_ID && avail >= sizeof(*sp))
		return sizeof(*sp) + sp->data_len;
	return -1;
}

/* Check a test event's payload bytes; 0 if exact. */
static inline int tu_test_payload_ok(const uint8_t *p, size_t len)
{
	const struct tring_test_payload *tp = (const void *)p;
	uint32_t i;

	if (len < sizeof(*tp) || sizeof(*tp) + tp->data_len != len)
		return -1;
	for (i = 0; i < tp->data_len; i++)
		if (p[sizeof(*tp) + i] != tring_test_byte(tp->seq, i))
			return -1;
	return 0;
}

/*
 * Check the events left in @d: each is the next test event from @cpu,
 * intact, numbered *@next_seq (padding and nop records aside); each
 * moves *@next_seq and *@events on. 0, or the line of the first problem.
 */
static inline int tu_check_test_events(struct tring_dec *d, int cpu,
				       uint64_t *next_seq, uint64_t *events)
{
	struct tring_dec_event ev;
	int r;

	while ((r = tring_dec_next(d, tu_test_len, NULL, &ev)) == 1) {
		const struct tring_test_payload *tp = (const void *)ev.payload;

		if (ev.id == TRING_ID_PADDING || ev.id == TRING_ID_NOP)
			continue;
		if (ev.id != TRING_TEST_EVENT_ID ||
		    tu_test_payload_ok(ev.payload, ev.len) ||
		    tp->cpu != (uint32_t)cpu || tp->seq != *next_seq)
			return __LINE__;
		(*next_seq)++;
		(*events)++;
	}
	return r < 0 ? __LINE__ : 0;
}

/* Every byte of [p, p + n) is zero. */
static inline int tu_all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Unload module @name (without waiting); 0 or -errno. */
static inline int tu_mod_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Load TRING_MODDIR/@name.ko with module parameters @params; 0 or -errno. */
static inline int tu_mod_load_params(const char *name, const char *params)
{
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), TRING_MODDIR "/%s.ko", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	err = syscall(__NR_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return err;
}

/* Load TRING_MODDIR/@name.ko; 0 or -errno. */
static inline int tu_mod_load(const char *name)
{
	return tu_mod_load_params(name, "");
}

/* Events written on every CPU, from the streams' counters; -1 on error. */
static inline long tu_events_written_all(void)
{
	struct tring_status st;
	struct tu_stream s;
	long sum = 0;
	int cpu;

	for (cpu = 0; cpu < tu_nr_cpus(); cpu++) {
		if (tu_stream_open(&s, cpu))
			return -1;
		if (tu_status(&s, &st)) {
			tu_stream_close(&s);
			return -1;
		}
		sum += st.events_written;
		tu_stream_close(&s);
	}
	return sum;
}

#endif /* _TRING_UTIL_H */
