// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of tring-record's logic, run against a fake kernel.
 *
 * The record logic (record.c, options.c) is linked here with a fake
 * backend instead of the ioctls: each CPU's "ring" is a memory buffer
 * that a scripted writer fills with synthetic CTF packets and that the
 * fake hands out the way the kernel does (batches in discard mode, one
 * sub-buffer through a spare in overwrite mode). A fake debugfs tree of
 * regular files in a temporary directory gives the paths, knobs and
 * metadata. Time is fake too, so the 2 s drain timeout takes no time.
 *
 * The fake records what it handed out, what was asked, and every
 * writev(); the tests compare the output byte for byte with what was
 * handed out and check the summary numbers exactly.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_RINGS	8
#define MAX_SLOTS	64
#define WLOG_MAX	256

/* One CPU's fake ring, modelled on kernel/trace/tring_core.c. */
struct fake_ring {
	unsigned int cpu;
	bool open;
	bool busy;			/* another reader has it: EBUSY */
	bool dead;			/* its buffer is gone: POLLHUP */
	uint64_t size;
	unsigned int count;
	bool overwrite;
	unsigned int watermark;
	unsigned char *mem;		/* count + 1 (spare) sub-buffers */
	unsigned int phys[MAX_SLOTS];	/* slot -> physical sub-buffer */
	bool taken[MAX_SLOTS];		/* the reader swapped it out */
	unsigned int spare;		/* the reader's physical sub-buffer */
	uint64_t wseq;			/* next packet to open */
	uint64_t rseq;			/* consumed, in sub-buffers */
	unsigned int held;
	unsigned int open_events;	/* in the open packet */
	bool open_dropped;		/* the open packet found the ring full */
	int commit_delay;		/* waits until a flushed packet completes; <0 never */
	bool flush_pending;
	uint64_t flush_pos;
	uint64_t events_written, discarded, overwritten, too_big;

	unsigned char *handed;		/* copy of each packet handed out */
	size_t handed_len, handed_cap;
	unsigned int gets, max_asked, batch_max_seen;
	int get_err;			/* GET fails with this errno */
	int eagain_once;		/* GET says EAGAIN although readable */
	unsigned int wm_set;		/* last SET_WATERMARK */
	char path[512];			/* path it was opened with */
};

struct wlog {
	int cnt;
	size_t len;
	bool from_map;
};

static struct fake {
	struct fake_ring rings[MAX_RINGS];
	unsigned int nrings;
	char root[256], dbg[300], tring[320], out[300];
	uid_t euid;
	bool is_debugfs;
	bool tty;
	uint64_t now;
	int knob_err;
	void (*tick)(unsigned int n);
	unsigned int waits;
	bool no_log;
	/* writev */
	struct wlog wlog[WLOG_MAX];
	unsigned int writevs;
	unsigned int not_from_map;
	size_t short_max;
	unsigned int eintr_every;
	bool budget_on;
	size_t budget;
	char events[8192];		/* "knob x=y", "open N", "wm N V" */
	char err[1 << 16];		/* captured stderr */
	size_t mem_a, mem_b;
} fk;

static unsigned int passed, failed;
static const char *cur_test;
static bool test_failed;

#define CHECK(cond) check((cond), #cond, __LINE__)

static void check(bool ok, const char *what, int line)
{
	if (ok)
		return;
	size_t len = strlen(fk.err);

	/* The end of what the last run said, for context. */
	if (!test_failed)
		fprintf(stderr, "--- %s: captured stderr (end):\n%s---\n",
			cur_test, fk.err + (len > 2000 ? len - 2000 : 0));
	fprintf(stderr, "FAIL %s: line %d: %s\n", cur_test, line, what);
	test_failed = true;
}

static void logev(const char *fmt, ...)
{
	size_t n = strlen(fk.events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fk.events + n, sizeof(fk.events) - n, fmt, ap);
	va_end(ap);
}

/* ---- the fake writer ---- */

static struct fake_ring *ring(unsigned int cpu)
{
	return &fk.rings[cpu];
}

static uint64_t losses(struct fake_ring *f)
{
	return f->discarded + f->overwritten + f->too_big;
}

/* Payload word of event @i of packet @seq: the test can recognise it. */
static uint32_t payload(unsigned int cpu, uint64_t seq, unsigned int i)
{
	return (cpu << 24) ^ ((uint32_t)seq << 8) ^ i;
}

static struct tring_packet_header *phys_hdr(struct fake_ring *f,
					    unsigned int phys)
{
	return (void *)(f->mem + phys * f->size);
}

/* Write packet @seq with @events records into its slot and deliver it. */
static void close_packet(struct fake_ring *f)
{
	uint64_t seq = f->wseq;
	unsigned int slot = seq % f->count, i;
	unsigned char *p = f->mem + f->phys[slot] * f->size;
	struct tring_packet_header *h = (void *)p;
	uint32_t w[2];

	memset(p, 0, f->size);
	h->magic = TRING_PACKET_MAGIC;
	h->timestamp_begin = seq * 1000;
	h->timestamp_end = seq * 1000 + 999;
	h->content_size = (sizeof(*h) + f->open_events * 8) * 8;
	h->packet_size = f->size * 8;
	h->packet_seq_num = seq;
	h->events_discarded = losses(f);
	h->cpu_id = f->cpu;
	h->events_count = f->open_events;
	for (i = 0; i < f->open_events; i++) {
		w[0] = TRING_ID_FIRST_EVENT | (i << TRING_ID_BITS);
		w[1] = payload(f->cpu, seq, i);
		memcpy(p + sizeof(*h) + i * 8, w, 8);
	}
	f->taken[slot] = false;
	f->wseq++;
	f->open_events = 0;
	f->flush_pending = false;
}

/*
 * Open packet wseq: in discard mode it needs a free slot, in overwrite
 * mode it claims the slot, losing the unread packet there.
 */
static bool open_packet(struct fake_ring *f)
{
	unsigned int slot = f->wseq % f->count;

	if (!f->overwrite)
		return f->wseq - f->rseq < f->count;
	if (f->wseq >= f->count && !f->taken[slot])
		f->overwritten += phys_hdr(f, f->phys[slot])->events_count;
	f->taken[slot] = false;
	return true;
}

