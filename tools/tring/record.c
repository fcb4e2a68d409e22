// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: the record logic.
 *
 * The kernel hands out complete sub-buffers (CTF packets) in a read-only
 * mapping of each CPU's ring. They are written to the output exactly as
 * they are, straight from the mapping: a batch taken with one
 * TRING_IOC_GET goes out in one writev(), with sub-buffers that are
 * adjacent in the mapping merged into one iovec. Events are never
 * parsed; each packet header's events_count is the only thing read.
 *
 * All allocation happens at setup, sized by the number of CPUs; the
 * record loop allocates nothing, however long the trace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
/* Longest sleep in the drain before looking at the positions again. */
#define DRAIN_POLL_MS	100

volatile sig_atomic_t tr_stop_requests;

/* A status line is on the terminal and must be cleared before a message. */
static bool status_dirty;

/*
 * Also what the signal handler does. Counts, so that a second request
 * can cut the drain short.
 */
void tr_request_stop(void)
{
	tr_stop_requests++;
}

static void on_signal(int sig)
{
	struct sigaction sa;

	tr_request_stop();
	/*
	 * The second one cuts the drain short; a third must kill, even if
	 * something hangs. sigaction() is async-signal-safe.
	 */
	if (tr_stop_requests >= 2) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	(void)sig;
}

static void clear_status(void)
{
	if (status_dirty) {
		fputs("\r\033[K", stderr);
		status_dirty = false;
	}
}

