// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: --probe DEF, dynamic probes made for one recording.
 *
 * DEF is a line of tring's kprobe_events or uprobe_events (ftrace's
 * syntax); a uprobe's target may name a function, PATH:SYMBOL[+OFFS],
 * which is resolved from the file's symbol table (elf.c) into
 * PATH:0xOFFSET before the line is written. Each probe is written at
 * setup, before the events are chosen: its event is then selected as if
 * by -e GROUP:EVENT (its name read back from the file's listing), and a
 * --filter right after --probe applies to it. At exit, after the
 * enables are restored, every probe made is removed ("-:GROUP/EVENT"),
 * also after Ctrl-C or a failed start.
 *
 * --function GLOB: the patterns are written to <tring>/functions (emptied
 * first) and the event ftrace:function selected; the set found there is
 * written back at exit.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/**
 * tr_parse_probe - take one --probe
 * @o: the options.
 * @arg: the definition.
 *
 * Return: 0, or TR_EXIT_USAGE (said on stderr).
 */
int tr_parse_probe(struct tr_opts *o, const char *arg)
{
	size_t len = strlen(arg);

	if (!len || len > TR_PROBE_MAX_LINE ||
	    (arg[0] != 'p' && arg[0] != 'r') || strchr(arg, '\n')) {
		tr_err("--probe '%s': expected one kprobe_events or uprobe_events line (p... or r...)",
		       arg);
		return TR_EXIT_USAGE;
	}
	if (o->nprobes == TR_MAX_PROBES || o->nspecs == TR_MAX_SPECS) {
		tr_err("--probe '%s': more than %u probes or 64 events", arg,
		       TR_MAX_PROBES);
		return TR_EXIT_USAGE;
	}
	o->probe_defs[o->nprobes] = arg;
	/* Filled with GROUP:EVENT once the probe is made. */
	o->probe_specs[o->nprobes][0] = '\0';
	o->specs[o->nspecs++] = o->probe_specs[o->nprobes++];
	return 0;
}

/* The second word of @def (its target): *@at and its length. */
static size_t target_of(const char *def, const char **at)
{
	const char *s = def + strcspn(def, " \t");

	s += strspn(s, " \t");
	*at = s;
	return strcspn(s, " \t");
}

/*
 * @def with a uprobe's PATH:SYMBOL[+OFFS] made PATH:0xOFFSET, into @out.
 * Return: 0, or TR_EXIT_USAGE (said).
 */
static int resolve_target(const char *def, char *out, size_t size)
{
	const char *t, *tgt, *colon, *why = NULL;
	char path[4096], sym[256];
	size_t tlen = target_of(def, &tgt), slen;
	unsigned long add = 0;
	uint64_t off;
	int n;

	colon = memrchr(tgt, ':', tlen);
	if (!memchr(tgt, '/', tlen) || !colon ||
	    isdigit((unsigned char)colon[1]))
		return snprintf(out, size, "%s", def) < (int)size ? 0 : TR_EXIT_USAGE;
	slen = strcspn(colon + 1, "+%( \t");
	if ((size_t)(colon - tgt) >= sizeof(path) || slen >= sizeof(sym) ||
	    !slen)
		goto bad;
	memcpy(path, tgt, colon - tgt);
	path[colon - tgt] = '\0';
	memcpy(sym, colon + 1, slen);
	sym[slen] = '\0';
	t = colon + 1 + slen;
	if (*t == '+')
		add = strtoul(t + 1, (char **)&t, 0);
	if (tr_elf_offset(path, sym, &off, &why))
		goto bad;
	n = snprintf(out, size, "%.*s%s:0x%llx%s", (int)(tgt - def), def, path,
		     (unsigned long long)(off + add), t);
	return n < (int)size ? 0 : TR_EXIT_USAGE;
bad:
	tr_err("--probe '%s': %s%s%s", def, why ? sym : "cannot read the target",
	       why ? ": " : "", why ? why : "");
	return TR_EXIT_USAGE;
}

/* The last line of @path: the probe just made, "X:GROUP/EVENT ...". */
static int last_probe(const char *path, char *group, char *event)
{
	char line[TR_PROBE_MAX_LINE + 64], last[160] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		snprintf(last, sizeof(last), "%.*s", (int)strcspn(line, " \n"),
			 line);
	fclose(f);
	return sscanf(last, "%*[^:]:%63[^/]/%63s", group, event) == 2 ?
	       0 : -ENOENT;
}

/* Make probe @k; 0 or a TR_EXIT_* status. */
static int make_one(struct tr_rec *r, unsigned int k)
{
	struct tr_probe *p = &r->probes[k];
	const char *t, *def = r->opt.probe_defs[k];
	char line[TR_PROBE_MAX_LINE + 1], path[4200];
	char spec[sizeof(r->opt.probe_specs[0])];
	size_t tlen = target_of(def, &t);
	int ret;

	ret = resolve_target(def, line, sizeof(line));
	if (ret)
		return ret;
	p->file = memchr(t, '/', tlen) ? "uprobe_events" : "kprobe_events";
	snprintf(path, sizeof(path), "%s/%s", r->tring_dir, p->file);
	ret = r->ops->knob_write(path, line);
	if (ret) {
		tr_err("--probe '%s': refused (%s): the kernel log (dmesg) says where",
		       def, strerror(-ret));
		return ret == -ENOENT && access(path, F_OK) ? TR_EXIT_SETUP :
		       TR_EXIT_USAGE;
	}
	p->made = true;
	if (last_probe(path, p->group, p->event)) {
		tr_err("--probe '%s': made, but not listed in %s", def, path);
		return TR_EXIT_SETUP;
	}
	snprintf(spec, sizeof(spec), "%s:%s", p->group, p->event);
	memcpy(r->opt.probe_specs[k], spec, sizeof(spec));
	tr_note(r, "probe %s:%s made", p->group, p->event);
	return 0;
}

/**
 * tr_make_probes - make the --probe probes, before the events are chosen
 * @r: the run.
 *
 * Return: 0 or a TR_EXIT_* status (said); those made are removed by
 * tr_remove_probes() either way.
 */
int tr_make_probes(struct tr_rec *r)
{
	unsigned int k;
	int ret;

	for (k = 0; k < r->opt.nprobes; k++) {
		ret = make_one(r, k);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tr_remove_probes - remove the probes this run made
 * @r: the run; their events are disabled already.
 *
 * Return: 0, or -1 when one could not be removed (said).
 */
int tr_remove_probes(struct tr_rec *r)
{
	char path[4200], line[160];
	unsigned int k;
	int ret = 0, err;

	for (k = 0; k < r->opt.nprobes; k++) {
		struct tr_probe *p = &r->probes[k];

		if (!p->made || !p->group[0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->tring_dir, p->file);
		snprintf(line, sizeof(line), "-:%s/%s", p->group, p->event);
		err = r->ops->knob_write(path, line);
		if (err) {
			tr_err("removing probe %s:%s failed: %s", p->group,
			       p->event, strerror(-err));
			ret = -1;
		}
		p->made = false;
	}
	return ret;
}

/**
 * tr_list_probes - print the dynamic probes in force, for --list
 * @r: the run.
 *
 * "probe: DEFINITION" for each line of kprobe_events and uprobe_events.
 */
void tr_list_probes(struct tr_rec *r)
{
	static const char *const files[] = { "kprobe_events", "uprobe_events" };
	char path[4200], line[TR_PROBE_MAX_LINE + 64];
	unsigned int i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", r->tring_dir, files[i]);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			printf("probe: %s", line);
		if (f)
			fclose(f);
	}
}

/**
 * tr_parse_function - take one --function GLOB
 * @o: the options.
 * @arg: the pattern (functions' syntax: a glob, or !GLOB to leave out).
 *
 * The first also selects the event ftrace:function as -e does.
 *
 * Return: 0, or TR_EXIT_USAGE (said on stderr).
 */
int tr_parse_function(struct tr_opts *o, const char *arg)
{
	if (!*arg || strlen(arg) > 200 || strpbrk(arg, " \t\n")) {
		tr_err("--function '%s': expected one glob of function names",
		       arg);
		return TR_EXIT_USAGE;
	}
	if (o->nfuncs == TR_MAX_PROBES ||
	    (!o->nfuncs && o->nspecs == TR_MAX_SPECS)) {
		tr_err("--function '%s': more than %u patterns or 64 events",
		       arg, TR_MAX_PROBES);
		return TR_EXIT_USAGE;
	}
	if (!o->nfuncs)
		o->specs[o->nspecs++] = "ftrace:function";
	o->funcs[o->nfuncs++] = arg;
	return 0;
}

/* Write @len bytes of @text to <tring>/functions, emptied first (O_TRUNC). */
static int write_functions(struct tr_rec *r, const char *text, size_t len)
{
	char path[4200];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/functions", r->tring_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The file takes whole words, at most 64 KiB a write. */
	while (len) {
		size_t chunk = len <= 65536 ? len : 65536;

		while (chunk < len && text[chunk - 1] != '\n')
			chunk--;
		n = write(fd, text, chunk);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		text += n;
		len -= n;
	}
	return close(fd) ? -errno : 0;
}

/**
 * tr_set_functions - put the --function patterns in force
 * @r: the run; the set found is kept for tr_restore_functions().
 *
 * Return: 0, or a TR_EXIT_* status (said).
 */
int tr_set_functions(struct tr_rec *r)
{
	char path[4200], text[TR_MAX_PROBES * 202];
	size_t n = 0;
	unsigned int i;
	int ret;

	if (!r->opt.nfuncs)
		return 0;
	snprintf(path, sizeof(path), "%s/functions", r->tring_dir);
	ret = tr_read_whole_file(path, &r->old_funcs, &r->old_funcs_len);
	if (ret) {
		tr_err("--function: cannot read %s: %s", path, strerror(-ret));
		return TR_EXIT_SETUP;
	}
	for (i = 0; i < r->opt.nfuncs; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s\n",
			      r->opt.funcs[i]);
	r->funcs_changed = true;
	ret = write_functions(r, text, n);
	if (ret) {
		tr_err("--function %s: refused (%s): the kernel log (dmesg) says why",
		       r->opt.funcs[0], strerror(-ret));
		return TR_EXIT_USAGE;
	}
	return 0;
}

/**
 * tr_restore_functions - put back the set of functions found at setup
 * @r: the run.
 *
 * Return: 0, or -1 (said).
 */
int tr_restore_functions(struct tr_rec *r)
{
	int ret = 0;

	if (r->funcs_changed) {
		ret = write_functions(r, r->old_funcs ? r->old_funcs : "",
				      r->old_funcs_len);
		if (ret)
			tr_err("restoring the functions traced failed: %s",
			       strerror(-ret));
		r->funcs_changed = false;
	}
	free(r->old_funcs);
	r->old_funcs = NULL;
	return ret ? -1 : 0;
}
