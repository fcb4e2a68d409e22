// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: --list [GLOB], the events -e can choose, with their
 * fields: tring's (events.c scans them), then the kernel's that tring
 * does not list yet (tracefs's available_events), then the dynamic
 * probes in force.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/*
 * The fields of a format file, tring's or tracefs's: its "field:TYPE
 * NAME;" lines, without the common ones but common_pid, which a filter
 * may name.
 */
static void print_fields(const char *path)
{
	char line[512], *field, *end;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		field = strstr(line, "field:");
		if (!field || (strstr(field, "common_") &&
			       !strstr(field, "common_pid;")))
			continue;
		field += 6;
		end = strchr(field, ';');
		if (end)
			*end = '\0';
		printf("\t%s\n", field);
	}
	fclose(f);
}

static void list_one(const struct tr_rec *r, const char *group,
		     const char *name, bool in_tring)
{
	char path[4096];
	int n;

	printf("%s:%s%s\n", group, name, in_tring ? "" : "  (generic, offered by -e)");
	if (in_tring)
		n = snprintf(path, sizeof(path), "%s/events/%s/%s/format",
			     r->tring_dir, group, name);
	else
		n = snprintf(path, sizeof(path), "%s/tracing/events/%s/%s/format",
			     r->opt.debugfs, group, name);
	/* tracefs where tr_open_available() found it. */
	if (!in_tring && (n >= (int)sizeof(path) || access(path, F_OK)) &&
	    !r->opt.debugfs_given)
		n = snprintf(path, sizeof(path),
			     "/sys/kernel/tracing/events/%s/%s/format", group,
			     name);
	if (n < (int)sizeof(path))
		print_fields(path);
}

/* The contexts -C can add on this machine, from available_contexts. */
static void list_contexts(const struct tr_rec *r)
{
	char path[4200], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_contexts", r->tring_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	printf("\ncontexts (-C NAME[,NAME...]):\n");
	while (fgets(line, sizeof(line), f))
		printf("\t%s", line);
	fclose(f);
}

/* Does the --list pattern take @group:@name? */
static bool list_match(const struct tr_rec *r, const char *group,
		       const char *name)
{
	const char *pat = r->opt.list_glob;

	return !pat || tr_spec_match(r, pat, group, name);
}

/**
 * tr_list_events - print the events -e can choose, with their fields
 * @r: the run (environment checked).
 *
 * tring's events first, then the kernel's events tring does not list yet
 * (from tracefs's available_events), each with its fields, one per line;
 * without a pattern, then the dynamic probes in force.
 *
 * Return: 0, or a TR_EXIT_* status.
 */
int tr_list_events(struct tr_rec *r)
{
	char line[256], *colon;
	unsigned int i;
	FILE *f;

	if (tr_scan_events(r))
		return TR_EXIT_SETUP;
	for (i = 0; i < r->nevents; i++)
		if (list_match(r, r->events[i].group, r->events[i].name))
			list_one(r, r->events[i].group, r->events[i].name, true);
	f = tr_open_available(r);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (!tr_event_listed(r, line, colon + 1) && list_match(r, line, colon + 1))
			list_one(r, line, colon + 1, false);
	}
	if (f)
		fclose(f);
	if (!r->opt.list_glob) {
		tr_list_probes(r);
		list_contexts(r);
	}
	return fflush(stdout) ? TR_EXIT_OUTPUT : 0;
}