static void __attribute__((format(printf, 2, 3)))
msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	clear_status();
	fprintf(stderr, "tring-record: %s", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define tr_err(...)	msg("error: ", __VA_ARGS__)
#define tr_warn(...)	msg("warning: ", __VA_ARGS__)
#define tr_note(r, ...)	do { if (!(r)->opt.quiet) msg("", __VA_ARGS__); } while (0)

static int join(char *dst, size_t n, const char *a, const char *b)
{
	if ((size_t)snprintf(dst, n, "%s/%s", a, b) >= n) {
		tr_err("path too long: %s/%s", a, b);
		return -ENAMETOOLONG;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* ---- setup: environment ---- */

static int check_environment(struct tr_rec *r)
{
	const char *dfs = r->opt.debugfs;
	char inst[4096];

	if (r->ops->euid() != 0) {
		tr_err("must be run as root (the tring files in debugfs are root-only)");
		return TR_EXIT_SETUP;
	}
	/* A fake or relocated debugfs (--debugfs, TRING_DEBUGFS) is trusted. */
	if (!is_dir(dfs) || (!r->opt.debugfs_given && !r->ops->is_debugfs(dfs))) {
		tr_err("debugfs is not mounted at %s (mount -t debugfs none %s)",
		       dfs, dfs);
		return TR_EXIT_SETUP;
	}
	if (join(r->tring_dir, sizeof(r->tring_dir), dfs, "tring"))
		return TR_EXIT_SETUP;
	if (!is_dir(r->tring_dir)) {
		tr_err("%s does not exist: the tring module is not loaded (modprobe tring)",
		       r->tring_dir);
		return TR_EXIT_SETUP;
	}
	if (!r->opt.instance) {
		strcpy(r->buf_dir, r->tring_dir);
		return 0;
	}
	if (join(inst, sizeof(inst), r->tring_dir, "instances") ||
	    join(r->buf_dir, sizeof(r->buf_dir), inst, r->opt.instance))
		return TR_EXIT_SETUP;
	if (!is_dir(r->buf_dir)) {
		tr_err("no buffer instance '%s' (%s does not exist)",
		       r->opt.instance, r->buf_dir);
		return TR_EXIT_SETUP;
	}
	return 0;
}

/* ---- setup: output directory ---- */

static int mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Files of ours that --force replaces. */
static bool is_our_file(const char *name)
{
	const char *p;

	if (!strcmp(name, "metadata") || !strcmp(name, ".metadata.tmp") ||
	    !strcmp(name, ".tring-record.summary"))
		return true;
	if (strncmp(name, "stream_", 7) || !name[7])
		return false;
	for (p = name + 7; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * The output directory must be empty unless --force, which removes the
 * files an earlier run left (a stale stream_7 from a run on more CPUs
 * would otherwise become part of the trace) and nothing else.
 */
static int scan_output(struct tr_rec *r)
{
	struct dirent *de;
	char path[4096];
	bool others = false, nonempty = false;
	DIR *d;

	d = opendir(r->out_dir);
	if (!d) {
		tr_err("cannot open %s: %s", r->out_dir, strerror(errno));
		return TR_EXIT_USAGE;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!is_our_file(de->d_name)) {
			/* CTF readers skip hidden files, not the others. */
			if (de->d_name[0] != '.')
				others = true;
			nonempty = true;
			continue;
		}
		nonempty = true;
		if (!r->opt.force)
			continue;
		if (join(path, sizeof(path), r->out_dir, de->d_name) ||
		    unlink(path)) {
			tr_err("cannot remove %s: %s", path, strerror(errno));
			closedir(d);
			return TR_EXIT_USAGE;
		}
	}
	closedir(d);
	if (nonempty && !r->opt.force) {
		tr_err("output directory %s is not empty (use --force to record into it)",
		       r->out_dir);
		return TR_EXIT_USAGE;
	}
	if (others)
		tr_warn("%s holds files that are not part of the trace: CTF readers will take them for streams",
			r->out_dir);
	return 0;
}

static int prepare_output(struct tr_rec *r)
{
	struct stat st;
	int ret;

	if ((size_t)snprintf(r->out_dir, sizeof(r->out_dir), "%s",
			     r->opt.output) >= sizeof(r->out_dir)) {
		tr_err("output path too long");
		return TR_EXIT_USAGE;
	}
	if (!stat(r->out_dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			tr_err("%s exists and is not a directory", r->out_dir);
			return TR_EXIT_USAGE;
		}
	} else {
		ret = mkdir_p(r->out_dir);
		if (ret) {
			tr_err("cannot create %s: %s", r->out_dir,
			       strerror(-ret));
			return TR_EXIT_USAGE;
		}
		r->out_created = true;
	}
	ret = scan_output(r);
	r->out_prepared = !ret;
	return ret;
}

/* ---- setup: knobs ---- */

static int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
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

/*
 * Does the knob already hold @val? trace_clock reads "[mono] local";
 * the others read a number and a newline.
 */
static bool knob_holds(const char *knob, const char *cur, const char *val)
{
	size_t len = strlen(val);
	const char *sel;

	if (!strcmp(knob, "trace_clock")) {
		sel = strchr(cur, '[');
		return sel && !strncmp(sel + 1, val, len) && sel[len + 1] == ']';
	}
	return !strncmp(cur, val, len) && (cur[len] == '\n' || !cur[len]);
}

static int set_knob(struct tr_rec *r, const char *knob, const char *val)
{
	char path[4096], cur[128];
	int ret;

	if (join(path, sizeof(path), r->buf_dir, knob))
		return TR_EXIT_SETUP;
	if (access(path, F_OK)) {
		tr_err("%s has no knob %s%s", r->buf_dir, knob,
		       r->opt.instance ? " (instances cannot be reconfigured)" : "");
		return TR_EXIT_SETUP;
	}
	/* Writing rebuilds the buffer, dropping its data: only if needed. */
	if (!read_small_file(path, cur, sizeof(cur)) &&
	    knob_holds(knob, cur, val))
		return 0;
	ret = r->ops->knob_write(path, val);
	if (!ret)
		return 0;
	if (ret == -EBUSY)
		tr_err("cannot set %s: the buffer is in use (a stream of it is open or mapped, another tring-record?)",
		       knob);
	else if (ret == -EINVAL || ret == -ERANGE)
		tr_err("the kernel refused %s = %s", knob, val);
	else
		tr_err("cannot set %s: %s", knob, strerror(-ret));
	return TR_EXIT_SETUP;
}

static int apply_knobs(struct tr_rec *r)
{
	const struct tr_opts *o = &r->opt;
	char v[32];
	int ret = 0;

	/* The sub-buffer size first: buffer_size_kb is rounded to it. */
	if (o->subbuf_kb > 0) {
		snprintf(v, sizeof(v), "%ld", o->subbuf_kb);
		ret = set_knob(r, "buffer_subbuf_size_kb", v);
	}
	if (!ret && o->buffer_kb > 0) {
		snprintf(v, sizeof(v), "%ld", o->buffer_kb);
		ret = set_knob(r, "buffer_size_kb", v);
	}
	if (!ret && o->overwrite >= 0)
		ret = set_knob(r, "overwrite", o->overwrite ? "1" : "0");
	if (!ret && o->clock)
		ret = set_knob(r, "trace_clock", o->clock);
	return ret;
}

/* ---- setup: streams ---- */

/* CPUs with a per_cpu/cpuN directory, into @avail. */
static int list_cpus(struct tr_rec *r, unsigned char *avail)
{
	char path[4096], *end;
	struct dirent *de;
	unsigned long cpu;
	DIR *d;

	if (join(path, sizeof(path), r->buf_dir, "per_cpu"))
		return TR_EXIT_SETUP;
	d = opendir(path);
	if (!d) {
		tr_err("cannot open %s: %s", path, strerror(errno));
		return TR_EXIT_SETUP;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' ||
		    de->d_name[3] > '9')
			continue;
		cpu = strtoul(de->d_name + 3, &end, 10);
		if (!*end && cpu < TR_MAX_CPUS)
			tr_cpu_set(avail, cpu);
	}
	closedir(d);
	return 0;
}

static int select_cpus(struct tr_rec *r)
{
	static unsigned char avail[TR_MAX_CPUS / 8];
	unsigned int cpu, n = 0;
	int ret;

	memset(avail, 0, sizeof(avail));
	ret = list_cpus(r, avail);
	if (ret)
		return ret;
	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++) {
		if (r->opt.cpus_given && !tr_cpu_isset(r->opt.cpus, cpu))
			continue;
		if (!tr_cpu_isset(avail, cpu)) {
			if (r->opt.cpus_given) {
				tr_err("CPU %u has no stream in %s/per_cpu",
				       cpu, r->buf_dir);
				return TR_EXIT_SETUP;
			}
			continue;
		}
		n++;
	}
	if (!n) {
		tr_err("no CPU streams in %s/per_cpu", r->buf_dir);
		return TR_EXIT_SETUP;
	}
	r->cpus = calloc(n, sizeof(*r->cpus));
	r->set = calloc(n, sizeof(*r->set));
	r->pfd = calloc(n, sizeof(*r->pfd));
	if (!r->cpus || !r->set || !r->pfd) {
		tr_err("out of memory");
		return TR_EXIT_SETUP;
	}
	for (cpu = 0; cpu < TR_MAX_CPUS && r->ncpus < n; cpu++) {
		if (!tr_cpu_isset(avail, cpu) ||
		    (r->opt.cpus_given && !tr_cpu_isset(r->opt.cpus, cpu)))
			continue;
		r->cpus[r->ncpus].cpu = cpu;
		r->cpus[r->ncpus].fd = -1;
		r->cpus[r->ncpus].out_fd = -1;
		r->ncpus++;
	}
	return 0;
}

static int open_error(struct tr_cpu *c, const char *path, int err)
{
	switch (err) {
	case -EBUSY:
		tr_err("cpu%u: the stream is already open (another reader, e.g. tring-record, is running)",
		       c->cpu);
		break;
	case -ENODEV:
		tr_err("cpu%u: the buffer is being removed", c->cpu);
		break;
	default:
		tr_err("cannot open %s: %s", path, strerror(-err));
	}
	return TR_EXIT_SETUP;
}

static bool info_sane(const struct tring_info *i)
{
	return i->subbuf_size >= sizeof(struct tring_packet_header) &&
	       !(i->subbuf_size & (i->subbuf_size - 1)) &&
	       i->header_size >= sizeof(struct tring_packet_header) &&
	       i->header_size <= i->subbuf_size && i->subbuf_count >= 1 &&
	       i->map_size >= i->subbuf_size * i->subbuf_count &&
	       !(i->map_size % i->subbuf_size);
}

static int check_info(struct tr_cpu *c)
{
	const struct tring_info *i = &c->info;

	if (i->abi_version != TRING_ABI_VERSION) {
		tr_err("cpu%u: kernel tring ABI version %u, tring-record knows %u",
		       c->cpu, i->abi_version, TRING_ABI_VERSION);
		return TR_EXIT_SETUP;
	}
	if (!info_sane(i)) {
		tr_err("cpu%u: TRING_IOC_INFO returned an impossible shape (sub-buffer %llu x %u, map %llu)",
		       c->cpu, (unsigned long long)i->subbuf_size,
		       i->subbuf_count, (unsigned long long)i->map_size);
		return TR_EXIT_SETUP;
	}
	return 0;
}

static int ioctl_error(struct tr_cpu *c, const char *what, int err)
{
	tr_err("cpu%u: %s failed: %s", c->cpu, what, strerror(-err));
	return TR_EXIT_SETUP;
}

static int set_watermark(struct tr_rec *r, struct tr_cpu *c)
{
	uint32_t wm = r->opt.watermark;
	int ret;

	ret = r->ops->set_watermark(c, wm);
	if (ret)
		return ioctl_error(c, "TRING_IOC_WATERMARK", ret);
	/* The kernel clamps it silently: read back what it took. */
	ret = r->ops->info(c, &c->info);
	if (ret)
		return ioctl_error(c, "TRING_IOC_INFO", ret);
	if (c->info.watermark != wm && c == r->cpus)
		tr_warn("watermark %u out of range, the kernel uses %u",
			wm, c->info.watermark);
	return 0;
}

static int open_cpu(struct tr_rec *r, struct tr_cpu *c)
{
	char path[4096];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stream",
			     r->buf_dir, c->cpu) >= sizeof(path))
		return TR_EXIT_SETUP;
	ret = r->ops->open(c, path);
	if (ret)
		return open_error(c, path, ret);
	ret = r->ops->info(c, &c->info);
	if (ret)
		return ioctl_error(c, "TRING_IOC_INFO", ret);
	ret = check_info(c);
	if (ret)
		return ret;
	ret = r->ops->map(c);
	if (ret) {
		tr_err("cpu%u: cannot map the stream: %s", c->cpu,
		       strerror(-ret));
		return TR_EXIT_SETUP;
	}
	if (r->opt.watermark) {
		ret = set_watermark(r, c);
		if (ret)
			return ret;
	}
	ret = r->ops->status(c, &c->start);
	if (ret)
		return ioctl_error(c, "TRING_IOC_STATUS", ret);
	c->last = c->start;
	c->next_seq = c->start.read_pos / c->info.subbuf_size;
	return 0;
}

