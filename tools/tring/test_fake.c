// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit test: the fake kernel.
 *
 * Each CPU's "ring" is a memory buffer that a scripted writer fills with
 * synthetic CTF packets and that the fake hands out the way the kernel
 * does (batches in discard mode, one sub-buffer through a spare in
 * overwrite mode). The fake records what it handed out, what was asked,
 * and every writev(). Time is fake too, so the 2 s drain timeout takes
 * no time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_record.h"

struct fake_ring *ring(unsigned int cpu)
{
	return &fk.rings[cpu];
}

static uint64_t losses(struct fake_ring *f)
{
	return f->discarded + f->overwritten + f->too_big;
}

/* Payload word of event @i of packet @seq: the test can recognise it. */
uint32_t payload(unsigned int cpu, uint64_t seq, unsigned int i)
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
void partial(unsigned int cpu, unsigned int events)
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
void produce(unsigned int cpu, unsigned int n, unsigned int events)
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

uint64_t ready(struct fake_ring *f)
{
	uint64_t from = f->rseq + f->held;

	if (f->overwrite && f->wseq - f->rseq > f->count)
		return f->count;
	return f->wseq > from ? f->wseq - from : 0;
}

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

/* As the module: each "group:event" line becomes an event, off. */
static int fake_offer(const char *val)
{
	char line[256], *colon, path[700];
	const char *p = val;
	size_t n;

	while (*p) {
		n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + !!p[n];
		colon = strchr(line, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		mkdirs("%s/events/%s/%s", fk.tring, line, colon + 1);
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", fk.tring,
			 line, colon + 1);
		write_file(path, "0\n");
		snprintf(path, sizeof(path), "%s/events/%s/%s/filter", fk.tring,
			 line, colon + 1);
		write_file(path, "none\n");
		logev("offer %s:%s\n", line, colon + 1);
	}
	return 0;
}

/*
 * As kprobe_events and uprobe_events: a line is appended and its event
 * made (events/GROUP/EVENT, "kprobes/p_fake" when it names none); one
 * with "bad" in it is refused; "-:GROUP/EVENT" takes the line out.
 */
static int fake_probe(const char *path, const char *val)
{
	char text[4096] = "", line[512], name[200], *w, *slash;
	size_t n = 0;
	FILE *f;

	logev("probe %s\n", val);
	if (strstr(val, "bad"))
		return -EINVAL;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		w = strchr(line, ':');
		if (strncmp(val, "-:", 2) || !w ||
		    strncmp(w + 1, val + 2, strlen(val + 2)))
			n += snprintf(text + n, sizeof(text) - n, "%s", line);
	}
	if (f)
		fclose(f);
	if (strncmp(val, "-:", 2)) {
		w = strchr(val, ':');
		snprintf(name, sizeof(name), "%.*s",
			 w && w < val + strcspn(val, " \t") ?
			 (int)strcspn(w + 1, " \t") : 0, w ? w + 1 : "");
		if (!name[0])
			strcpy(name, "kprobes/p_fake");
		snprintf(text + n, sizeof(text) - n, "%c:%s %s\n", val[0], name,
			 val + strcspn(val, " \t") + 1);
		slash = strchr(name, '/');
		if (slash)
			*slash = ':';
		fake_offer(name);
	}
	write_file(path, text);
	return 0;
}

/*
 * As a generic event's filter file: "0" removes the filter; one naming
 * "nosuch" is refused, the error shown before the filter in force.
 */
static int fake_filter(const char *path, const char *val)
{
	char old[512], text[1200];
	FILE *f = fopen(path, "r");

	old[0] = '\0';
	if (f) {
		if (!fgets(old, sizeof(old), f))
			old[0] = '\0';
		fclose(f);
	}
	old[strcspn(old, "\n")] = '\0';
	logev("filter %s\n", val);
	if (strstr(val, "nosuch")) {
		snprintf(text, sizeof(text),
			 "error at 0: no such field\n%s\n^\nin force: %s\n",
			 val, old);
		write_file(path, text);
		return -EINVAL;
	}
	snprintf(text, sizeof(text), "%s\n", strcmp(val, "0") ? val : "none");
	write_file(path, text);
	return 0;
}

static int fake_knob_write(const char *path, const char *val)
{
	const char *name = strrchr(path, '/') + 1;
	FILE *f;

	if (!strcmp(name, "statedump")) {
		/* As the module: the events go into the default buffer. */
		fk.statedumps++;
		logev("statedump\n");
		return fk.statedump_err ? -fk.statedump_err : 0;
	}
	if (fk.knob_err)
		return -fk.knob_err;
	if (!strcmp(name, "generic_events"))
		return fake_offer(val);
	if (!strcmp(name, "filter"))
		return fake_filter(path, val);
	if (!strcmp(name, "kprobe_events") || !strcmp(name, "uprobe_events"))
		return fake_probe(path, val);
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
	if (f->no_ring)
		return -ENXIO;
	if (f->busy || f->open)
		return -EBUSY;
	f->open = true;
	if (fk.signal_at_open)
		raise(SIGINT);
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

	if (!f->gets++)
		logev("get %u\n", c->cpu);
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
	st->flags = f->dead ? TRING_STATUS_DEAD : 0;
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
		f->discarded += f->discard_after_flush;
		return 0;
	}
	*pos = (f->wseq + 1) * f->size;
	f->flush_pos = *pos;
	if (!f->commit_delay)
		close_packet(f);
	else
		f->flush_pending = true;
	/* The buffer records on after the stop; these are not the trace's. */
	f->discarded += f->discard_after_flush;
	return 0;
}

/*
 * The live flush: with @empty a packet even with no event (none when the
 * ring has no room); *@ts is where the next packet's time starts, so no
 * later event is older. fk.no_empty: a module without empty packets.
 */
static int fake_flush_ts(struct tr_cpu *c, bool empty, uint64_t *pos,
			 uint64_t *ts)
{
	struct fake_ring *f = c->priv;
	int ret = 0;

	if (empty && fk.no_empty)
		return -EINVAL;
	fk.live_flushes++;
	if (empty && !f->open_events && open_packet(f)) {
		close_packet(f);
		*pos = f->wseq * f->size;
		f->flush_pos = *pos;
	} else {
		ret = fake_flush(c, pos);
	}
	*ts = f->wseq * 1000;
	return ret;
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

static int fake_get_nice(int *nice)
{
	*nice = fk.nice;
	return 0;
}

static int fake_set_nice(int nice)
{
	if (fk.nice_err)
		return -fk.nice_err;
	fk.nice = nice;
	logev("nice %d\n", nice);
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
	if (fk.wait_err)
		return -fk.wait_err;
	deliver_signals(r);
	if (tr_stop_requests != stops) {
		fk.now += 1000000;
		return -EINTR;
	}
	/*
	 * As tring_stream_poll() and real_wait(): POLLIN at the watermark,
	 * after a flush, or while a destroyed buffer still has a complete
	 * sub-buffer; POLLHUP once it has none.
	 */
	for (i = 0; i < n; i++) {
		struct fake_ring *f = set[i]->priv;

		if (f->dead && !ready(f))
			set[i]->hup = true;
		set[i]->readable = set[i]->hup || fake_readable(f) ||
				   (f->dead && ready(f));
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

const struct tr_ops fake_ops = {
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
	.flush_ts	= fake_flush_ts,
	.set_watermark	= fake_set_watermark,
	.get_nice	= fake_get_nice,
	.set_nice	= fake_set_nice,
	.wait		= fake_wait,
	.writev		= fake_writev,
};