/* Events into the open packet, without closing it. */
static void partial(unsigned int cpu, unsigned int events)
{
	struct fake_ring *f = ring(cpu);

	if (!f->open_events && !f->open_dropped && events &&
	    !open_packet(f))
		f->open_dropped = true;
	if (f->open_dropped) {
		f->discarded += events;
		return;
	}
	f->open_events += events;
	f->events_written += events;
}

/* @n complete packets of @events records each. */
static void produce(unsigned int cpu, unsigned int n, unsigned int events)
{
	struct fake_ring *f = ring(cpu);

	while (n--) {
		partial(cpu, events);
		if (f->open_dropped) {
			f->open_dropped = false;
			continue;
		}
		close_packet(f);
	}
}

static uint64_t ready(struct fake_ring *f)
{
	uint64_t from = f->rseq + f->held;

	if (f->overwrite && f->wseq - f->rseq > f->count)
		return f->count;
	return f->wseq > from ? f->wseq - from : 0;
}

/* ---- the fake backend ---- */

static uid_t fake_euid(void)
{
	return fk.euid;
}

static bool fake_is_debugfs(const char *path)
{
	(void)path;
	return fk.is_debugfs;
}

static bool fake_isatty(int fd)
{
	(void)fd;
	return fk.tty;
}

static uint64_t fake_now(void)
{
	return fk.now;
}

static int fake_knob_write(const char *path, const char *val)
{
	const char *name = strrchr(path, '/') + 1;
	FILE *f;

	if (fk.knob_err)
		return -fk.knob_err;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* What the kernel would show afterwards. */
	if (!strcmp(name, "trace_clock"))
		fprintf(f, strcmp(val, "mono") ? "mono [local]\n" : "[mono] local\n");
	else
		fprintf(f, "%s\n", val);
	fclose(f);
	logev("knob %s=%s\n", name, val);
	return 0;
}

static int fake_open(struct tr_cpu *c, const char *path)
{
	struct fake_ring *f = ring(c->cpu);

	if (access(path, F_OK))
		return -ENOENT;
	if (f->busy || f->open)
		return -EBUSY;
	f->open = true;
	snprintf(f->path, sizeof(f->path), "%s", path);
	c->priv = f;
	logev("open %u\n", c->cpu);
	return 0;
}

static int fake_info(struct tr_cpu *c, struct tring_info *i)
{
	struct fake_ring *f = c->priv;

	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	i->abi_version = TRING_ABI_VERSION;
	i->cpu = f->cpu;
	i->flags = f->overwrite ? TRING_INFO_OVERWRITE : 0;
	i->subbuf_size = f->size;
	i->subbuf_count = f->count;
	i->header_size = sizeof(struct tring_packet_header);
	i->map_size = (f->count + f->overwrite) * f->size;
	i->clock = TRING_CLOCK_MONO;
	i->watermark = f->watermark;
	return 0;
}

static int fake_map(struct tr_cpu *c)
{
	c->map = ((struct fake_ring *)c->priv)->mem;
	return 0;
}

static void fake_close(struct tr_cpu *c)
{
	struct fake_ring *f = c->priv;

	if (f)
		f->open = false;
	c->priv = NULL;
	c->map = NULL;
}

static void log_handed(struct fake_ring *f, const struct tring_subbuf *sb)
{
	if (fk.no_log)
		return;
	if (f->handed_len + f->size > f->handed_cap) {
		f->handed_cap = (f->handed_cap + f->size) * 2;
		f->handed = realloc(f->handed, f->handed_cap);
	}
	memcpy(f->handed + f->handed_len, f->mem + sb->offset, f->size);
	f->handed_len += f->size;
}

static void fill_sb(struct fake_ring *f, unsigned int phys, uint64_t seq,
		    struct tring_subbuf *sb)
{
	sb->offset = phys * f->size;
	sb->length = phys_hdr(f, phys)->content_size / 8;
	sb->seq = seq;
	log_handed(f, sb);
}

/* As tring_get_overwrite(): resync past overwritten packets, swap in the spare. */
static int get_overwrite(struct fake_ring *f, struct tring_subbuf *sb)
{
	unsigned int slot, tmp;

	if (f->held)
		return -EBUSY;
	if (f->rseq >= f->wseq)
		return -EAGAIN;
	if (f->wseq - f->rseq > f->count)
		f->rseq = f->wseq - f->count;
	slot = f->rseq % f->count;
	tmp = f->phys[slot];
	f->phys[slot] = f->spare;
	f->spare = tmp;
	f->taken[slot] = true;
	f->held = 1;
	fill_sb(f, f->spare, f->rseq, sb);
	return 0;
}

static int fake_get(struct tr_cpu *c, struct tring_subbuf *sb,
		    unsigned int max, unsigned int *count)
{
	struct fake_ring *f = c->priv;
	unsigned int n = 0;
	uint64_t seq;

	f->gets++;
	if (max > f->max_asked)
		f->max_asked = max;
	if (f->get_err)
		return -f->get_err;
	if (f->eagain_once) {
		f->eagain_once = 0;
		return -EAGAIN;
	}
	if (f->overwrite) {
		if (get_overwrite(f, sb))
			return f->held ? -EBUSY : -EAGAIN;
		*count = 1;
		return 0;
	}
	while (n < max && n < 64 && ready(f)) {
		seq = f->rseq + f->held;
		fill_sb(f, seq % f->count, seq, &sb[n]);
		f->held++;
		n++;
	}
	if (!n)
		return -EAGAIN;
	if (n > f->batch_max_seen)
		f->batch_max_seen = n;
	*count = n;
	return 0;
}

static int fake_put(struct tr_cpu *c, uint64_t seq, unsigned int count)
{
	struct fake_ring *f = c->priv;

	if (!count || count > f->held || seq != f->rseq)
		return -EINVAL;
	f->held -= count;
	f->rseq += count;
	return 0;
}

static int fake_status(struct tr_cpu *c, struct tring_status *st)
{
	struct fake_ring *f = c->priv;

	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->write_pos = f->wseq * f->size;
	if (f->open_events)
		st->write_pos += sizeof(struct tring_packet_header) +
				 f->open_events * 8;
	st->read_pos = f->rseq * f->size;
	st->subbufs_delivered = f->wseq;
	st->subbufs_ready = ready(f);
	st->events_written = f->events_written;
	st->events_discarded = f->discarded;
	st->events_overwritten = f->overwritten;
	st->events_too_big = f->too_big;
	return 0;
}