static int create_outputs(struct tr_rec *r)
{
	char path[4096];
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if ((size_t)snprintf(path, sizeof(path), "%s/stream_%u",
				     r->out_dir, c->cpu) >= sizeof(path))
			return TR_EXIT_USAGE;
		/* Kernel data: as private as debugfs itself. */
		c->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0600);
		if (c->out_fd < 0) {
			tr_err("cannot create %s: %s", path, strerror(errno));
			return TR_EXIT_OUTPUT;
		}
	}
	return 0;
}

/* ---- output ---- */

/*
 * Write all of @iov, going on after short writes. @done gets the bytes
 * written, also when an error stops it.
 */
static int write_all(struct tr_rec *r, int fd, struct iovec *iov, int cnt,
		     size_t *done)
{
	ssize_t n;

	*done = 0;
	while (cnt > 0) {
		n = r->ops->writev(fd, iov, cnt);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		*done += n;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
	return 0;
}

/* Copy a file (debugfs metadata) with a fixed buffer. */
static int copy_file(struct tr_rec *r, const char *src, const char *dst)
{
	static char buf[65536];
	struct iovec iov;
	int in, out, ret = 0;
	size_t done;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : 0;
			break;
		}
		iov.iov_base = buf;
		iov.iov_len = n;
		ret = write_all(r, out, &iov, 1, &done);
		if (ret)
			break;
	}
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Copy the metadata at the start, so that an interrupted run still has
 * it; and again at the end (through a temporary file, keeping the first
 * copy if that fails), for events described while recording.
 */
