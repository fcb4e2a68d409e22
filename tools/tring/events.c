// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's choice of events: -e (--list is list.c's).
 *
 * The default buffer's events are the directories
 * <tring>/events/<group>/<event>/ that hold an enable file. -e SPEC
 * selects some of them:
 *
 *	all		every event
 *	GROUP:EVENT	perf's and trace-cmd's spelling; either part may be
 *			a glob (sched:*, block:block_rq_*)
 *	GROUP		every event of the group (sched)
 *	EVENT		an event of any group, by name or glob (sched_switch,
 *			sys_*)
 *
 * An event the kernel has but tring does not list yet (the core kernel's
 * generic events, which are offered by name: tring.rst, "Generic events")
 * is offered first when a spec names it, from tracefs's available_events.
 *
 * With -e, exactly the selected events are on while recording: the
 * others are switched off, and the buffer starts empty (what it held,
 * events not chosen among them, is dropped by rebuilding it). Every
 * enable file written is written back at exit, after a signal or a
 * failed start too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

/* Offered generic events are written to generic_events in batches. */
#define OFFER_BATCH	(64 * 1024)

/*
 * Is @de a directory of the directory @dfd? readdir() says so (debugfs
 * and tmpfs fill d_type), else fstatat(): a scan of a debug kernel's
 * hundreds of events makes no path walk from the root.
 */
static bool sub_dir(int dfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_name[0] == '.')
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !fstatat(dfd, de->d_name, &st, 0) && S_ISDIR(st.st_mode);
}

static int event_path(const struct tr_rec *r, const struct tr_event *ev,
		      const char *file, char *path, size_t size)
{
	if ((size_t)snprintf(path, size, "%s/events/%s/%s/%s", r->tring_dir,
			     ev->group, ev->name, file) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* The event @name of @group, whose directory @gfd holds it. */
static int add_event(struct tr_rec *r, int gfd, const char *group,
		     const char *name)
{
	struct tr_event *ev, *grown;
	char path[300], val[16];

	if (strlen(group) >= sizeof(ev->group) ||
	    strlen(name) >= sizeof(ev->name))
		return 0;
	if (r->nevents == r->events_cap) {
		r->events_cap = r->events_cap ? 2 * r->events_cap : 256;
		grown = realloc(r->events, r->events_cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		r->events = grown;
	}
	ev = &r->events[r->nevents];
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->group, group);
	strcpy(ev->name, name);
	/* A directory without an enable file is not an event. */
	snprintf(path, sizeof(path), "%s/enable", name);
	if (tr_read_small_at(gfd, path, val, sizeof(val)))
		return 0;
	ev->on = val[0] == '1';
	r->nevents++;
	return 0;
}

static int scan_group(struct tr_rec *r, int efd, const char *group)
{
	struct dirent *de;
	int ret = 0, gfd;
	DIR *d;

	gfd = openat(efd, group, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gfd < 0)
		return 0;
	d = fdopendir(gfd);
	if (!d) {
		close(gfd);
		return 0;
	}
	while (!ret && (de = readdir(d)))
		if (sub_dir(gfd, de))
			ret = add_event(r, gfd, group, de->d_name);
	closedir(d);
	return ret;
}

/* Every event under <tring>/events, with its enable state, into r->events. */
int tr_scan_events(struct tr_rec *r)
{
	char events[4096];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	r->nevents = 0;
	if (tr_join(events, sizeof(events), r->tring_dir, "events"))
		return -ENAMETOOLONG;
	d = opendir(events);
	if (!d) {
		ret = -errno;
		tr_err("cannot open %s: %s", events, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d)))
		if (sub_dir(dirfd(d), de))
			ret = scan_group(r, dirfd(d), de->d_name);
	closedir(d);
	if (ret)
		tr_err("out of memory listing the events");
	return ret;
}

static bool is_group(const struct tr_rec *r, const char *spec)
{
	unsigned int i;

	for (i = 0; i < r->nevents; i++)
		if (!strcmp(r->events[i].group, spec))
			return true;
	return false;
}

/* Does @spec select @group:@name? (see the top of this file) */
bool tr_spec_match(const struct tr_rec *r, const char *spec,
		   const char *group, const char *name)
{
	const char *colon = strchr(spec, ':');
	char gpat[128];

	if (!strcmp(spec, "all"))
		return true;
	if (colon) {
		if ((size_t)(colon - spec) >= sizeof(gpat))
			return false;
		memcpy(gpat, spec, colon - spec);
		gpat[colon - spec] = '\0';
		return !fnmatch(gpat, group, 0) && !fnmatch(colon + 1, name, 0);
	}
	if (is_group(r, spec))
		return !strcmp(spec, group);
	return !fnmatch(spec, name, 0);
}

bool tr_event_listed(const struct tr_rec *r, const char *group,
		     const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nevents; i++)
		if (!strcmp(r->events[i].group, group) &&
		    !strcmp(r->events[i].name, name))
			return true;
	return false;
}