/* Close the open packet, maybe only after a writer "commits" later. */
static int fake_flush(struct tr_cpu *c, uint64_t *pos)
{
	struct fake_ring *f = c->priv;

	f->open_dropped = false;
	if (!f->open_events) {
		*pos = f->wseq * f->size;
		return 0;
	}
	*pos = (f->wseq + 1) * f->size;
	f->flush_pos = *pos;
	if (!f->commit_delay)
		close_packet(f);
	else
		f->flush_pending = true;
	return 0;
}

static int fake_set_watermark(struct tr_cpu *c, uint32_t wm)
{
	struct fake_ring *f = c->priv;

	f->wm_set = wm;
	/* Clamped as tring_cpu_set_watermark() does. */
	f->watermark = wm < 1 ? 1 : wm > f->count - 1 ? f->count - 1 : wm;
	logev("wm %u %u\n", c->cpu, wm);
	return 0;
}

static bool fake_readable(struct fake_ring *f)
{
	uint64_t need = f->watermark;

	if (f->rseq * f->size < f->flush_pos)
		need = 1;
	return ready(f) >= need;
}

/* Let pending signals in, as ppoll() with r->wait_mask would. */
static void deliver_signals(struct tr_rec *r)
{
	sigset_t old;

	sigprocmask(SIG_SETMASK, &r->wait_mask, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int fake_wait(struct tr_rec *r, struct tr_cpu **set, unsigned int n,
		     int timeout_ms)
{
	sig_atomic_t stops = tr_stop_requests;
	unsigned int i, k;
	int count = 0;

	fk.waits++;
	/* A run that does not stop is a failure, not a hang. */
	if (fk.waits > 100000) {
		if (fk.waits == 100001)
			CHECK(!"runaway: tring-record did not stop");
		tr_request_stop();
		tr_request_stop();
	}
	for (k = 0; k < fk.nrings; k++) {
		struct fake_ring *f = ring(k);

		if (f->flush_pending && f->commit_delay > 0 &&
		    !--f->commit_delay)
			close_packet(f);
	}
	if (fk.tick)
		fk.tick(fk.waits);
	deliver_signals(r);
	if (tr_stop_requests != stops) {
		fk.now += 1000000;
		return -EINTR;
	}
	for (i = 0; i < n; i++) {
		struct fake_ring *f = set[i]->priv;

		/* What a POLLHUP on a removed buffer would look like. */
		if (f->dead)
			set[i]->hup = true;
		set[i]->readable = f->dead || fake_readable(f);
		count += set[i]->readable;
	}
	fk.now += count ? 1000000 :
		  timeout_ms < 0 ? 1000000000ULL : timeout_ms * 1000000ULL;
	return count;
}

static bool in_a_ring(const void *p, size_t len)
{
	const unsigned char *b = p;
	unsigned int k;

	for (k = 0; k < fk.nrings; k++) {
		struct fake_ring *f = ring(k);

		if (b >= f->mem && b + len <= f->mem + (f->count + 1) * f->size)
			return true;
	}
	return false;
}

static ssize_t fake_writev(int fd, const struct iovec *iov, int cnt)
{
	struct iovec v[TR_BATCH];
	size_t total = 0, limit, left;
	struct wlog *w = NULL;
	bool from_map = true;
	ssize_t ret;
	int i, k;

	for (i = 0; i < cnt; i++) {
		total += iov[i].iov_len;
		from_map &= in_a_ring(iov[i].iov_base, iov[i].iov_len);
	}
	if (fk.writevs < WLOG_MAX)
		w = &fk.wlog[fk.writevs];
	fk.writevs++;
	if (w)
		*w = (struct wlog){ .cnt = cnt, .len = total, .from_map = from_map };
	if (!from_map)
		fk.not_from_map++;
	if (fk.eintr_every && !(fk.writevs % fk.eintr_every))
		return -EINTR;
	limit = total;
	if (fk.short_max && limit > fk.short_max)
		limit = fk.short_max;
	if (fk.budget_on) {
		if (!fk.budget)
			return -ENOSPC;
		if (limit > fk.budget)
			limit = fk.budget;
	}
	/* Cut the vector down to @limit bytes. */
	for (k = 0, left = limit; k < cnt && k < TR_BATCH && left; k++) {
		v[k] = iov[k];
		if (v[k].iov_len > left)
			v[k].iov_len = left;
		left -= v[k].iov_len;
	}
	ret = writev(fd, v, k);
	if (ret < 0)
		return -errno;
	if (fk.budget_on)
		fk.budget -= ret;
	return ret;
}

static const struct tr_ops fake_ops = {
	.euid		= fake_euid,
	.is_debugfs	= fake_is_debugfs,
	.isatty		= fake_isatty,
	.now_ns		= fake_now,
	.knob_write	= fake_knob_write,
	.open		= fake_open,
	.info		= fake_info,
	.map		= fake_map,
	.close		= fake_close,
	.get		= fake_get,
	.put		= fake_put,
	.status		= fake_status,
	.flush		= fake_flush,
	.set_watermark	= fake_set_watermark,
	.wait		= fake_wait,
	.writev		= fake_writev,
};

/* ---- fixtures ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *fmt, ...)
{
	char path[1024], cmd[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd))
		exit(2);
}

static void fake_tree(const char *dir, unsigned int ncpus, bool knobs)
{
	char path[1024];
	unsigned int i;

	for (i = 0; i < ncpus; i++) {
		mkdirs("%s/per_cpu/cpu%u", dir, i);
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stream", dir, i);
		write_file(path, "");
	}
	if (!knobs)
		return;
	snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
	write_file(path, "1024\n");
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", dir);
	write_file(path, "64\n");
	snprintf(path, sizeof(path), "%s/overwrite", dir);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/trace_clock", dir);
	write_file(path, "[mono] local\n");
}

static void fake_free(void)
{
	unsigned int k;
	char cmd[300];

	for (k = 0; k < MAX_RINGS; k++) {
		free(fk.rings[k].mem);
		free(fk.rings[k].handed);
	}
	if (fk.root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk.root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", fk.root);
	}
	memset(&fk, 0, sizeof(fk));
}

/* A fresh fake kernel: @ncpus rings of @count sub-buffers of @size. */
static void fake_setup(unsigned int ncpus, uint64_t size, unsigned int count,
		       bool overwrite)
{
	unsigned int k, i;

	fake_free();
	strcpy(fk.root, "/tmp/tring-record-test.XXXXXX");
	if (!mkdtemp(fk.root)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(fk.dbg, sizeof(fk.dbg), "%s/dbg", fk.root);
	snprintf(fk.tring, sizeof(fk.tring), "%s/tring", fk.dbg);
	snprintf(fk.out, sizeof(fk.out), "%s/out", fk.root);
	fake_tree(fk.tring, ncpus, true);
	mkdirs("%s/instances", fk.tring);
	fk.nrings = ncpus;
	fk.now = 1000000000ULL;
	fk.is_debugfs = true;
	for (k = 0; k < ncpus; k++) {
		struct fake_ring *f = ring(k);

		f->cpu = k;
		f->size = size;
		f->count = count;
		f->overwrite = overwrite;
		f->watermark = count / 2 ? count / 2 : 1;
		f->mem = calloc(count + 1, size);
		for (i = 0; i < count; i++) {
			f->phys[i] = i;
			f->taken[i] = true;
		}
		f->spare = count;
	}
}

/* Run tring-record with @args (space separated), stderr captured. */
static int run(const char *args)
{
	char buf[2048], *argv[64], *tok, path[400];
	int argc = 0, saved, fd, ret;
	ssize_t n;

	argv[argc++] = "tring-record";
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;

	/* Every run's script starts from its first poll. */
	fk.waits = 0;
	snprintf(path, sizeof(path), "%s/stderr.txt", fk.root);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	ret = tr_main(argc, argv, &fake_ops);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	fd = open(path, O_RDONLY);
	n = read(fd, fk.err, sizeof(fk.err) - 1);
	fk.err[n > 0 ? n : 0] = '\0';
	close(fd);
	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "$ tring-record %s\n%s[exit %d]\n", args,
			fk.err, ret);
	return ret;
}

/* Common arguments: the fake debugfs and the output directory. */
static int record(const char *extra)
{
	char args[1024];

	snprintf(args, sizeof(args), "--debugfs %s -o %s %s", fk.dbg, fk.out,
		 extra);
	return run(args);
}

/* A value from out/.tring-record.summary; ~0 when missing. */
static uint64_t sum(const char *key)
{
	char path[400], line[256];
	size_t len = strlen(key);
	uint64_t v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == '=')
			v = strtoull(line + len + 1, NULL, 0);
	fclose(f);
	return v;
}

static bool sum_is(const char *key, const char *val)
{
	char path[400], line[256];
	size_t len = strlen(key);
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == '=')
			ok = !strncmp(line + len + 1, val, strlen(val)) &&
			     line[len + 1 + strlen(val)] == '\n';
	fclose(f);
	return ok;
}