static int copy_metadata(struct tr_rec *r, bool final)
{
	char src[4096], dst[4096], tmp[4096];
	int ret;

	if (join(src, sizeof(src), r->buf_dir, "metadata") ||
	    join(dst, sizeof(dst), r->out_dir, "metadata") ||
	    join(tmp, sizeof(tmp), r->out_dir, ".metadata.tmp"))
		return -ENAMETOOLONG;
	ret = copy_file(r, src, final ? tmp : dst);
	if (ret == -ENOENT && access(src, F_OK)) {
		if (!final)
			tr_warn("%s does not exist: the trace has no CTF metadata",
				src);
		return 0;
	}
	if (!ret && final && rename(tmp, dst))
		ret = -errno;
	if (ret) {
		unlink(final ? tmp : dst);
		tr_warn("cannot copy %s: %s%s", src, strerror(-ret),
			final ? " (the copy made at the start is kept)" : "");
	}
	return ret;
}

/* ---- recording ---- */

static void stream_failed(struct tr_rec *r, struct tr_cpu *c,
			  const char *what, int err)
{
	tr_err("cpu%u: %s failed: %s; no more data from this CPU",
	       c->cpu, what, strerror(-err));
	c->failed = true;
	if (!r->exit_status)
		r->exit_status = TR_EXIT_STREAM;
}

/* A sub-buffer must lie whole, aligned, inside the mapping. */
static bool subbuf_valid(const struct tr_cpu *c, const struct tring_subbuf *sb)
{
	uint64_t size = c->info.subbuf_size;

	return !(sb->offset % size) && sb->offset <= c->info.map_size - size &&
	       sb->length <= size;
}

static int check_batch(struct tr_rec *r, struct tr_cpu *c, unsigned int count)
{
	unsigned int i;

	if (!count || count > TR_BATCH) {
		stream_failed(r, c, "TRING_IOC_GET", -EPROTO);
		return -EPROTO;
	}
	for (i = 0; i < count; i++) {
		if (!subbuf_valid(c, &r->sb[i]) ||
		    (i && r->sb[i].seq != r->sb[i - 1].seq + 1)) {
			stream_failed(r, c, "TRING_IOC_GET (bad sub-buffer)",
				      -EPROTO);
			return -EPROTO;
		}
	}
	/* A jump forward: packets overwritten before we could take them. */
	if (r->sb[0].seq > c->next_seq)
		c->skipped += r->sb[0].seq - c->next_seq;
	c->next_seq = r->sb[count - 1].seq + 1;
	return 0;
}

/* Events in a held packet, from its header; the records are not read. */
static uint64_t packet_events(struct tr_cpu *c, const struct tring_subbuf *sb)
{
	const struct tring_packet_header *h =
		(const void *)(c->map + sb->offset);

	if ((h->magic != TRING_PACKET_MAGIC || h->packet_seq_num != sb->seq) &&
	    !c->bad_header_warned) {
		tr_warn("cpu%u: packet %llu has a bad header (written as is)",
			c->cpu, (unsigned long long)sb->seq);
		c->bad_header_warned = true;
	}
	return h->events_count;
}

/* One iovec per run of sub-buffers adjacent in the mapping. */
static int build_iov(struct tr_rec *r, struct tr_cpu *c, unsigned int count)
{
	size_t size = c->info.subbuf_size;
	const unsigned char *p;
	unsigned int i;
	int n = 0;

	for (i = 0; i < count; i++) {
		p = c->map + r->sb[i].offset;
		if (n && (const unsigned char *)r->iov[n - 1].iov_base +
			 r->iov[n - 1].iov_len == p) {
			r->iov[n - 1].iov_len += size;
			continue;
		}
		r->iov[n].iov_base = (void *)p;
		r->iov[n].iov_len = size;
		n++;
	}
	return n;
}

static void output_failed(struct tr_rec *r, struct tr_cpu *c, int err)
{
	tr_err("writing %s/stream_%u failed: %s; stopping", r->out_dir, c->cpu,
	       strerror(-err));
	r->stop = TR_STOP_OUTPUT;
	r->exit_status = TR_EXIT_OUTPUT;
}

/*
 * Write a batch of held sub-buffers. On error the file is cut back to
 * the last whole packet, so what is saved stays a valid stream, and the
 * packets that did not make it are counted as unsaved.
 */
static int save_batch(struct tr_rec *r, struct tr_cpu *c, unsigned int count)
{
	size_t size = c->info.subbuf_size, done;
	unsigned int i, whole;
	uint64_t events;
	int ret;

	ret = write_all(r, c->out_fd, r->iov, build_iov(r, c, count), &done);
	whole = ret ? done / size : count;
	for (i = 0; i < count; i++) {
		events = packet_events(c, &r->sb[i]);
		if (i < whole) {
			c->subbufs++;
			c->bytes += size;
			c->events += events;
		} else {
			c->unsaved_subbufs++;
			c->unsaved_events += events;
		}
	}
	if (!ret)
		return 0;
	if (done % size && ftruncate(c->out_fd, c->bytes))
		tr_warn("cannot cut %s/stream_%u back to %" PRIu64 " bytes: %s",
			r->out_dir, c->cpu, c->bytes, strerror(errno));
	output_failed(r, c, ret);
	return ret;
}

/*
 * Take, save and give back up to @limit complete sub-buffers of @c.
 * Return: 0 (also when the stream failed: the others go on), or a
 * negative errno when the output failed and recording must stop.
 */
