// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's report: the status line while recording, and the
 * summary at the end, on standard error and in DIR/.tring-record.summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>

#include "record.h"

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
uint64_t tr_refresh_status(struct tr_rec *r)
{
	uint64_t lost = 0;
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->absent || (!c->failed && r->ops->status(c, &c->last)))
			continue;
		lost += lost_events(&c->last);
	}
	return lost;
}

void tr_show_status(struct tr_rec *r, uint64_t now)
{
	double dt = (double)(now - r->t_status) / NSEC_PER_SEC;
	uint64_t events, bytes, lost = tr_refresh_status(r);

	totals(r, &events, &bytes);
	if (dt <= 0)
		dt = 1;
	tr_clear_status();
	fprintf(stderr, "tring-record: %.0f events/s  %.1f MB written  %.1f MB/s  %" PRIu64 " events lost",
		(events - r->status_events) / dt, bytes / 1e6,
		(bytes - r->status_bytes) / dt / 1e6, lost);
	tr_status_dirty();
	r->t_status = now;
	r->status_events = events;
	r->status_bytes = bytes;
}

static const char *const stop_names[] = {
	[TR_STOP_NONE]		= "none",
	[TR_STOP_SIGNAL]	= "signal",
	[TR_STOP_DURATION]	= "duration",
	[TR_STOP_OUTPUT]	= "output_error",
	[TR_STOP_STREAM]	= "stream_error",
	[TR_STOP_HANGUP]	= "hangup",
	[TR_STOP_COMMAND]	= "command",
	[TR_STOP_MAX_SIZE]	= "max_size",
};

static const char *const drain_names[] = {
	[TR_DRAIN_SKIPPED]	= "skipped",
	[TR_DRAIN_COMPLETE]	= "complete",
	[TR_DRAIN_TIMEOUT]	= "timeout",
	[TR_DRAIN_ABORTED]	= "aborted",
};

static const char *const statedump_names[] = {
	[TR_STATEDUMP_SKIPPED]		= "skipped",
	[TR_STATEDUMP_DONE]		= "done",
	[TR_STATEDUMP_UNSUPPORTED]	= "unsupported",
	[TR_STATEDUMP_FAILED]		= "failed",
};

/* The numbers of the summary, per CPU; see counters[]. */
enum counter {
	C_SUBBUFS,
	C_BYTES,
	C_EVENTS,
	C_DISCARDED,
	C_OVERWRITTEN,
	C_TOO_BIG,
	C_LOST,
	C_LOST_AT_START,
	C_TRACE_DISCARDED,
	C_SKIPPED,
	C_UNSAVED_SUBBUFS,
	C_UNSAVED_EVENTS,
	C_LEFT_SUBBUFS,
	C_LEFT_BYTES,
	C_KERNEL_EVENTS,
	C_FLUSH_POS,
	C_READ_POS,
	C_DRAINED,
	C_FAILED,
	NR_COUNTERS
};

/*
 * The one list of the summary's numbers: the summary file writes each as
 * cpuN.KEY and, unless cpu_only, their sum as total.KEY; the table on
 * standard error shows those with a width; --help lists them all.
 */