/*
 * Does a spec name @group:@name, an event tring does not list yet? A
 * bare name is a group's too when it is the event's group.
 */
static bool any_spec_match(const struct tr_rec *r, const char *group,
			   const char *name)
{
	const char *spec;
	unsigned int i;

	for (i = 0; i < r->opt.nspecs; i++) {
		spec = r->opt.specs[i];
		if ((!strchr(spec, ':') && !strcmp(spec, group)) ||
		    tr_spec_match(r, spec, group, name))
			return true;
	}
	return false;
}

/*
 * tracefs's available_events, opened; NULL if there is none. tracefs is
 * mounted in debugfs's tracing/, or at /sys/kernel/tracing unless
 * --debugfs named another debugfs.
 */
FILE *tr_open_available(const struct tr_rec *r)
{
	char path[4096];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/tracing/available_events",
			     r->opt.debugfs) < sizeof(path)) {
		f = fopen(path, "re");
		if (f || r->opt.debugfs_given)
			return f;
	}
	return fopen("/sys/kernel/tracing/available_events", "re");
}

static int offer_flush(struct tr_rec *r, char *batch, size_t *len)
{
	char path[4096];
	int ret;

	if (!*len)
		return 0;
	batch[*len] = '\0';
	*len = 0;
	if (tr_join(path, sizeof(path), r->tring_dir, "events/generic_events"))
		return -ENAMETOOLONG;
	ret = r->ops->knob_write(path, batch);
	/* Some names may be refused (a dynamic event): the rest are in. */
	if (ret && ret != -EINVAL && ret != -ENOENT && ret != -EOPNOTSUPP)
		return ret;
	return 0;
}

/*
 * Offer the kernel events a spec names that tring does not list yet, then
 * list the events again. Without tracefs, or without generic events,
 * there is nothing to offer.
 */
static int offer_generic(struct tr_rec *r)
{
	static char batch[OFFER_BATCH + 1];
	char line[256], *colon;
	size_t len = 0, n;
	int ret = 0, offered = 0;
	FILE *f = tr_open_available(r);

	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (tr_event_listed(r, line, colon + 1) ||
		    !any_spec_match(r, line, colon + 1))
			continue;
		*colon = ':';
		n = strlen(line);
		if (len + n + 1 > OFFER_BATCH)
			ret = offer_flush(r, batch, &len);
		memcpy(batch + len, line, n);
		batch[len + n] = '\n';
		len += n + 1;
		offered++;
	}
	fclose(f);
	if (!ret)
		ret = offer_flush(r, batch, &len);
	if (ret)
		tr_err("offering %d generic events failed: %s", offered,
		       strerror(-ret));
	return ret ?: offered ? tr_scan_events(r) : 0;
}

/* Mark what the specs select; an unknown one is an error. */
static int select_events(struct tr_rec *r)
{
	unsigned int i, k, n;

	for (k = 0; k < r->opt.nspecs; k++) {
		for (i = 0, n = 0; i < r->nevents; i++) {
			struct tr_event *ev = &r->events[i];

			if (!tr_spec_match(r, r->opt.specs[k], ev->group, ev->name))
				continue;
			ev->want = true;
			/* A later -e's filter replaces an earlier one's. */
			if (r->opt.filters[k])
				ev->filter = r->opt.filters[k];
			n++;
		}
		if (!n) {
			tr_err("-e %s: no such event (tring-record --list shows them)",
			       r->opt.specs[k]);
			return TR_EXIT_USAGE;
		}
	}
	return 0;
}

static int write_enable(struct tr_rec *r, struct tr_event *ev, bool on)
{
	char path[4096];
	int ret;

	ret = event_path(r, ev, "enable", path, sizeof(path));
	if (!ret)
		ret = r->ops->knob_write(path, on ? "1" : "0");
	if (ret)
		tr_err("%sabling %s:%s failed: %s", on ? "en" : "dis",
		       ev->group, ev->name, strerror(-ret));
	return ret;
}

/* As write_enable(), but an event that is gone is not an error. */
static int write_enable_quiet(struct tr_rec *r, struct tr_event *ev, bool on)
{
	char path[4096], val[16];

	if (!event_path(r, ev, "enable", path, sizeof(path)) &&
	    tr_read_small_file(path, val, sizeof(val)) == -ENOENT)
		return 0;
	return write_enable(r, ev, on);
}

