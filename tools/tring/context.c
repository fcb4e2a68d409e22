// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: per-event contexts (-C, --callstack), and the symbol
 * files that make their stacks readable: "kallsyms" (the kernel's text
 * symbols, at the end of the run) and "maps" (every process's executable
 * file mappings, at the start and at the end), beside the trace.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* Append @name to the comma-joined list; TR_EXIT_USAGE if it is full. */
static int add_context(struct tr_opts *o, const char *name, size_t len)
{
	size_t n = strlen(o->contexts);

	if (n + len + 2 > sizeof(o->contexts)) {
		tr_err("-C: the contexts take more than %zu bytes",
		       sizeof(o->contexts) - 1);
		return TR_EXIT_USAGE;
	}
	if (n)
		o->contexts[n++] = ',';
	memcpy(o->contexts + n, name, len);
	o->contexts[n + len] = '\0';
	if (len == 16 && !strncmp(name, "callstack-kernel", len))
		o->kstack = true;
	if (len == 14 && !strncmp(name, "callstack-user", len))
		o->ustack = true;
	return 0;
}

/**
 * tr_parse_context - take one -C NAME[,NAME...]
 * @o: the options.
 * @arg: context names, as the kernel's context file takes them (LTTng's).
 *
 * The kernel checks the names when they are written.
 *
 * Return: 0, or TR_EXIT_USAGE (said on stderr).
 */
int tr_parse_context(struct tr_opts *o, const char *arg)
{
	const char *p = arg;
	size_t len;
	int ret;

	if (!*arg) {
		tr_err("-C: expected NAME[,NAME...]");
		return TR_EXIT_USAGE;
	}
	while (*p) {
		len = strcspn(p, ",");
		if (!len || strcspn(p, " \t\n") < len) {
			tr_err("-C '%s': expected NAME[,NAME...]", arg);
			return TR_EXIT_USAGE;
		}
		ret = add_context(o, p, len);
		if (ret)
			return ret;
		p += len + (p[len] == ',');
	}
	return 0;
}

/**
 * tr_parse_callstack - take --callstack kernel|user|both
 * @o: the options.
 * @arg: which.
 *
 * Return: 0, or TR_EXIT_USAGE (said on stderr).
 */
int tr_parse_callstack(struct tr_opts *o, const char *arg)
{
	bool k = !strcmp(arg, "kernel") || !strcmp(arg, "both");
	bool u = !strcmp(arg, "user") || !strcmp(arg, "both");
	int ret = 0;

	if (!k && !u) {
		tr_err("--callstack '%s': expected kernel, user or both", arg);
		return TR_EXIT_USAGE;
	}
	if (k && !o->kstack)
		ret = add_context(o, "callstack-kernel", 16);
	if (!ret && u && !o->ustack)
		ret = add_context(o, "callstack-user", 14);
	return ret;
}

