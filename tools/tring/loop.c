// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's record loop and drain.
 *
 * The kernel hands out complete sub-buffers (CTF packets) in a read-only
 * mapping of each CPU's ring. They are written to the output exactly as
 * they are, straight from the mapping: a batch taken with one
 * TRING_IOC_GET goes out in one writev(), with sub-buffers that are
 * adjacent in the mapping merged into one iovec. Events are never
 * parsed; each packet header's events_count is the only thing read.
 */
#include <errno.h>
#include <string.h>

#include "record.h"

/* Longest sleep in the drain before looking at the positions again. */
#define DRAIN_POLL_MS	100

static void stream_failed(struct tr_rec *r, struct tr_cpu *c,
			  const char *what, int err)
{
	tr_err("cpu%u: %s failed: %s; no more data from this CPU",
	       c->cpu, what, strerror(-err));
	c->failed = true;
	r->stream_error = true;
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
		ret = tr_save_batch(r, c, count);
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

		if (c->failed || c->hup || c->absent)
			continue;
		c->readable = false;
		r->set[n++] = c;
	}
	return n;
}

static bool all_failed(struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; i < r->ncpus; i++)
		if (!r->cpus[i].failed && !r->cpus[i].absent)
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
	if (r->nabsent) {
		s = ms_until(now, r->t_absent + NSEC_PER_SEC);
		if (t < 0 || s < t)
			t = s;
	}
	if (r->opt.live_us && r->ops->flush_ts) {
		s = ms_until(now, r->t_live);
		if (t < 0 || s < t)
			t = s;
	}
	return t;
}

/*
 * Flush one CPU for live viewers and send what that made complete. An
 * idle CPU's stream gets an empty packet the first time (the relay
 * needs one before it takes beacons), then a beacon with the CPU's
 * clock when no packet went since the last tick and none is pending.
 */
static int live_cpu(struct tr_rec *r, struct tr_cpu *c)
{
	bool empty = !c->relay_seq && !r->live_no_empty;
	uint64_t pos = 0, ts = 0;
	int ret;

	ret = r->ops->flush_ts(c, empty, &pos, &ts);
	if (ret == -EINVAL && empty) {
		tr_warn("this tring module makes no empty packets: live viewers wait for a CPU's first event");
		r->live_no_empty = true;
		ret = r->ops->flush_ts(c, false, &pos, &ts);
	}
	if (ret) {
		stream_failed(r, c, "TRING_IOC_FLUSH", ret);
		return 0;
	}
	if (read_cpu(r, c, c->info.subbuf_count))
		return -1;
	if (c->relay_seq && c->relay_seq == c->live_seq && ts &&
	    pos <= c->next_seq * c->info.subbuf_size &&
	    tr_relay_beacon(r, c, ts)) {
		r->stop = TR_STOP_OUTPUT;
		r->output_error = true;
		return -1;
	}
	c->live_seq = c->relay_seq;
	return 0;
}

/*
 * Each CPU, see live_cpu(); first, every TR_LIVE_META_NS at most, the
 * declarations of events described since, so that viewers know them
 * before their packets (the whole metadata is read each time: hundreds
 * of KiB with the generic events).
 */
static void live_cpus(struct tr_rec *r, uint64_t now)
{
	unsigned int i;

	if (now >= r->t_meta) {
		r->t_meta = now + TR_LIVE_META_NS;
		tr_copy_metadata(r, true);
	}
	if (r->net->failed) {
		r->stop = TR_STOP_OUTPUT;
		r->output_error = true;
		return;
	}
	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->failed || c->absent || c->hup)
			continue;
		if (live_cpu(r, c))
			return;
	}
}

/* Every live timer tick (--live). */
static void live_tick(struct tr_rec *r, uint64_t now)
{
	if (!r->opt.live_us || !r->ops->flush_ts || now < r->t_live ||
	    r->stop)
		return;
	r->t_live = now + (uint64_t)r->opt.live_us * 1000;
	live_cpus(r, now);
}

/**
 * tr_live_end - the last live tick, after the drain
 * @r: the run.
 *
 * Beacons for the CPUs that sent nothing since the last tick, so that
 * viewers can show the busy CPUs' last packets before the streams close.
 */