static int read_cpu(struct tr_rec *r, struct tr_cpu *c, uint64_t limit)
{
	unsigned int count;
	uint64_t taken = 0;
	int ret, put;

	while (taken < limit && !c->failed) {
		count = 0;
		ret = r->ops->get(c, r->sb, TR_BATCH, &count);
		if (ret == -EAGAIN)
			return 0;
		if (ret) {
			stream_failed(r, c, "TRING_IOC_GET", ret);
			return 0;
		}
		if (check_batch(r, c, count))
			return 0;
		ret = save_batch(r, c, count);
		/*
		 * Give the batch back also when the output failed: what was
		 * not saved is counted as lost already, and the read
		 * position then tells what is left in the ring.
		 */
		put = r->ops->put(c, r->sb[0].seq, count);
		if (ret)
			return ret;
		if (put) {
			stream_failed(r, c, "TRING_IOC_PUT", put);
			return 0;
		}
		taken += count;
	}
	return 0;
}

/* Streams that may still bring data, into r->set. */
static unsigned int live_set(struct tr_rec *r)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->failed || c->hup)
			continue;
		c->readable = false;
		r->set[n++] = c;
	}
	return n;
}

static uint64_t lost_events(const struct tring_status *st)
{
	return st->events_discarded + st->events_overwritten +
	       st->events_too_big;
}

static void totals(struct tr_rec *r, uint64_t *events, uint64_t *bytes)
{
	unsigned int i;

	*events = 0;
	*bytes = 0;
	for (i = 0; i < r->ncpus; i++) {
		*events += r->cpus[i].events;
		*bytes += r->cpus[i].bytes;
	}
}

/* Refresh every CPU's c->last; return the events lost so far. */
static uint64_t refresh_status(struct tr_rec *r)
{
	uint64_t lost = 0;
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (!c->failed && r->ops->status(c, &c->last))
			continue;
		lost += lost_events(&c->last);
	}
	return lost;
}

static void show_status(struct tr_rec *r, uint64_t now)
{
	double dt = (double)(now - r->t_status) / NSEC_PER_SEC;
	uint64_t events, bytes, lost = refresh_status(r);

	totals(r, &events, &bytes);
	if (dt <= 0)
		dt = 1;
	clear_status();
	fprintf(stderr, "tring-record: %.0f events/s  %.1f MB written  %.1f MB/s  %" PRIu64 " events lost",
		(events - r->status_events) / dt, bytes / 1e6,
		(bytes - r->status_bytes) / dt / 1e6, lost);
	status_dirty = true;
	r->t_status = now;
	r->status_events = events;
	r->status_bytes = bytes;
}

static bool all_failed(struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; i < r->ncpus; i++)
		if (!r->cpus[i].failed)
			return false;
	return true;
}

/* Milliseconds until @t, rounded up so that the wait does not spin. */
static int ms_until(uint64_t now, uint64_t t)
{
	uint64_t ms;

	if (t <= now)
		return 0;
	ms = (t - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static int loop_timeout(struct tr_rec *r, uint64_t deadline, uint64_t now)
{
	int t = -1, s;

	if (deadline)
		t = ms_until(now, deadline);
	if (r->status_line) {
		s = ms_until(now, r->t_status + NSEC_PER_SEC);
		if (t < 0 || s < t)
			t = s;
	}
	return t;
}

static void wait_failed(struct tr_rec *r, int err)
{
	tr_err("waiting for data failed: %s", strerror(-err));
	r->stop = TR_STOP_STREAM;
	if (!r->exit_status)
		r->exit_status = TR_EXIT_STREAM;
}

/* Sleep until data, then save it; until a signal or the duration ends. */
static void record_loop(struct tr_rec *r)
{
	uint64_t deadline = 0, now = r->t_start;
	unsigned int i, n;
	int ret;

	if (r->opt.duration > 0)
		deadline = r->t_start + (uint64_t)(r->opt.duration * NSEC_PER_SEC);
	while (!r->stop) {
		n = live_set(r);
		if (!n) {
			r->stop = all_failed(r) ? TR_STOP_STREAM : TR_STOP_HANGUP;
			break;
		}
		ret = r->ops->wait(r, r->set, n, loop_timeout(r, deadline, now));
		if (ret < 0 && ret != -EINTR) {
			wait_failed(r, ret);
			break;
		}
		for (i = 0; ret > 0 && i < n && !r->stop; i++) {
			/* A ring's worth at most, then let the others in. */
			if (r->set[i]->readable)
				read_cpu(r, r->set[i], r->set[i]->info.subbuf_count);
		}
		now = r->ops->now_ns();
		if (r->status_line && now >= r->t_status + NSEC_PER_SEC)
			show_status(r, now);
		if (r->stop)
			break;
		if (tr_stop_requests)
			r->stop = TR_STOP_SIGNAL;
		else if (deadline && now >= deadline)
			r->stop = TR_STOP_DURATION;
	}
}

/* ---- stopping ---- */

static void flush_all(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->failed)
			continue;
		ret = r->ops->flush(c, &c->flush_pos);
		if (ret)
			stream_failed(r, c, "TRING_IOC_FLUSH", ret);
	}
}

/*
 * One pass over the CPUs not yet drained: save what is complete, then
 * see whether the read position reached the flush position (in
 * overwrite mode it may jump past it). Returns the CPUs still waiting,
 * gathered in r->set, or -1 when the output failed. Those that hung up
 * come last, after the @nwait that poll() can wait for.
 */