/* Size of a file in the output, -1 if missing. */
static long long out_size(const char *name)
{
	char path[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fk.out, name);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Is out/stream_<cpu> byte for byte what the fake handed out? */
static bool stream_matches(unsigned int cpu)
{
	struct fake_ring *f = ring(cpu);
	char path[400];
	unsigned char *buf;
	bool ok;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stream_%u", fk.out, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	buf = malloc(f->handed_len + 1);
	n = read(fd, buf, f->handed_len + 1);
	close(fd);
	ok = n == (ssize_t)f->handed_len &&
	     (!n || !memcmp(buf, f->handed, f->handed_len));
	free(buf);
	return ok;
}

/*
 * Walk out/stream_<cpu> independently of the fake's log: whole packets,
 * good headers, the expected sequence numbers and payloads.
 */
static bool stream_valid(unsigned int cpu, uint64_t first_seq,
			 uint64_t packets, uint64_t *events)
{
	struct fake_ring *f = ring(cpu);
	struct tring_packet_header h;
	unsigned char *buf = malloc(f->size);
	uint64_t seq = first_seq, k;
	char path[400];
	bool ok = true;
	uint32_t w[2];
	unsigned int i;
	FILE *fp;

	*events = 0;
	snprintf(path, sizeof(path), "%s/stream_%u", fk.out, cpu);
	fp = fopen(path, "r");
	for (k = 0; ok && fp && fread(buf, f->size, 1, fp) == 1; k++, seq++) {
		memcpy(&h, buf, sizeof(h));
		ok = h.magic == TRING_PACKET_MAGIC && h.cpu_id == cpu &&
		     h.packet_size == f->size * 8 &&
		     (first_seq == ~0ULL || h.packet_seq_num == seq);
		for (i = 0; ok && i < h.events_count; i++) {
			memcpy(w, buf + sizeof(h) + i * 8, 8);
			ok = w[1] == payload(cpu, h.packet_seq_num, i);
		}
		*events += h.events_count;
	}
	ok = ok && fp && k == packets && !ftell(fp) == !packets &&
	     ftell(fp) == (long)(packets * f->size);
	if (fp)
		fclose(fp);
	free(buf);
	return ok;
}

/*
 * What a CTF reader sees in the output: only stream_N and metadata may
 * be visible (babeltrace2 takes every other file for a stream).
 */
static bool trace_dir_clean(void)
{
	struct dirent *de;
	bool ok = true;
	DIR *d;

	d = opendir(fk.out);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (strncmp(de->d_name, "stream_", 7) ||
		    strspn(de->d_name + 7, "0123456789") !=
		    strlen(de->d_name + 7) || !de->d_name[7])
			ok = false;
	}
	closedir(d);
	return ok;
}

static bool err_has(const char *s)
{
	return strstr(fk.err, s) != NULL;
}

/* ---- scenarios ---- */

static void tick_basic(unsigned int n)
{
	if (n <= 5) {
		produce(0, 3, 10);
		produce(1, 1, 10);
	} else if (n == 6) {
		partial(0, 5);
		partial(1, 7);
	} else if (n == 7) {
		raise(SIGINT);
	}
}