void tr_live_end(struct tr_rec *r)
{
	if (!r->opt.live_us || !r->ops->flush_ts || !r->net ||
	    r->stop == TR_STOP_OUTPUT || r->stop == TR_STOP_STREAM)
		return;
	/* The metadata is sent after this, at the end, anyway. */
	live_cpus(r, 0);
}

/* Once a second, look for CPUs without a ring that came online. */
static void poll_absent(struct tr_rec *r, uint64_t now)
{
	if (!r->nabsent || now < r->t_absent + NSEC_PER_SEC)
		return;
	tr_open_late(r);
	r->t_absent = now;
}

/*
 * Sleep until one of the first @n streams of r->set is readable, a
 * signal comes or @timeout_ms passes. Return: how many are readable (0
 * after a signal or the timeout), or -1 when waiting failed, which ends
 * the loop and the drain alike.
 */
static int wait_streams(struct tr_rec *r, unsigned int n, int timeout_ms)
{
	int ret = r->ops->wait(r, r->set, n, timeout_ms);

	if (ret == -EINTR)
		return 0;
	if (ret < 0) {
		tr_err("waiting for data failed: %s", strerror(-ret));
		r->stream_error = true;
		return -1;
	}
	return ret;
}

/*
 * No stream can bring more data: each failed, or hung up because its
 * buffer was destroyed (an instance removed by its owner) and nothing
 * complete is left in it. The drain then saves what the rings still hold
 * (the partly filled sub-buffers), as after a signal.
 */
static enum tr_stop streams_ended(struct tr_rec *r)
{
	if (all_failed(r))
		return TR_STOP_STREAM;
	if (r->opt.instance)
		tr_warn("buffer instance '%s' was destroyed while recording: saving what it still holds, then stopping",
			r->opt.instance);
	else
		tr_warn("the buffer was destroyed while recording: saving what it still holds, then stopping");
	return TR_STOP_HANGUP;
}

/*
 * Sleep until data, then save it; until a signal, the duration ends or
 * no stream can bring more.
 */
void tr_record_loop(struct tr_rec *r)
{
	uint64_t deadline = 0, now = r->t_start;
	unsigned int i, n;
	int ret;

	if (r->opt.duration > 0)
		deadline = r->t_start + (uint64_t)(r->opt.duration * NSEC_PER_SEC);
	/* Asked for while setting up: nothing wakes the first sleep. */
	if (tr_stop_requests)
		r->stop = TR_STOP_SIGNAL;
	while (!r->stop) {
		n = live_set(r);
		if (!n) {
			r->stop = streams_ended(r);
			break;
		}
		ret = wait_streams(r, n, loop_timeout(r, deadline, now));
		if (ret < 0) {
			r->stop = TR_STOP_STREAM;
			break;
		}
		for (i = 0; ret > 0 && i < n && !r->stop; i++) {
			/* A ring's worth at most, then let the others in. */
			if (r->set[i]->readable)
				read_cpu(r, r->set[i], r->set[i]->info.subbuf_count);
		}
		now = r->ops->now_ns();
		poll_absent(r, now);
		live_tick(r, now);
		if (r->status_line && now >= r->t_status + NSEC_PER_SEC)
			tr_show_status(r, now);
		if (r->stop)
			break;
		if (tr_stop_requests)
			r->stop = TR_STOP_SIGNAL;
		else if (deadline && now >= deadline)
			r->stop = TR_STOP_DURATION;
		else if (tr_command_exited(r))
			r->stop = TR_STOP_COMMAND;
	}
}

static void flush_all(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->failed || c->absent)
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

		if (c->failed || c->drained || c->absent)
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
void tr_drain(struct tr_rec *r)
{
	unsigned int nwait;
	uint64_t deadline, now;
	int n, t;

	if (r->stop == TR_STOP_OUTPUT || r->stop == TR_STOP_STREAM) {
		r->drain = TR_DRAIN_SKIPPED;
		return;
	}
	if (r->status_line)
		tr_note(r, "stopping: saving what the buffers hold...");
	/* A CPU that came online since the last look: its events too. */
	if (r->nabsent)
		tr_open_late(r);
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
		/* Keep the reason for stopping; the exit status tells. */
		if (wait_streams(r, nwait, t < DRAIN_POLL_MS ? t : DRAIN_POLL_MS) < 0) {
			r->drain = TR_DRAIN_SKIPPED;
			return;
		}
	}
}