/* Off first, then on: the buffer never holds an event not asked for. */
static int apply_selection(struct tr_rec *r)
{
	unsigned int i, pass;
	int ret;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < r->nevents; i++) {
			struct tr_event *ev = &r->events[i];

			if (ev->want == ev->on || ev->want != pass)
				continue;
			/* Written back at exit, even if this write fails. */
			ev->changed = true;
			ret = write_enable(r, ev, ev->want);
			if (ret)
				return TR_EXIT_SETUP;
		}
	}
	return 0;
}

/* The filter in force, from what a filter file reads; "0" for none. */
static char *filter_in_force(char *text)
{
	char *p = strstr(text, "\nin force: ");

	p = p ? p + 11 : text;
	p[strcspn(p, "\n")] = '\0';
	return strdup(strcmp(p, "none") ? p : "0");
}

/* Say why the kernel refused @ev's filter: what its filter file reads. */
static void filter_refused(const struct tr_event *ev, const char *path,
			   int err)
{
	char why[4096];

	if (err == -EINVAL && !tr_read_small_file(path, why, sizeof(why)) &&
	    !strncmp(why, "error at", 8)) {
		why[strcspn(why, "\n")] = '\0';
		tr_err("--filter '%s' on %s:%s: %s", ev->filter, ev->group,
		       ev->name, why);
		return;
	}
	tr_err("--filter '%s' on %s:%s: %s", ev->filter, ev->group, ev->name,
	       strerror(-err));
}

/* Put each chosen event's --filter in force, keeping the one found. */
static int apply_filters(struct tr_rec *r)
{
	char path[4096], old[2048];
	unsigned int i;
	int ret;

	for (i = 0; i < r->nevents; i++) {
		struct tr_event *ev = &r->events[i];

		if (!ev->want || !ev->filter)
			continue;
		if (event_path(r, ev, "filter", path, sizeof(path)) ||
		    tr_read_small_file(path, old, sizeof(old))) {
			tr_err("--filter: %s:%s has no filter file",
			       ev->group, ev->name);
			return TR_EXIT_USAGE;
		}
		ev->old_filter = filter_in_force(old);
		if (!ev->old_filter)
			return TR_EXIT_SETUP;
		ret = r->ops->knob_write(path, ev->filter);
		if (ret) {
			filter_refused(ev, path, ret);
			free(ev->old_filter);
			ev->old_filter = NULL;
			return ret == -EINVAL ? TR_EXIT_USAGE : TR_EXIT_SETUP;
		}
	}
	return 0;
}

/*
 * Drop what the buffer holds: writing a knob rebuilds it, even with the
 * value it has.
 */
static int empty_buffer(struct tr_rec *r)
{
	char path[4096], size[32];
	int ret;

	ret = tr_join(path, sizeof(path), r->buf_dir, "buffer_size_kb");
	if (!ret)
		ret = tr_read_small_file(path, size, sizeof(size));
	if (!ret) {
		size[strcspn(size, "\n")] = '\0';
		ret = r->ops->knob_write(path, size);
	}
	if (ret)
		tr_err("cannot empty the buffer (%s): %s", path,
		       ret == -EBUSY ? "a stream is open (another reader?)" :
		       strerror(-ret));
	return ret ? TR_EXIT_SETUP : 0;
}

/**
 * tr_select_events - switch on exactly the events of the -e options
 * @r: the run; nothing to do without -e.
 *
 * Return: 0 or a TR_EXIT_* status; the enable files written so far are
 * recorded for tr_restore_events() either way.
 */
int tr_select_events(struct tr_rec *r)
{
	int ret;

	if (!r->opt.nspecs)
		return 0;
	if (r->opt.instance) {
		tr_err("-e chooses the default buffer's events, not an instance's");
		return TR_EXIT_USAGE;
	}
	/* Their events are then selected as -e GROUP:EVENT. */
	ret = tr_make_probes(r) ?: tr_set_functions(r);
	if (ret)
		return ret;
	/*
	 * The start's scan still holds unless probes made events since: a
	 * read of every enable file is seconds on a debug kernel with
	 * hundreds of generic events offered.
	 */
	ret = r->events_scanned && !r->opt.nprobes ? 0 : tr_scan_events(r);
	r->events_scanned = false;
	if (!ret)
		ret = offer_generic(r);
	if (ret)
		return TR_EXIT_SETUP;
	ret = select_events(r);
	if (!ret)
		ret = apply_filters(r);
	if (!ret)
		ret = apply_selection(r);
	if (!ret)
		ret = empty_buffer(r);
	if (!ret)
		tr_note(r, "%u events selected", tr_count_selected(r));
	return ret;
}

unsigned int tr_count_selected(const struct tr_rec *r)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->nevents; i++)
		n += r->events[i].want;
	return n;
}