static void test_basic_discard(void)
{
	uint64_t ev;

	fake_setup(3, 4096, 8, false);
	fk.tick = tick_basic;
	CHECK(record("") == 0);
	CHECK(sum_is("stop", "signal"));
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	CHECK(stream_matches(1));
	CHECK(stream_valid(0, 0, 16, &ev) && ev == 155);
	CHECK(stream_valid(1, 0, 6, &ev) && ev == 57);
	CHECK(out_size("stream_2") == 0);
	CHECK(sum("cpu0.subbufs") == 16);
	CHECK(sum("cpu0.bytes") == 16 * 4096);
	CHECK(sum("cpu0.events") == 155);
	CHECK(sum("cpu1.subbufs") == 6);
	CHECK(sum("cpu1.events") == 57);
	CHECK(sum("cpu2.subbufs") == 0);
	CHECK(sum("total.subbufs") == 22);
	CHECK(sum("total.bytes") == 22 * 4096);
	CHECK(sum("total.events") == 212);
	CHECK(sum("total.lost") == 0);
	CHECK(sum("total.kernel_events_written") == 212);
	CHECK(sum("cpu0.drained") == 1 && sum("cpu2.drained") == 1);
	CHECK(sum("cpu0.flush_pos") == 16 * 4096);
	CHECK(sum("cpu0.read_pos") == 16 * 4096);
	CHECK(sum("exit_status") == 0);
	CHECK(sum_is("cpus", "0,1,2"));
	CHECK(sum_is("overwrite", "0"));
	CHECK(sum("subbuf_size") == 4096);
	/* Batches: the whole ring asked for at once, not one by one. */
	CHECK(ring(0)->max_asked == TR_BATCH);
	CHECK(ring(0)->batch_max_seen >= 4);
	CHECK(fk.not_from_map == 0);
	/* The summary on stderr. */
	CHECK(err_has("total"));
	CHECK(err_has("saved 212 events"));
	CHECK(!ring(0)->open && !ring(1)->open);
	CHECK(trace_dir_clean());
}

static void tick_coalesce(unsigned int n)
{
	if (n == 1)
		produce(0, 6, 3);
	else if (n == 2)
		produce(0, 4, 3);	/* seq 6..9: slots 6, 7, 0, 1 */
	else if (n == 3)
		tr_request_stop();
}

static void test_coalesce(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_coalesce;
	CHECK(record("") == 0);
	CHECK(fk.writevs == 2);
	CHECK(fk.wlog[0].cnt == 1 && fk.wlog[0].len == 6 * 4096);
	CHECK(fk.wlog[1].cnt == 2 && fk.wlog[1].len == 4 * 4096);
	CHECK(fk.wlog[0].from_map && fk.wlog[1].from_map);
	CHECK(stream_matches(0));
	CHECK(stream_valid(0, 0, 10, &ev) && ev == 30);
	CHECK(sum("cpu0.events") == 30);
}

static void tick_delayed(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 4);
		partial(0, 9);
		partial(1, 1);
	} else if (n == 2) {
		ring(0)->commit_delay = 3;
		raise(SIGTERM);
	}
}

/* The flushed packet completes a few polls later: still saved. */
static void test_drain_delayed_commit(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_delayed;
	CHECK(record("") == 0);
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	CHECK(stream_valid(0, 0, 3, &ev) && ev == 17);
	CHECK(stream_valid(1, 0, 1, &ev) && ev == 1);
	CHECK(sum("cpu0.events") == 17 && sum("cpu1.events") == 1);
	CHECK(sum("cpu0.drained") == 1);
}

static void tick_stuck(unsigned int n)
{
	if (n == 1) {
		produce(0, 1, 4);
		partial(0, 2);
		ring(0)->commit_delay = -1;
		tr_request_stop();
	}
}

/* A packet that never completes: give up after 2 s, keep the rest. */
static void test_drain_timeout(void)
{
	uint64_t ev, t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stuck;
	t0 = fk.now;
	CHECK(record("") == 0);
	CHECK(fk.now - t0 >= TR_DRAIN_TIMEOUT_NS);
	CHECK(fk.now - t0 < TR_DRAIN_TIMEOUT_NS + 500000000ULL);
	CHECK(sum_is("drain", "timeout"));
	CHECK(sum("cpu0.drained") == 0);
	CHECK(stream_valid(0, 0, 1, &ev) && ev == 4);
	CHECK(err_has("stayed incomplete"));
}

static void tick_abort(unsigned int n)
{
	if (n == 1) {
		produce(0, 1, 4);
		partial(0, 2);
		ring(0)->commit_delay = -1;
		raise(SIGINT);
	} else if (n == 3) {
		raise(SIGINT);
	}
}

static void test_second_signal_aborts(void)
{
	uint64_t t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_abort;
	t0 = fk.now;
	CHECK(record("") == TR_EXIT_ABORTED);
	CHECK(fk.now - t0 < TR_DRAIN_TIMEOUT_NS);
	CHECK(sum_is("drain", "aborted"));
	CHECK(sum("exit_status") == TR_EXIT_ABORTED);
	CHECK(err_has("aborted"));
	CHECK(sum("cpu0.subbufs") == 1);
}

static void tick_overwrite(unsigned int n)
{
	if (n == 1) {
		produce(0, 10, 5);	/* 0..5 overwritten, 6..9 left */
	} else if (n == 2) {
		produce(0, 1, 5);
		partial(0, 3);
	} else if (n == 3) {
		tr_request_stop();
	}
}

static void test_overwrite(void)
{
	uint64_t ev;

	fake_setup(1, 4096, 4, true);
	fk.tick = tick_overwrite;
	CHECK(record("") == 0);
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_matches(0));
	/* 6, 7, 8, 9, 10 and the flushed 11: read one at a time. */
	CHECK(stream_valid(0, 6, 6, &ev) && ev == 28);
	CHECK(ring(0)->batch_max_seen == 0);
	CHECK(sum("cpu0.subbufs") == 6);
	CHECK(sum("cpu0.events") == 28);
	CHECK(sum("cpu0.overwritten") == 30);
	CHECK(sum("cpu0.lost") == 30);
	CHECK(sum("cpu0.skipped_subbufs") == 6);
	CHECK(sum("cpu0.kernel_events_written") == 58);
	CHECK(sum_is("overwrite", "1"));
	CHECK(fk.not_from_map == 0);
}