static const struct counter_desc {
	const char *key;
	const char *help;
	int width;		/* column on standard error; 0: not shown */
	bool cpu_only;		/* no total */
} counters[NR_COUNTERS] = {
	[C_SUBBUFS]		= { "subbufs", "sub-buffers saved", 10 },
	[C_BYTES]		= { "bytes", "bytes saved", 14 },
	[C_EVENTS]		= { "events", "events saved", 12 },
	[C_DISCARDED]		= { "discarded", "events dropped, ring full (*)", 10 },
	[C_OVERWRITTEN]		= { "overwritten", "events overwritten unread (*)", 11 },
	[C_TOO_BIG]		= { "too_big", "events too big to fit (*)", 8 },
	[C_LOST]		= { "lost", "the sum of these three (*)" },
	[C_LOST_AT_START]	= { "lost_at_start", "lost before recording" },
	[C_TRACE_DISCARDED]	= { "discarded_in_trace", "discarded as the last packet saved counts them" },
	[C_SKIPPED]		= { "skipped_subbufs", "sequence gaps (overwritten)" },
	[C_UNSAVED_SUBBUFS]	= { "unsaved_subbufs", "taken, not written (output error)" },
	[C_UNSAVED_EVENTS]	= { "unsaved_events", "their events" },
	[C_LEFT_SUBBUFS]	= { "left_subbufs", "complete, left in the ring" },
	[C_LEFT_BYTES]		= { "left_bytes", "bytes left in the ring" },
	[C_KERNEL_EVENTS]	= { "kernel_events_written", "events the kernel wrote (*)" },
	[C_FLUSH_POS]		= { "flush_pos", "position of the final flush", 0, true },
	[C_READ_POS]		= { "read_pos", "read position at the end", 0, true },
	[C_DRAINED]		= { "drained", "1: read up to flush_pos", 0, true },
	[C_FAILED]		= { "failed", "1: the stream failed", 0, true },
};

/* One CPU's, or the total's, numbers. */
struct tr_sum {
	uint64_t v[NR_COUNTERS];
};

static void sum_cpu(const struct tr_cpu *c, struct tr_sum *s)
{
	const struct tring_status *st = &c->last;
	uint64_t *v = s->v;

	v[C_SUBBUFS] = c->subbufs;
	v[C_BYTES] = c->bytes;
	v[C_EVENTS] = c->events;
	v[C_DISCARDED] = st->events_discarded;
	v[C_OVERWRITTEN] = st->events_overwritten;
	v[C_TOO_BIG] = st->events_too_big;
	v[C_LOST] = lost_events(st);
	v[C_LOST_AT_START] = lost_events(&c->start);
	v[C_TRACE_DISCARDED] = c->trace_discarded;
	v[C_SKIPPED] = c->skipped;
	v[C_UNSAVED_SUBBUFS] = c->unsaved_subbufs;
	v[C_UNSAVED_EVENTS] = c->unsaved_events;
	v[C_LEFT_SUBBUFS] = st->subbufs_ready;
	v[C_LEFT_BYTES] = st->write_pos > st->read_pos ?
			  st->write_pos - st->read_pos : 0;
	v[C_KERNEL_EVENTS] = st->events_written;
	v[C_FLUSH_POS] = c->flush_pos;
	v[C_READ_POS] = st->read_pos;
	v[C_DRAINED] = c->drained;
	v[C_FAILED] = c->failed;
}

static void sum_add(struct tr_sum *t, const struct tr_sum *s)
{
	unsigned int i;

	for (i = 0; i < NR_COUNTERS; i++)
		if (!counters[i].cpu_only)
			t->v[i] += s->v[i];
}

/* Call @row for each CPU's numbers, then with @c NULL for the total. */
static void each_sum(struct tr_rec *r, void *arg,
		     void (*row)(void *arg, const struct tr_cpu *c,
				 const struct tr_sum *s))
{
	struct tr_sum s, t;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < r->ncpus; i++) {
		/* Never online while recording: nothing to say. */
		if (r->cpus[i].absent)
			continue;
		sum_cpu(&r->cpus[i], &s);
		sum_add(&t, &s);
		row(arg, &r->cpus[i], &s);
	}
	row(arg, NULL, &t);
}

/* cpuN.KEY=value, or total.KEY=value, lines into the summary file. */
static void write_sum(void *f, const struct tr_cpu *c, const struct tr_sum *s)
{
	char who[32] = "total";
	unsigned int i;

	if (c)
		snprintf(who, sizeof(who), "cpu%u", c->cpu);
	for (i = 0; i < NR_COUNTERS; i++)
		if (c || !counters[i].cpu_only)
			fprintf(f, "%s.%s=%" PRIu64 "\n", who, counters[i].key,
				s->v[i]);
}

/**
 * tr_usage_summary - the summary file's keys, for the usage text
 * @f: where to print them.
 */