static int drain_pass(struct tr_rec *r, unsigned int *nwait)
{
	unsigned int i, n = 0, k;
	struct tr_cpu *t;
	int ret;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->failed || c->drained)
			continue;
		if (read_cpu(r, c, c->info.subbuf_count))
			return -1;
		if (c->failed)
			continue;
		ret = r->ops->status(c, &c->last);
		if (ret) {
			stream_failed(r, c, "TRING_IOC_STATUS", ret);
			continue;
		}
		if (c->last.read_pos >= c->flush_pos) {
			c->drained = true;
			continue;
		}
		c->readable = false;
		r->set[n++] = c;
	}
	/* Polling a hung-up stream returns at once: only sleep for them. */
	for (i = 0, *nwait = 0; i < n; i++) {
		if (r->set[i]->hup)
			continue;
		k = (*nwait)++;
		t = r->set[k];
		r->set[k] = r->set[i];
		r->set[i] = t;
	}
	return n;
}

static void drain_gave_up(struct tr_rec *r, unsigned int n, const char *why)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct tr_cpu *c = r->set[i];

		tr_warn("cpu%u: %s; %llu bytes before the stop are not saved (read position %llu, flush position %llu)",
			c->cpu, why,
			(unsigned long long)(c->flush_pos - c->last.read_pos),
			(unsigned long long)c->last.read_pos,
			(unsigned long long)c->flush_pos);
	}
}

/*
 * Close every CPU's partly filled sub-buffer and read everything up to
 * the flush position. A writer interrupted by the flush commits its
 * record later, so the last packet may take a moment to be complete:
 * poll for it, for TR_DRAIN_TIMEOUT_NS at most.
 */
static void drain(struct tr_rec *r)
{
	unsigned int nwait;
	uint64_t deadline, now;
	int n, ret, t;

	if (r->stop == TR_STOP_OUTPUT || r->stop == TR_STOP_STREAM) {
		r->drain = TR_DRAIN_SKIPPED;
		return;
	}
	if (r->status_line)
		tr_note(r, "stopping: saving what the buffers hold...");
	flush_all(r);
	deadline = r->ops->now_ns() + TR_DRAIN_TIMEOUT_NS;
	for (;;) {
		n = drain_pass(r, &nwait);
		if (n < 0) {
			r->drain = TR_DRAIN_SKIPPED;
			return;
		}
		if (!n) {
			r->drain = TR_DRAIN_COMPLETE;
			return;
		}
		if (tr_stop_requests >= 2) {
			r->drain = TR_DRAIN_ABORTED;
			drain_gave_up(r, n, "drain aborted by a second signal");
			return;
		}
		now = r->ops->now_ns();
		if (now >= deadline) {
			r->drain = TR_DRAIN_TIMEOUT;
			drain_gave_up(r, n, "the last packet stayed incomplete for 2 s");
			return;
		}
		t = ms_until(now, deadline);
		ret = r->ops->wait(r, r->set, nwait,
				   t < DRAIN_POLL_MS ? t : DRAIN_POLL_MS);
		if (ret < 0 && ret != -EINTR) {
			/* Keep the reason for stopping; the exit status tells. */
			tr_err("waiting for data failed: %s", strerror(-ret));
			if (!r->exit_status)
				r->exit_status = TR_EXIT_STREAM;
			r->drain = TR_DRAIN_SKIPPED;
			return;
		}
	}
}

/* ---- summary ---- */

static const char *const stop_names[] = {
	[TR_STOP_NONE]		= "none",
	[TR_STOP_SIGNAL]	= "signal",
	[TR_STOP_DURATION]	= "duration",
	[TR_STOP_OUTPUT]	= "output_error",
	[TR_STOP_STREAM]	= "stream_error",
	[TR_STOP_HANGUP]	= "hangup",
};

static const char *const drain_names[] = {
	[TR_DRAIN_SKIPPED]	= "skipped",
	[TR_DRAIN_COMPLETE]	= "complete",
	[TR_DRAIN_TIMEOUT]	= "timeout",
	[TR_DRAIN_ABORTED]	= "aborted",
};

/* One CPU's, or the total's, numbers. */
struct tr_sum {
	uint64_t subbufs, bytes, events, skipped;
	uint64_t discarded, overwritten, too_big, lost, lost_at_start;
	uint64_t unsaved_subbufs, unsaved_events;
	uint64_t left_subbufs, left_bytes;	/* still in the ring */
	uint64_t kernel_events_written;
};

static void sum_cpu(const struct tr_cpu *c, struct tr_sum *s)
{
	const struct tring_status *st = &c->last;

	memset(s, 0, sizeof(*s));
	s->subbufs = c->subbufs;
	s->bytes = c->bytes;
	s->events = c->events;
	s->skipped = c->skipped;
	s->discarded = st->events_discarded;
	s->overwritten = st->events_overwritten;
	s->too_big = st->events_too_big;
	s->lost = lost_events(st);
	s->lost_at_start = lost_events(&c->start);
	s->unsaved_subbufs = c->unsaved_subbufs;
	s->unsaved_events = c->unsaved_events;
	s->left_subbufs = st->subbufs_ready;
	s->left_bytes = st->write_pos > st->read_pos ?
			st->write_pos - st->read_pos : 0;
	s->kernel_events_written = st->events_written;
}