static void tick_full(unsigned int n)
{
	if (n == 1) {
		produce(0, 8, 8);
		produce(1, 3, 2);	/* under the watermark: left in the ring */
	} else if (n == 2) {
		tr_request_stop();
	}
}

/* ENOSPC in the middle of a batch: cut back to whole packets, report. */
static void test_enospc(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_full;
	fk.budget_on = true;
	fk.budget = 5 * 4096 + 100;
	CHECK(record("") == TR_EXIT_OUTPUT);
	CHECK(out_size("stream_0") == 5 * 4096);
	CHECK(stream_valid(0, 0, 5, &ev) && ev == 40);
	CHECK(sum_is("stop", "output_error"));
	CHECK(sum_is("drain", "skipped"));
	CHECK(sum("cpu0.subbufs") == 5);
	CHECK(sum("cpu0.events") == 40);
	CHECK(sum("cpu0.unsaved_subbufs") == 3);
	CHECK(sum("cpu0.unsaved_events") == 24);
	CHECK(sum("exit_status") == TR_EXIT_OUTPUT);
	CHECK(err_has("No space left on device"));
	CHECK(err_has("taken but not saved"));
	/* Given back: the ring does not count them as unread too. */
	CHECK(sum("cpu0.left_bytes") == 0);
	CHECK(sum("cpu1.left_subbufs") == 3);
	CHECK(sum("cpu1.left_bytes") == 3 * 4096);
	CHECK(err_has("cpu1: lost 12288 bytes (3 complete sub-buffers) left unread"));
}

static void tick_many(unsigned int n)
{
	if (n <= 20)
		produce(n % 2, 5, 7);
	else if (n == 21)
		tr_request_stop();
}

/* Short writes and EINTR from writev(): the output is still exact. */
static void test_short_writes(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 16, false);
	fk.tick = tick_many;
	fk.short_max = 1000;
	fk.eintr_every = 3;
	CHECK(record("") == 0);
	CHECK(stream_matches(0) && stream_matches(1));
	CHECK(stream_valid(0, 0, 50, &ev) && ev == 350);
	CHECK(stream_valid(1, 0, 50, &ev) && ev == 350);
	CHECK(sum("total.events") == 700);
}

static void tick_errors(unsigned int n)
{
	if (n == 1) {
		produce(0, 4, 2);
		produce(1, 4, 2);
		ring(0)->eagain_once = 1;
		ring(1)->get_err = EIO;
	} else if (n == 2) {
		produce(0, 4, 2);
	} else if (n == 3) {
		tr_request_stop();
	}
}

/* A spurious EAGAIN is nothing; a failing stream is dropped, not fatal. */
static void test_get_errors(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_errors;
	CHECK(record("") == TR_EXIT_STREAM);
	CHECK(stream_valid(0, 0, 8, &ev) && ev == 16);
	CHECK(sum("cpu1.failed") == 1);
	CHECK(sum("cpu0.failed") == 0);
	CHECK(sum("cpu0.drained") == 1);
	CHECK(err_has("cpu1: TRING_IOC_GET failed: Input/output error"));
}

static void tick_stop(unsigned int n)
{
	if (n == 1)
		tr_request_stop();
}

static void test_knobs(void)
{
	const char *a, *b, *c, *d, *o;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("-b 256 -s 8 --overwrite --clock local -w 3") == 0);
	a = strstr(fk.events, "knob buffer_subbuf_size_kb=8\n");
	b = strstr(fk.events, "knob buffer_size_kb=256\n");
	c = strstr(fk.events, "knob overwrite=1\n");
	d = strstr(fk.events, "knob trace_clock=local\n");
	o = strstr(fk.events, "open 0\n");
	CHECK(a && b && c && d && o);
	/* Sub-buffer size first, and every knob before any stream opens. */
	CHECK(a < b && b < o && c < o && d < o);
	CHECK(strstr(fk.events, "wm 0 3\n") && strstr(fk.events, "wm 1 3\n"));
	CHECK(sum("watermark") == 3);

	/* The knobs already hold these values: nothing is rebuilt. */
	fk.events[0] = '\0';
	CHECK(record("--force -b 256 -s 8 --overwrite --clock local") == 0);
	CHECK(!strstr(fk.events, "knob"));

	/* Clamped watermark: warned. */
	CHECK(record("--force -w 100") == 0);
	CHECK(err_has("the kernel uses 7"));
}

static void test_knob_busy(void)
{
	fake_setup(1, 4096, 8, false);
	fk.knob_err = EBUSY;
	CHECK(record("-b 512") == TR_EXIT_SETUP);
	CHECK(err_has("cannot set buffer_size_kb: the buffer is in use"));
	CHECK(!strstr(fk.events, "open"));
	/* The output directory this run made is gone again. */
	CHECK(out_size("") == -1);
	fk.knob_err = EINVAL;
	CHECK(record("--clock local") == TR_EXIT_SETUP);
	CHECK(err_has("the kernel refused trace_clock = local"));
}

static void test_environment(void)
{
	char args[1024];

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	fk.euid = 1000;
	CHECK(record("") == TR_EXIT_SETUP);
	CHECK(err_has("must be run as root"));
	fk.euid = 0;

	snprintf(args, sizeof(args), "--debugfs %s/nope -o %s", fk.root, fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("debugfs is not mounted at"));

	/* The default path is checked for being a debugfs. */
	fk.is_debugfs = false;
	unsetenv("TRING_DEBUGFS");
	snprintf(args, sizeof(args), "-o %s", fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("debugfs is not mounted at /sys/kernel/debug"));

	/* TRING_DEBUGFS is honoured (and trusted). */
	setenv("TRING_DEBUGFS", fk.dbg, 1);
	CHECK(run(args) == 0);
	unsetenv("TRING_DEBUGFS");
	fk.is_debugfs = true;

	snprintf(args, sizeof(args), "--debugfs %s -o %s", fk.root, fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("the tring module is not loaded"));

	CHECK(record("--force --instance nope") == TR_EXIT_SETUP);
	CHECK(err_has("no buffer instance 'nope'"));

	ring(0)->busy = true;
	CHECK(record("--force") == TR_EXIT_SETUP);
	CHECK(err_has("cpu0: the stream is already open"));
}