void tr_usage_summary(FILE *f)
{
	unsigned int i;

	fputs("\t\t  stop=", f);
	for (i = TR_STOP_NONE + 1; i < ARRAY_SIZE(stop_names); i++)
		fprintf(f, "%s%s", stop_names[i],
			i + 1 < ARRAY_SIZE(stop_names) ? "|" : "\n");
	fputs("\t\t  drain=", f);
	for (i = 0; i < ARRAY_SIZE(drain_names); i++)
		fprintf(f, "%s%s", drain_names[i],
			i + 1 < ARRAY_SIZE(drain_names) ? "|" : "\n");
	fputs("\t\t  statedump=", f);
	for (i = 0; i < ARRAY_SIZE(statedump_names); i++)
		fprintf(f, "%s%s", statedump_names[i],
			i + 1 < ARRAY_SIZE(statedump_names) ? "|" : "\n");
	fputs("\t\tand for each CPU N, cpuN.KEY, and their sum total.KEY:\n", f);
	for (i = 0; i < NR_COUNTERS; i++) {
		if (counters[i].cpu_only && !counters[i - 1].cpu_only)
			fputs("\t\tper CPU only:\n", f);
		fprintf(f, "\t\t  %-22s %s\n", counters[i].key,
			counters[i].help);
	}
	fputs("\t\t(*) the kernel's counters since the buffer was created, read\n"
	      "\t\t    after the drain: they also count what the buffer lost\n"
	      "\t\t    after the stop; discarded_in_trace is what the trace says\n", f);
}