static void sum_add(struct tr_sum *t, const struct tr_sum *s)
{
	const uint64_t *src = (const uint64_t *)s;
	uint64_t *dst = (uint64_t *)t;
	size_t i;

	for (i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += src[i];
}

static void write_sum(FILE *f, const char *who, const struct tr_sum *s)
{
	fprintf(f, "%s.subbufs=%" PRIu64 "\n", who, s->subbufs);
	fprintf(f, "%s.bytes=%" PRIu64 "\n", who, s->bytes);
	fprintf(f, "%s.events=%" PRIu64 "\n", who, s->events);
	fprintf(f, "%s.discarded=%" PRIu64 "\n", who, s->discarded);
	fprintf(f, "%s.overwritten=%" PRIu64 "\n", who, s->overwritten);
	fprintf(f, "%s.too_big=%" PRIu64 "\n", who, s->too_big);
	fprintf(f, "%s.lost=%" PRIu64 "\n", who, s->lost);
	fprintf(f, "%s.lost_at_start=%" PRIu64 "\n", who, s->lost_at_start);
	fprintf(f, "%s.skipped_subbufs=%" PRIu64 "\n", who, s->skipped);
	fprintf(f, "%s.unsaved_subbufs=%" PRIu64 "\n", who, s->unsaved_subbufs);
	fprintf(f, "%s.unsaved_events=%" PRIu64 "\n", who, s->unsaved_events);
	fprintf(f, "%s.left_subbufs=%" PRIu64 "\n", who, s->left_subbufs);
	fprintf(f, "%s.left_bytes=%" PRIu64 "\n", who, s->left_bytes);
	fprintf(f, "%s.kernel_events_written=%" PRIu64 "\n", who,
		s->kernel_events_written);
}

static void write_summary_head(struct tr_rec *r, FILE *f)
{
	const struct tring_info *i = &r->cpus[0].info;
	struct rusage ru;
	unsigned int k;

	fprintf(f, "version=1\n");
	fprintf(f, "buffer=%s\n", r->opt.instance ? r->opt.instance : "");
	fprintf(f, "subbuf_size=%llu\n", (unsigned long long)i->subbuf_size);
	fprintf(f, "subbuf_count=%u\n", i->subbuf_count);
	fprintf(f, "overwrite=%u\n", !!(i->flags & TRING_INFO_OVERWRITE));
	fprintf(f, "clock=%s\n", i->clock == TRING_CLOCK_MONO ? "mono" :
		i->clock == TRING_CLOCK_LOCAL ? "local" : "unknown");
	fprintf(f, "watermark=%u\n", i->watermark);
	fprintf(f, "cpus=");
	for (k = 0; k < r->ncpus; k++)
		fprintf(f, "%s%u", k ? "," : "", r->cpus[k].cpu);
	fprintf(f, "\nstop=%s\n", stop_names[r->stop]);
	fprintf(f, "drain=%s\n", drain_names[r->drain]);
	fprintf(f, "duration_ns=%" PRIu64 "\n", r->t_stop - r->t_start);
	/* What recording cost: CPU time and system calls (for benchmarks). */
	if (!getrusage(RUSAGE_SELF, &ru)) {
		fprintf(f, "user_ns=%" PRIu64 "\n",
			(uint64_t)(ru.ru_utime.tv_sec * NSEC_PER_SEC +
				   ru.ru_utime.tv_usec * 1000));
		fprintf(f, "sys_ns=%" PRIu64 "\n",
			(uint64_t)(ru.ru_stime.tv_sec * NSEC_PER_SEC +
				   ru.ru_stime.tv_usec * 1000));
	}
	if (r->ops->syscalls)
		fprintf(f, "syscalls=%" PRIu64 "\n", r->ops->syscalls());
}

static int write_summary_file(struct tr_rec *r)
{
	char path[4096], who[32];
	struct tr_sum s, t;
	unsigned int i;
	FILE *f;

	if (join(path, sizeof(path), r->out_dir, ".tring-record.summary"))
		return -ENAMETOOLONG;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	write_summary_head(r, f);
	memset(&t, 0, sizeof(t));
	for (i = 0; i < r->ncpus; i++) {
		const struct tr_cpu *c = &r->cpus[i];

		sum_cpu(c, &s);
		sum_add(&t, &s);
		snprintf(who, sizeof(who), "cpu%u", c->cpu);
		write_sum(f, who, &s);
		fprintf(f, "%s.flush_pos=%llu\n", who,
			(unsigned long long)c->flush_pos);
		fprintf(f, "%s.read_pos=%llu\n", who,
			(unsigned long long)c->last.read_pos);
		fprintf(f, "%s.drained=%u\n", who, c->drained);
		fprintf(f, "%s.failed=%u\n", who, c->failed);
	}
	write_sum(f, "total", &t);
	fprintf(f, "exit_status=%d\n", r->exit_status);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

static void print_row(const char *who, const struct tr_sum *s)
{
	fprintf(stderr, "%6s %10" PRIu64 " %14" PRIu64 " %12" PRIu64 " %10" PRIu64 " %11" PRIu64 " %8" PRIu64 "\n",
		who, s->subbufs, s->bytes, s->events, s->discarded,
		s->overwritten, s->too_big);
}

static void print_losses(struct tr_rec *r)
{
	struct tr_sum s;
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		sum_cpu(&r->cpus[i], &s);
		if (s.unsaved_subbufs)
			fprintf(stderr, "cpu%u: lost %" PRIu64 " sub-buffers (%" PRIu64 " events) taken but not saved\n",
				r->cpus[i].cpu, s.unsaved_subbufs,
				s.unsaved_events);
		if (r->stop == TR_STOP_OUTPUT && s.left_bytes)
			fprintf(stderr, "cpu%u: lost %" PRIu64 " bytes (%" PRIu64 " complete sub-buffers) left unread in the kernel buffer\n",
				r->cpus[i].cpu, s.left_bytes, s.left_subbufs);
		if (s.skipped)
			fprintf(stderr, "cpu%u: %" PRIu64 " sub-buffers overwritten before they could be read\n",
				r->cpus[i].cpu, s.skipped);
	}
}

static void print_summary(struct tr_rec *r)
{
	double secs = (double)(r->t_stop - r->t_start) / NSEC_PER_SEC;
	struct tr_sum s, t;
	char who[32];
	unsigned int i;

	clear_status();
	fprintf(stderr, "tring-record: stopped (%s) after %.2f s; drain %s\n",
		stop_names[r->stop], secs, drain_names[r->drain]);
	fprintf(stderr, "%6s %10s %14s %12s %10s %11s %8s\n", "cpu",
		"subbufs", "bytes", "events", "discarded", "overwritten",
		"too_big");
	memset(&t, 0, sizeof(t));
	for (i = 0; i < r->ncpus; i++) {
		sum_cpu(&r->cpus[i], &s);
		sum_add(&t, &s);
		snprintf(who, sizeof(who), "%u", r->cpus[i].cpu);
		print_row(who, &s);
	}
	print_row("total", &t);
	print_losses(r);
	fprintf(stderr, "tring-record: saved %" PRIu64 " events, %.1f MB in %s\n",
		t.events, t.bytes / 1e6, r->out_dir);
}

/* ---- main ---- */

static void close_outputs(struct tr_rec *r);

static void block_signals(struct tr_rec *r)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the signal must end ppoll() at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * Keep them blocked except while sleeping in ppoll(), so that one
	 * arriving between the check of tr_stop_requests and the sleep is
	 * not missed until the next timeout.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &r->old_mask);
	r->wait_mask = r->old_mask;
	sigdelset(&r->wait_mask, SIGINT);
	sigdelset(&r->wait_mask, SIGTERM);
	r->signals_blocked = true;
}