/* Write back the filter @ev had; 0 or -1. */
static int restore_filter(struct tr_rec *r, struct tr_event *ev)
{
	char path[4096];
	int ret;

	ret = event_path(r, ev, "filter", path, sizeof(path));
	if (!ret && !access(path, F_OK))
		ret = r->ops->knob_write(path, ev->old_filter);
	if (ret)
		tr_err("restoring the filter of %s:%s ('%s') failed: %s",
		       ev->group, ev->name, ev->old_filter, strerror(-ret));
	free(ev->old_filter);
	ev->old_filter = NULL;
	return ret ? -1 : 0;
}

/**
 * tr_restore_events - write back every enable and filter file -e changed
 * @r: the run.
 *
 * Return: 0, or -1 when one could not be written back (said on stderr).
 */
int tr_restore_events(struct tr_rec *r)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < r->nevents; i++) {
		struct tr_event *ev = &r->events[i];

		if (ev->old_filter && restore_filter(r, ev))
			ret = -1;
		if (!ev->changed)
			continue;
		/* An event whose module left is gone: nothing to restore. */
		if (write_enable_quiet(r, ev, ev->on))
			ret = -1;
		ev->changed = false;
	}
	/* Disabled now: the probes --probe made can go. */
	if (tr_remove_probes(r) || tr_restore_functions(r))
		ret = -1;
	free(r->events);
	r->events = NULL;
	r->nevents = 0;
	r->events_cap = 0;
	return ret;
}

/* @ev's filter in force, into @buf ("0" for none); false without one. */
static bool read_filter(const struct tr_rec *r, const struct tr_event *ev,
			char *buf, size_t size)
{
	char path[4096], text[2048], *f;

	if (event_path(r, ev, "filter", path, sizeof(path)) ||
	    tr_read_small_file(path, text, sizeof(text)))
		return false;
	f = filter_in_force(text);
	if (!f)
		return false;
	snprintf(buf, size, "%s", f);
	free(f);
	return strcmp(buf, "0") != 0;
}

/* Will this run record @ev: chosen by an -e, or on when there is none? */
static bool recorded(const struct tr_rec *r, const struct tr_event *ev)
{
	unsigned int i;

	if (!r->opt.nspecs)
		return ev->on;
	for (i = 0; i < r->opt.nspecs; i++)
		if (tr_spec_match(r, r->opt.specs[i], ev->group, ev->name))
			return true;
	return false;
}

static void forget_events(struct tr_rec *r)
{
	free(r->events);
	r->events = NULL;
	r->nevents = 0;
	r->events_cap = 0;
}

/**
 * tr_events_leftovers - filters in force on the events a run records
 * @r: the run, before -e changed anything.
 * @example: gets the first such event, GROUP:EVENT.
 * @size: its size.
 *
 * Return: how many events have a filter, or -errno.
 */
int tr_events_leftovers(struct tr_rec *r, char *example, size_t size)
{
	char text[64], path[4096];
	unsigned int i;
	int n = 0;

	/* No events (an old module): nothing to say, no error either. */
	if (tr_join(path, sizeof(path), r->tring_dir, "events") ||
	    access(path, F_OK) || tr_scan_events(r))
		return -ENOENT;
	for (i = 0; i < r->nevents; i++) {
		/*
		 * Only the events this run records can lose events to a
		 * filter: one file read each, not one per event (hundreds
		 * more with generic events offered).
		 */
		if (!recorded(r, &r->events[i]) ||
		    !read_filter(r, &r->events[i], text, sizeof(text)))
			continue;
		if (!n++)
			snprintf(example, size, "%s:%s", r->events[i].group,
				 r->events[i].name);
	}
	/* Kept for tr_select_events(): nothing changed them yet. */
	r->events_scanned = true;
	return n;
}

/**
 * tr_reset_events - every event of the default buffer off, no filter
 * @r: the run (--reset).
 * @disabled: gets how many enables were switched off.
 * @filters: gets how many filters were removed.
 *
 * Return: 0, or -1 when a file could not be written (said on stderr).
 */
int tr_reset_events(struct tr_rec *r, unsigned int *disabled,
		    unsigned int *filters)
{
	char path[4096], text[64];
	unsigned int i;
	int ret = 0;

	*disabled = *filters = 0;
	if (tr_scan_events(r))
		return -1;
	for (i = 0; i < r->nevents; i++) {
		struct tr_event *ev = &r->events[i];

		if (read_filter(r, ev, text, sizeof(text))) {
			if (event_path(r, ev, "filter", path, sizeof(path)) ||
			    r->ops->knob_write(path, "0"))
				ret = -1;
			else
				(*filters)++;
		}
		if (!ev->on)
			continue;
		if (write_enable(r, ev, false))
			ret = -1;
		else
			(*disabled)++;
	}
	forget_events(r);
	return ret;
}
