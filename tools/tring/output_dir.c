// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's output directory: DIR made (its owner the directory's
 * above, for a recording run with sudo), an earlier recording's files in
 * it removed or refused, the trace's directories opened, files created
 * in them; or, with -o net://, the relay's session opened instead
 * (relay.c); and on failure what the run made taken back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

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

/*
 * Run through sudo, as root: the files go to the user who ran it
 * (SUDO_UID, SUDO_GID), as LTTng gives a session's files to its user.
 */
static void find_owner(struct tr_rec *r)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long uid, gid;
	char *end;

	r->owner_uid = (uid_t)-1;
	r->owner_gid = (gid_t)-1;
	if (r->ops->euid() != 0 || !u || !*u)
		return;
	uid = strtoul(u, &end, 10);
	if (*end || uid >= (uid_t)-1)
		return;
	r->owner_uid = uid;
	gid = g && *g ? strtoul(g, &end, 10) : (gid_t)-1;
	if (g && *g && !*end && gid < (gid_t)-1)
		r->owner_gid = gid;
}

/**
 * tr_give_away - an output file or directory to the sudo user, if any
 * @r: the run.
 * @fd: open on it.
 */
void tr_give_away(struct tr_rec *r, int fd)
{
	if (r->owner_uid == (uid_t)-1 ||
	    !fchown(fd, r->owner_uid, r->owner_gid) || r->chown_warned)
		return;
	tr_warn("cannot give the output to uid %u (SUDO_UID): %s",
		(unsigned int)r->owner_uid, strerror(errno));
	r->chown_warned = true;
}

/**
 * tr_create_file - create an output file in a directory of the run
 * @r: the run.
 * @dirfd: DIR or DIR/kernel, open.
 * @name: the file's name there.
 *
 * What has that name is removed first, and the file is made anew with
 * O_EXCL | O_NOFOLLOW: a symbolic link planted there (by the owner of
 * DIR, who may not be root) is never followed. Mode 0600, like every
 * output file: kernel data, as private as debugfs.
 *
 * Return: the file descriptor, or -errno.
 */