static void tick_instance(unsigned int n)
{
	if (n == 1)
		produce(1, 2, 3);
	else
		tr_request_stop();
}

static void test_instance(void)
{
	char dir[600];
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	snprintf(dir, sizeof(dir), "%s/instances/foo", fk.tring);
	fake_tree(dir, 2, false);
	fk.tick = tick_instance;
	CHECK(record("--instance foo") == 0);
	CHECK(strstr(ring(1)->path, "/tring/instances/foo/per_cpu/cpu1/stream") != NULL);
	CHECK(stream_valid(1, 0, 2, &ev) && ev == 6);
	CHECK(sum_is("buffer", "foo"));
	CHECK(record("--force --instance foo -b 64") == TR_EXIT_SETUP);
	CHECK(err_has("has no knob buffer_size_kb"));
	CHECK(record("--force --instance ../x") == TR_EXIT_USAGE);
}

static void test_cpu_list(void)
{
	unsigned char bm[TR_MAX_CPUS / 8];

	memset(bm, 0, sizeof(bm));
	CHECK(tr_parse_cpulist("0,2-3", bm) == 0);
	CHECK(tr_cpu_isset(bm, 0) && !tr_cpu_isset(bm, 1) &&
	      tr_cpu_isset(bm, 2) && tr_cpu_isset(bm, 3) &&
	      !tr_cpu_isset(bm, 4));
	CHECK(tr_parse_cpulist("0-8191", bm) == 0 && tr_cpu_isset(bm, 8191));
	CHECK(tr_parse_cpulist("", bm) < 0);
	CHECK(tr_parse_cpulist("1,", bm) < 0);
	CHECK(tr_parse_cpulist("3-1", bm) < 0);
	CHECK(tr_parse_cpulist("a", bm) < 0);
	CHECK(tr_parse_cpulist("-1", bm) < 0);
	CHECK(tr_parse_cpulist("1-", bm) < 0);
	CHECK(tr_parse_cpulist("8192", bm) < 0);
	CHECK(tr_parse_cpulist("1 ,2", bm) < 0);

	fake_setup(4, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("-c 0,2") == 0);
	CHECK(out_size("stream_0") == 0 && out_size("stream_2") == 0);
	CHECK(out_size("stream_1") == -1 && out_size("stream_3") == -1);
	CHECK(!strstr(fk.events, "open 1") && !strstr(fk.events, "open 3"));
	CHECK(sum_is("cpus", "0,2"));
	CHECK(record("--force -c 1-5") == TR_EXIT_SETUP);
	CHECK(err_has("CPU 4 has no stream"));
	CHECK(record("--force -c x") == TR_EXIT_USAGE);
}

static void test_output_dir(void)
{
	char path[1024];

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	mkdirs("%s", fk.out);
	snprintf(path, sizeof(path), "%s/stream_7", fk.out);
	write_file(path, "stale");
	snprintf(path, sizeof(path), "%s/notes.txt", fk.out);
	write_file(path, "mine");
	CHECK(record("") == TR_EXIT_USAGE);
	CHECK(err_has("is not empty (use --force"));
	CHECK(out_size("stream_7") == 5);
	CHECK(record("--force") == 0);
	CHECK(out_size("stream_7") == -1);
	CHECK(out_size("notes.txt") == 4);
	CHECK(out_size("stream_0") == 0);
	CHECK(err_has("not part of the trace"));

	/* Output path is a file. */
	snprintf(path, sizeof(path), "--debugfs %s -o %s/notes.txt", fk.dbg,
		 fk.out);
	CHECK(run(path) == TR_EXIT_USAGE);
	CHECK(err_has("is not a directory"));

	/* Parents are created. */
	snprintf(path, sizeof(path), "--debugfs %s -o %s/a/b/c", fk.dbg,
		 fk.root);
	CHECK(run(path) == 0);
	snprintf(path, sizeof(path), "%s/a/b/c/stream_0", fk.root);
	CHECK(!access(path, F_OK));
}

static char metadata_path[600];

static void tick_metadata(unsigned int n)
{
	if (n == 2)
		write_file(metadata_path, "/* CTF 1.8 */\ntrace { major = 1; };\n");
	else if (n == 3)
		tr_request_stop();
}

static void test_metadata(void)
{
	static const char text[] = "/* CTF 1.8 */\ntypealias integer { size = 8; } := uint8_t;\n";
	char path[600], buf[256];
	FILE *f;
	size_t n;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	snprintf(metadata_path, sizeof(metadata_path), "%s/metadata", fk.tring);
	write_file(metadata_path, text);
	CHECK(record("") == 0);
	snprintf(path, sizeof(path), "%s/metadata", fk.out);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	CHECK(n == strlen(text) && !memcmp(buf, text, n));
	CHECK(out_size(".metadata.tmp") == -1);
	CHECK(trace_dir_clean());

	/* Missing: a warning, and the recording goes on. */
	unlink(metadata_path);
	CHECK(record("--force") == 0);
	CHECK(err_has("metadata does not exist"));
	CHECK(out_size("metadata") == -1);

	/* Appearing while recording: copied at the end. */
	fk.tick = tick_metadata;
	CHECK(record("--force") == 0);
	CHECK(out_size("metadata") == 36);
}

static void tick_trickle(unsigned int n)
{
	produce(0, 1, 1 + n % 3);
}

static void test_duration(void)
{
	uint64_t t0;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_trickle;
	t0 = fk.now;
	CHECK(record("-d 2.5") == 0);
	CHECK(sum_is("stop", "duration"));
	CHECK(sum("duration_ns") >= 2500000000ULL);
	CHECK(fk.now - t0 >= 2500000000ULL && fk.now - t0 < 2600000000ULL);
	CHECK(stream_matches(0));
	CHECK(sum("cpu0.events") == ring(0)->events_written);
	CHECK(record("--force -d 0") == TR_EXIT_USAGE);
	CHECK(record("--force -d x") == TR_EXIT_USAGE);
}