static void write_summary_head(struct tr_rec *r, FILE *f)
{
	const struct tring_info *i = &tr_first_open(r)->info;
	struct rusage ru;
	unsigned int k, n;

	fprintf(f, "version=1\n");
	fprintf(f, "buffer=%s\n", r->opt.instance ? r->opt.instance : "");
	fprintf(f, "subbuf_size=%llu\n", (unsigned long long)i->subbuf_size);
	fprintf(f, "subbuf_count=%u\n", i->subbuf_count);
	fprintf(f, "overwrite=%u\n", !!(i->flags & TRING_INFO_OVERWRITE));
	fprintf(f, "clock=%s\n", i->clock == TRING_CLOCK_MONO ? "mono" :
		i->clock == TRING_CLOCK_LOCAL ? "local" : "unknown");
	fprintf(f, "watermark=%u\n", i->watermark);
	fprintf(f, "nice=%d\n", r->nice);
	fprintf(f, "cpus=");
	for (k = 0, n = 0; k < r->ncpus; k++)
		if (!r->cpus[k].absent)
			fprintf(f, "%s%u", n++ ? "," : "", r->cpus[k].cpu);
	fprintf(f, "\ncpus_without_ring=");
	for (k = 0, n = 0; k < r->ncpus; k++)
		if (r->cpus[k].absent)
			fprintf(f, "%s%u", n++ ? "," : "", r->cpus[k].cpu);
	fprintf(f, "\nstop=%s\n", stop_names[r->stop]);
	fprintf(f, "drain=%s\n", drain_names[r->drain]);
	fprintf(f, "statedump=%s\n", statedump_names[r->statedump]);
	fprintf(f, "duration_ns=%" PRIu64 "\n", r->t_stop - r->t_start);
	if (r->opt.rotate_size || r->opt.rotate_ns)
		fprintf(f, "chunks=%u\nchunks_removed=%u\n", r->chunk + 1,
			r->oldest_chunk);
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

int tr_write_summary_file(struct tr_rec *r)
{
	FILE *f;
	int fd;

	/* 0600 and never through a symbolic link, as the trace's files. */
	if (r->opt.summary) {
		fd = open(r->opt.summary, O_WRONLY | O_CREAT | O_TRUNC |
			  O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		tr_give_away(r, fd);
	} else {
		fd = tr_create_file(r, r->out_dirfd, ".tring-record.summary");
		if (fd < 0)
			return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	write_summary_head(r, f);
	each_sum(r, f, write_sum);
	fprintf(f, "exit_status=%d\n", r->exit_status);
	/* tring-record's exit status is COMMAND's: its own is above. */
	if (r->child)
		fprintf(f, "command_pid=%d\ncommand_exit_status=%d\n",
			(int)r->child, tr_command_status(r, 0));
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

/*
 * A row of the table on standard error: @c's, the total (@c NULL), or
 * the headings (@s NULL too). @total gets the total's numbers.
 */
static void print_row(void *total, const struct tr_cpu *c,
		      const struct tr_sum *s)
{
	char who[32] = "total";
	unsigned int i;

	if (c)
		snprintf(who, sizeof(who), "%u", c->cpu);
	else if (!s)
		strcpy(who, "cpu");
	else
		memcpy(total, s, sizeof(*s));
	fprintf(stderr, "%6s", who);
	for (i = 0; i < NR_COUNTERS; i++) {
		if (!counters[i].width)
			continue;
		if (s)
			fprintf(stderr, " %*" PRIu64, counters[i].width, s->v[i]);
		else
			fprintf(stderr, " %*s", counters[i].width,
				counters[i].key);
	}
	fputc('\n', stderr);
}

static void print_losses(struct tr_rec *r)
{
	struct tr_sum s;
	unsigned int i;

	for (i = 0; i < r->ncpus; i++) {
		sum_cpu(&r->cpus[i], &s);
		if (s.v[C_UNSAVED_SUBBUFS])
			fprintf(stderr, "cpu%u: lost %" PRIu64 " sub-buffers (%" PRIu64 " events) taken but not %s\n",
				r->cpus[i].cpu, s.v[C_UNSAVED_SUBBUFS],
				s.v[C_UNSAVED_EVENTS], r->net ? "sent" : "saved");
		if (r->stop == TR_STOP_OUTPUT && s.v[C_LEFT_BYTES])
			fprintf(stderr, "cpu%u: lost %" PRIu64 " bytes (%" PRIu64 " complete sub-buffers) left unread in the kernel buffer\n",
				r->cpus[i].cpu, s.v[C_LEFT_BYTES],
				s.v[C_LEFT_SUBBUFS]);
		if (s.v[C_SKIPPED])
			fprintf(stderr, "cpu%u: %" PRIu64 " sub-buffers overwritten before they could be read\n",
				r->cpus[i].cpu, s.v[C_SKIPPED]);
	}
}

/* Streamed: subbufs and bytes are the packets and bytes sent. */
static void print_relay(struct tr_rec *r, const struct tr_sum *t)
{
	const struct tr_relay *n = r->net;

	fprintf(stderr, "tring-record: sent %" PRIu64 " events in %" PRIu64 " packets, %.1f MB without padding, to %s, session %s of host %s (%s)",
		t->v[C_EVENTS], t->v[C_SUBBUFS], t->v[C_BYTES] / 1e6, n->url,
		n->session, n->hostname, n->path);
	if (n->live_us)
		fprintf(stderr, "; live, %" PRIu64 " beacons", n->beacons);
	if (n->meta_added)
		fprintf(stderr, "; %" PRIu64 " event declarations added at the end",
			n->meta_added);
	fprintf(stderr, "%s\n", n->failed ? "; the relay was lost" : "");
}

void tr_print_summary(struct tr_rec *r)
{
	double secs = (double)(r->t_stop - r->t_start) / NSEC_PER_SEC;
	struct tr_sum t;

	tr_clear_status();
	fprintf(stderr, "tring-record: stopped (%s) after %.2f s; drain %s\n",
		stop_names[r->stop], secs, drain_names[r->drain]);
	print_row(NULL, NULL, NULL);
	each_sum(r, &t, print_row);
	print_losses(r);
	if (r->net) {
		print_relay(r, &t);
		return;
	}
	fprintf(stderr, "tring-record: saved %" PRIu64 " events, %.1f MB in %s\n",
		t.v[C_EVENTS], t.v[C_BYTES] / 1e6, r->out_dir);
}