int tr_create_file(struct tr_rec *r, int dirfd, const char *name)
{
	int fd;

	if (unlinkat(dirfd, name, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	tr_give_away(r, fd);
	return fd;
}

/* DIR and DIR/kernel, open: files are made relative to them. */
static int open_dirs(struct tr_rec *r)
{
	r->out_dirfd = open(r->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->out_dirfd >= 0)
		r->trace_dirfd = openat(r->out_dirfd, r->trace_sub,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
	if (r->out_dirfd < 0 || r->trace_dirfd < 0) {
		tr_err("cannot open %s: %s", r->out_dirfd < 0 ? r->out_dir :
		       r->trace_dir, strerror(errno));
		return TR_EXIT_USAGE;
	}
	if (r->out_created)
		tr_give_away(r, r->out_dirfd);
	if (r->trace_created)
		tr_give_away(r, r->trace_dirfd);
	return 0;
}

/* The output directories' descriptors, at the very end. */
void tr_close_dirs(struct tr_rec *r)
{
	if (r->out_dirfd >= 0)
		close(r->out_dirfd);
	if (r->trace_dirfd >= 0)
		close(r->trace_dirfd);
	r->out_dirfd = r->trace_dirfd = -1;
}

/* Make the directory @path is in (DIR/chunk_0 for DIR/chunk_0/kernel). */
static void mkdir_parent(const char *path)
{
	char parent[4096], *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
}

/* A file of the trace (DIR/kernel, or DIR in the old flat layout). */
static bool is_trace_file(const char *name)
{
	const char *p;

	if (!strcmp(name, "metadata") || !strcmp(name, ".metadata.tmp"))
		return true;
	if (strncmp(name, "stream_", 7) || !name[7])
		return false;
	for (p = name + 7; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * Files of ours that --force replaces: in DIR/kernel the trace's; in DIR
 * the summary, and the trace's files of the flat layout that tring-record
 * wrote before the trace moved to DIR/kernel (left there, they would make
 * DIR itself a second, stale trace for a CTF reader).
 */
static bool is_our_file(const char *name, bool top)
{
	return is_trace_file(name) ||
	       (top && !strcmp(name, ".tring-record.summary"));
}

static void remove_ours(const char *dir, bool top);

/* chunk_<N>: a chunk of a --rotate recording. */
static bool is_chunk(const char *name)
{
	return !strncmp(name, "chunk_", 6) && name[6] &&
	       strspn(name + 6, "0123456789") == strlen(name + 6);
}

/* DIR/chunk_<N>: its trace's files of ours, then it, if left empty. */
static void remove_chunk(const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name,
			     TR_TRACE_SUBDIR) >= sizeof(path))
		return;
	remove_ours(path, false);
	rmdir(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/*
 * Scan @dir (DIR, @top, or DIR/kernel): note whether it holds anything
 * in *@nonempty, and with --force remove the files of ours an earlier
 * run left (a stale stream_7 from a run on more CPUs would otherwise
 * become part of the trace) and nothing else. In DIR/kernel, set
 * *@others when files that are not ours would be taken for streams.
 */
static int scan_dir(struct tr_rec *r, const char *dir, bool top,
		    bool *nonempty, bool *others)
{
	struct dirent *de;
	char path[4096];
	DIR *d;

	d = opendir(dir);
	if (!d) {
		tr_err("cannot open %s: %s", dir, strerror(errno));
		return TR_EXIT_USAGE;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		*nonempty = true;
		/* DIR/kernel itself: scanned on its own. */
		if (top && !strcmp(de->d_name, TR_TRACE_SUBDIR))
			continue;
		/* --force: an earlier run's chunks, stale parts of this trace. */
		if (top && is_chunk(de->d_name)) {
			if (r->opt.force)
				remove_chunk(dir, de->d_name);
			continue;
		}
		if (!is_our_file(de->d_name, top)) {
			/* CTF readers skip hidden files, not the others. */
			if (!top && de->d_name[0] != '.')
				*others = true;
			continue;
		}
		if (!r->opt.force)
			continue;
		if (tr_join(path, sizeof(path), dir, de->d_name) ||
		    unlink(path)) {
			tr_err("cannot remove %s: %s", path, strerror(errno));
			closedir(d);
			return TR_EXIT_USAGE;
		}
	}
	closedir(d);
	return 0;
}

/*
 * DIR must be empty unless --force. DIR/kernel is made here, so that
 * every later step finds it.
 */
static int scan_output(struct tr_rec *r)
{
	bool others = false, nonempty = false, trace_nonempty = false;
	struct stat st;
	int ret;

	ret = scan_dir(r, r->out_dir, true, &nonempty, &others);
	if (ret)
		return ret;
	if (!lstat(r->trace_dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			tr_err("%s exists and is not a directory",
			       r->trace_dir);
			return TR_EXIT_USAGE;
		}
		if (r->opt.force) {
			ret = scan_dir(r, r->trace_dir, false, &trace_nonempty,
				       &others);
			if (ret)
				return ret;
		}
	}
	if (nonempty && !r->opt.force) {
		tr_err("output directory %s is not empty (use --force to record into it)",
		       r->out_dir);
		return TR_EXIT_USAGE;
	}
	if (others)
		tr_warn("%s holds files that are not part of the trace: CTF readers will take them for streams",
			r->trace_dir);
	/* --rotate: DIR/chunk_0 first. */
	if (strcmp(r->trace_sub, TR_TRACE_SUBDIR))
		mkdir_parent(r->trace_dir);
	if (mkdir(r->trace_dir, 0755)) {
		if (errno != EEXIST) {
			tr_err("cannot create %s: %s", r->trace_dir,
			       strerror(errno));
			return TR_EXIT_USAGE;
		}
	} else {
		r->trace_created = true;
	}
	return 0;
}

/* -o net://: the session on the relay, instead of DIR. */
static int prepare_relay(struct tr_rec *r)
{
	static struct tr_relay relay;
	int ret;

	if (tr_relay_parse_url(&relay, r->opt.output))
		return TR_EXIT_USAGE;
	snprintf(relay.session, sizeof(relay.session), "%s",
		 r->opt.session ?: r->opt.default_output);
	relay.session_given = r->opt.session;
	relay.live_us = r->opt.live_us;
	relay.tracefile_size = r->opt.rotate_size;
	if (r->opt.rotate_size && r->opt.max_size)
		relay.tracefile_count = r->opt.max_size / r->opt.rotate_size ?: 1;
	r->net = &relay;
	snprintf(r->out_dir, sizeof(r->out_dir), "%s", r->opt.output);
	ret = tr_relay_connect(r);
	if (ret)
		r->net = NULL;
	return ret;
}

int tr_prepare_output(struct tr_rec *r)
{
	struct stat st;
	int ret;

	if (r->opt.net)
		return prepare_relay(r);

	if ((size_t)snprintf(r->out_dir, sizeof(r->out_dir), "%s",
			     r->opt.output) >= sizeof(r->out_dir) - 64) {
		tr_err("output path too long");
		return TR_EXIT_USAGE;
	}
	tr_chunk_start(r);
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
	find_owner(r);
	ret = scan_output(r);
	if (!ret)
		ret = open_dirs(r);
	/* Whatever it made is taken back on failure. */
	r->out_prepared = !ret || r->out_created;
	return ret;
}

/* Remove the files of ours in @dir. */
static void remove_ours(const char *dir, bool top)
{
	struct dirent *de;
	char path[4096];
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (is_our_file(de->d_name, top) &&
		    !tr_join(path, sizeof(path), dir, de->d_name))
			unlink(path);
	}
	closedir(d);
}

/* Setup failed: take back the files and the directories this run made. */
void tr_remove_output(struct tr_rec *r)
{
	if (r->net)
		tr_close_outputs(r);
	if (!r->out_prepared)
		return;
	tr_close_outputs(r);
	remove_ours(r->trace_dir, false);
	if (r->trace_created) {
		rmdir(r->trace_dir);
		/* --rotate: DIR/chunk_0, if empty. */
		if (strcmp(r->trace_sub, TR_TRACE_SUBDIR) &&
		    strrchr(r->trace_dir, '/')) {
			*strrchr(r->trace_dir, '/') = '\0';
			rmdir(r->trace_dir);
		}
	}
	remove_ours(r->out_dir, true);
	if (r->out_created)
		rmdir(r->out_dir);
}
