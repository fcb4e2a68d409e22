// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's report: the status line while recording, and the
 * summary at the end, on standard error and in DIR/.tring-record.summary.
 */
#include <errno.h>
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

		if (!c->failed && r->ops->status(c, &c->last))
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

int tr_write_summary_file(struct tr_rec *r)
{
	char path[4096], who[32];
	struct tr_sum s, t;
	unsigned int i;
	FILE *f;

	if (tr_join(path, sizeof(path), r->out_dir, ".tring-record.summary"))
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

void tr_print_summary(struct tr_rec *r)
{
	double secs = (double)(r->t_stop - r->t_start) / NSEC_PER_SEC;
	struct tr_sum s, t;
	char who[32];
	unsigned int i;

	tr_clear_status();
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