static void restore_signals(struct tr_rec *r)
{
	if (!r->signals_blocked)
		return;
	/* One that came in since the last sleep only bumps the counter. */
	sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	r->signals_blocked = false;
}

static int setup(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	ret = check_environment(r);
	if (!ret)
		ret = prepare_output(r);
	if (!ret)
		ret = apply_knobs(r);
	if (!ret)
		ret = select_cpus(r);
	for (i = 0; !ret && i < r->ncpus; i++)
		ret = open_cpu(r, &r->cpus[i]);
	if (!ret)
		ret = create_outputs(r);
	/* Without metadata the streams are still worth having. */
	if (!ret)
		copy_metadata(r, false);
	return ret;
}

/* Setup failed: take back the files and the directory this run made. */
static void remove_output(struct tr_rec *r)
{
	struct dirent *de;
	char path[4096];
	DIR *d;

	if (!r->out_prepared)
		return;
	close_outputs(r);
	d = opendir(r->out_dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (is_our_file(de->d_name) &&
		    !join(path, sizeof(path), r->out_dir, de->d_name))
			unlink(path);
	}
	closedir(d);
	if (r->out_created)
		rmdir(r->out_dir);
}

/* Close the output files; a late write error (NFS, quota) shows here. */
static void close_outputs(struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->out_fd < 0)
			continue;
		if (close(c->out_fd) && !r->exit_status) {
			tr_err("closing %s/stream_%u: %s", r->out_dir, c->cpu,
			       strerror(errno));
			r->exit_status = TR_EXIT_OUTPUT;
		}
		c->out_fd = -1;
	}
}

static void teardown(struct tr_rec *r)
{
	unsigned int i;

	restore_signals(r);
	close_outputs(r);
	for (i = 0; r->cpus && i < r->ncpus; i++)
		r->ops->close(&r->cpus[i]);
	free(r->cpus);
	free(r->set);
	free(r->pfd);
}

static void finish(struct tr_rec *r)
{
	int ret;

	refresh_status(r);
	if (r->stop == TR_STOP_STREAM && !r->exit_status)
		r->exit_status = TR_EXIT_STREAM;
	if (r->drain == TR_DRAIN_ABORTED && !r->exit_status)
		r->exit_status = TR_EXIT_ABORTED;
	close_outputs(r);
	copy_metadata(r, true);
	if (!r->opt.quiet)
		print_summary(r);
	ret = write_summary_file(r);
	if (ret)
		tr_warn("cannot write %s/.tring-record.summary: %s", r->out_dir,
			strerror(-ret));
}

static void record(struct tr_rec *r)
{
	block_signals(r);
	r->t_start = r->ops->now_ns();
	r->t_status = r->t_start;
	record_loop(r);
	drain(r);
	r->t_stop = r->ops->now_ns();
	finish(r);
}

/**
 * tr_main - tring-record
 * @argc: argument count.
 * @argv: arguments.
 * @ops: the stream backend.
 *
 * Return: the exit status.
 */
int tr_main(int argc, char **argv, const struct tr_ops *ops)
{
	static struct tr_rec rec;
	struct tr_rec *r = &rec;
	int ret;

	memset(r, 0, sizeof(*r));
	r->ops = ops;
	tr_stop_requests = 0;
	status_dirty = false;
	ret = tr_parse_options(&r->opt, argc, argv);
	if (ret)
		return ret < 0 ? TR_EXIT_OK : ret;
	r->status_line = !r->opt.quiet && ops->isatty(STDERR_FILENO);
	ret = setup(r);
	if (!ret) {
		record(r);
		ret = r->exit_status;
	} else {
		remove_output(r);
	}
	teardown(r);
	return ret;
}