/* Write @len bytes of @text to the recorded buffer's context file. */
static int write_context(struct tr_rec *r, const char *text, size_t len)
{
	char path[4200];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/context", r->buf_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* An empty write is no write: the empty list is a line. */
	n = write(fd, len ? text : "\n", len ? len : 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	return close(fd) ? -errno : 0;
}

/**
 * tr_set_context - put the -C contexts in force, before the streams open
 * @r: the run; the list found is kept for tr_restore_context().
 *
 * Return: 0, or a TR_EXIT_* status (said).
 */
int tr_set_context(struct tr_rec *r)
{
	const char *want = r->opt.contexts;
	char path[4200];
	int ret;

	if (!*want)
		return 0;
	/* The default buffer's, or the instance's with --instance. */
	snprintf(path, sizeof(path), "%s/context", r->buf_dir);
	ret = tr_read_whole_file(path, &r->old_ctx, &r->old_ctx_len);
	if (ret) {
		tr_err("-C: cannot read %s: %s (a tring without contexts%s?)",
		       path, strerror(-ret),
		       r->opt.instance ? " for instances, or a frozen one" : "");
		return TR_EXIT_SETUP;
	}
	ret = write_context(r, want, strlen(want));
	if (ret == -EBUSY) {
		tr_err("-C: the buffer is in use (a stream of it is open or mapped)");
		return TR_EXIT_SETUP;
	}
	if (ret) {
		tr_err("-C %s: refused (%s): the kernel log (dmesg) says why",
		       want, strerror(-ret));
		return TR_EXIT_USAGE;
	}
	r->ctx_changed = true;
	return 0;
}

/**
 * tr_restore_context - put back the list found at setup, streams closed
 * @r: the run.
 *
 * Return: 0, or -1 (said).
 */
int tr_restore_context(struct tr_rec *r)
{
	int ret = 0;

	if (r->ctx_changed) {
		ret = write_context(r, r->old_ctx ?: "", r->old_ctx_len);
		if (ret)
			tr_err("restoring the contexts failed: %s",
			       strerror(-ret));
		r->ctx_changed = false;
	}
	free(r->old_ctx);
	r->old_ctx = NULL;
	return ret ? -1 : 0;
}

/* Copy /proc/kallsyms's text symbols to @out. */
static int copy_kallsyms(FILE *out)
{
	char line[512], type;
	FILE *in = fopen("/proc/kallsyms", "re");
	int ret = 0;

	if (!in)
		return -errno;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%*s %c", &type) == 1 &&
		    (type == 't' || type == 'T') && fputs(line, out) < 0) {
			ret = -EIO;
			break;
		}
	}
	fclose(in);
	return ret;
}

/* @pid's executable file mappings, "PID START END OFFSET PATH", to @out. */
static void copy_maps(FILE *out, const char *pid)
{
	char path[64], line[4400], perm[8], file[4096];
	unsigned long start, end, off;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	in = fopen(path, "re");
	if (!in)
		return;	/* gone meanwhile, or a kernel thread */
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perm, &off, file) == 5 && perm[2] == 'x' &&
		    file[0] == '/')
			fprintf(out, "%s %lx %lx %lx %s\n", pid, start, end, off,
				file);
	}
	fclose(in);
}

/* Every process's mappings, appended to @out. */
static int copy_all_maps(FILE *out)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			copy_maps(out, de->d_name);
	closedir(d);
	return ferror(out) ? -EIO : 0;
}

/* Open DIR/@name: made at the start, appended to at the end. */
static FILE *open_symbols(struct tr_rec *r, const char *name, bool final)
{
	int fd;

	if (final)
		fd = openat(r->out_dirfd, name, O_WRONLY | O_APPEND |
			    O_NOFOLLOW | O_CLOEXEC);
	else
		fd = tr_create_file(r, r->out_dirfd, name);
	return fd < 0 ? NULL : fdopen(fd, "a");
}

/**
 * tr_write_symbols - the files that name the stacks' addresses
 * @r: the run.
 * @final: at the end (kallsyms, and maps again) or at the start (maps).
 *
 * Failures are warnings: the trace is whole without them.
 */
void tr_write_symbols(struct tr_rec *r, bool final)
{
	FILE *f;
	int ret;

	if (r->net || r->out_dirfd < 0)
		return;
	if (r->opt.kstack && final) {
		f = open_symbols(r, "kallsyms", false);
		ret = f ? copy_kallsyms(f) : -errno;
		if ((f && fclose(f)) || ret)
			tr_warn("cannot write %s/kallsyms: the kernel stacks stay addresses",
				r->out_dir);
	}
	if (r->opt.ustack) {
		f = open_symbols(r, "maps", final);
		ret = f ? copy_all_maps(f) : -errno;
		if ((f && fclose(f)) || ret)
			tr_warn("cannot write %s/maps: the user stacks stay addresses",
				r->out_dir);
	}
}