static void tick_status(unsigned int n)
{
	if (n == 1)
		ring(0)->discarded = 7;
	if (n <= 4) {
		produce(0, 4, 100);
		fk.now += 600000000ULL;
	} else {
		tr_request_stop();
	}
}

static void test_status_line(void)
{
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_status;
	fk.tty = true;
	CHECK(record("") == 0);
	CHECK(err_has("events/s"));
	CHECK(err_has("MB written"));
	CHECK(err_has("MB/s"));
	CHECK(err_has("7 events lost"));
	CHECK(sum("total.discarded") == 7);
	CHECK(sum("total.lost") == 7);

	/* Quiet: neither status line nor summary, but the summary file. */
	CHECK(record("--force -q") == 0);
	CHECK(!err_has("events/s") && !err_has("saved"));
	CHECK(sum("cpu0.events") == 1600);
	CHECK(sum("cpu0.lost_at_start") == 7);

	/* Not a terminal: no status line. */
	fk.tty = false;
	CHECK(record("--force") == 0);
	CHECK(!err_has("events/s") && err_has("saved"));
}

static void tick_long(unsigned int n)
{
	produce(0, 3, 20);
	produce(1, 2, 20);
	/* 20 ms a poll: the status line runs too. */
	fk.now += 20000000ULL;
	/* Heap in use; always 0 under valgrind, which has its own malloc. */
	if (n == 200)
		fk.mem_a = mallinfo2().uordblks + 1;
	if (n == 19000)
		fk.mem_b = mallinfo2().uordblks + 1;
	if (n == 20000)
		tr_request_stop();
}

/* Nothing grows with the length of the trace. */
static void test_constant_memory(void)
{
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_long;
	fk.tty = true;
	fk.no_log = true;
	CHECK(record("") == 0);
	CHECK(fk.mem_a && fk.mem_a == fk.mem_b);
	CHECK(sum("cpu0.subbufs") == 60000);
	CHECK(sum("cpu1.subbufs") == 40000);
	CHECK(sum("total.events") == 2000000);
	CHECK(out_size("stream_0") == 60000LL * 4096);
}

static void tick_losses(unsigned int n)
{
	if (n == 1) {
		produce(0, 12, 3);	/* 8 fit, 4 packets dropped */
		ring(0)->too_big = 2;
	} else {
		tr_request_stop();
	}
}

/* Discard mode, full ring: the kernel's counters end up in the summary. */
static void test_losses(void)
{
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_losses;
	CHECK(record("") == 0);
	CHECK(sum("cpu0.subbufs") == 8);
	CHECK(sum("cpu0.events") == 24);
	CHECK(sum("cpu0.discarded") == 12);
	CHECK(sum("cpu0.too_big") == 2);
	CHECK(sum("cpu0.overwritten") == 0);
	CHECK(sum("cpu0.lost") == 14);
	CHECK(sum("total.lost") == 14);
	CHECK(stream_matches(0));
}

static void tick_hangup(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 5);
		produce(1, 3, 5);
		partial(1, 4);
		ring(1)->dead = true;
	} else if (n == 3) {
		produce(0, 6, 5);
	} else if (n == 6) {
		partial(0, 1);
		ring(0)->dead = true;
	}
}

/*
 * Streams that hang up (should the kernel say POLLHUP when a buffer is
 * removed) are read to the end and no longer polled; when all have,
 * recording ends on its own, without spinning.
 */
static void test_hangup(void)
{
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_hangup;
	CHECK(record("") == 0);
	CHECK(fk.waits < 20);
	CHECK(sum_is("stop", "hangup"));
	CHECK(sum_is("drain", "complete"));
	CHECK(stream_valid(0, 0, 9, &ev) && ev == 41);
	CHECK(stream_valid(1, 0, 4, &ev) && ev == 19);
	CHECK(stream_matches(0) && stream_matches(1));

	/* A dead stream whose last packet never completes: sleep, not spin. */
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stuck;
	ring(0)->dead = true;
	CHECK(record("--force") == 0);
	CHECK(sum_is("drain", "timeout"));
	CHECK(fk.waits < 40);
}

static void test_options(void)
{
	fake_setup(1, 4096, 8, false);
	CHECK(run("--bogus") == TR_EXIT_USAGE);
	CHECK(run("-s 3") == TR_EXIT_USAGE);
	CHECK(run("-b 0") == TR_EXIT_USAGE);
	CHECK(run("--clock tsc") == TR_EXIT_USAGE);
	CHECK(run("-w 0") == TR_EXIT_USAGE);
	CHECK(run("extra") == TR_EXIT_USAGE);
	CHECK(err_has("unexpected argument 'extra'"));
}

struct test {
	const char *name;
	void (*fn)(void);
};

static const struct test tests[] = {
	{ "basic_discard", test_basic_discard },
	{ "coalesce", test_coalesce },
	{ "drain_delayed_commit", test_drain_delayed_commit },
	{ "drain_timeout", test_drain_timeout },
	{ "second_signal_aborts", test_second_signal_aborts },
	{ "overwrite", test_overwrite },
	{ "enospc", test_enospc },
	{ "short_writes", test_short_writes },
	{ "get_errors", test_get_errors },
	{ "knobs", test_knobs },
	{ "knob_busy", test_knob_busy },
	{ "environment", test_environment },
	{ "instance", test_instance },
	{ "cpu_list", test_cpu_list },
	{ "output_dir", test_output_dir },
	{ "metadata", test_metadata },
	{ "duration", test_duration },
	{ "status_line", test_status_line },
	{ "constant_memory", test_constant_memory },
	{ "losses", test_losses },
	{ "hangup", test_hangup },
	{ "options", test_options },
};

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("TRING_DEBUGFS");
	printf("TAP version 13\n");
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (argc > 1 && strcmp(argv[1], tests[i].name))
			continue;
		cur_test = tests[i].name;
		test_failed = false;
		tests[i].fn();
		fake_free();
		printf("%s %u %s\n", test_failed ? "not ok" : "ok",
		       passed + failed + 1, cur_test);
		if (test_failed)
			failed++;
		else
			passed++;
	}
	printf("1..%u\n# %u passed, %u failed\n", passed + failed, passed,
	       failed);
	return failed ? 1 : 0;
}
