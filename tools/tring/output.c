// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record output: the output directory (DIR, with the trace in
 * DIR/kernel as an LTTng session lays it out), the stream files and the
 * writes to them, and the CTF metadata; or, with -o net://, the same
 * steps handed to the relay's session (relay.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

/* <trace>/stream_<cpu> for @c; 0 or a TR_EXIT_* status. */
int tr_create_output(struct tr_rec *r, struct tr_cpu *c)
{
	char name[32];

	if (r->net)
		return tr_relay_add_stream(r, c);

	snprintf(name, sizeof(name), "stream_%u", c->cpu);
	c->file_bytes = 0;
	c->out_fd = tr_create_file(r, r->trace_dirfd, name);
	if (c->out_fd < 0) {
		tr_err("cannot create %s/%s: %s", r->trace_dir, name,
		       strerror(-c->out_fd));
		c->out_fd = -1;
		return TR_EXIT_OUTPUT;
	}
	return 0;
}

/* The stream files of the CPUs open; one without a ring gets its later. */
int tr_create_outputs(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].absent)
			continue;
		ret = tr_create_output(r, &r->cpus[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Write all of @iov, going on after short writes. @done gets the bytes
 * written, also when an error stops it.
 */
static int write_all(struct tr_rec *r, int fd, struct iovec *iov, int cnt,
		     size_t *done)
{
	ssize_t n;

	*done = 0;
	while (cnt > 0) {
		n = r->ops->writev(fd, iov, cnt);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		*done += n;
		tr_iov_advance(&iov, &cnt, n);
	}
	return 0;
}

/* Copy a file (debugfs metadata) to DIR/kernel/@dst, with a fixed buffer. */
static int copy_file(struct tr_rec *r, const char *src, const char *dst)
{
	static char buf[65536];
	struct iovec iov;
	int in, out, ret = 0;
	size_t done;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = tr_create_file(r, r->trace_dirfd, dst);
	if (out < 0) {
		close(in);
		return out;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : 0;
			break;
		}
		iov.iov_base = buf;
		iov.iov_len = n;
		ret = write_all(r, out, &iov, 1, &done);
		if (ret)
			break;
	}
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

/*
 * Copy the metadata at the start, so that an interrupted run still has
 * it; and again at the end (through a temporary file, keeping the first
 * copy if that fails), for events described while recording.
 */
/*
 * The metadata to the relay: read whole (its size grows with the events
 * described, not with the trace) into a buffer kept from one reading to
 * the next, at the start, at each live tick and at the end.
 */
static int send_metadata(struct tr_rec *r, const char *src, bool update)
{
	struct tr_relay *n = r->net;
	size_t len = 0;
	int fd, ret;
	ssize_t k;
	char *p;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (len == n->meta_cap) {
			p = realloc(n->meta_text, n->meta_cap * 2 ?: 1 << 20);
			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			n->meta_text = p;
			n->meta_cap = n->meta_cap * 2 ?: 1 << 20;
		}
		k = read(fd, n->meta_text + len, n->meta_cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += k;
	}
	ret = k < 0 ? -errno : 0;
	close(fd);
	return ret ?: tr_relay_metadata(r, n->meta_text, len, update);
}

int tr_copy_metadata(struct tr_rec *r, bool final)
{
	const char *dst = "metadata", *tmp = ".metadata.tmp";
	char src[4096];
	int ret;

	if (r->net) {
		if (tr_join(src, sizeof(src), r->buf_dir, "metadata"))
			return -ENAMETOOLONG;
		ret = send_metadata(r, src, final);
		if (ret && !r->net->failed && !final)
			tr_warn("cannot send %s: %s", src, strerror(-ret));
		return ret;
	}

	if (tr_join(src, sizeof(src), r->buf_dir, "metadata"))
		return -ENAMETOOLONG;
	ret = copy_file(r, src, final ? tmp : dst);
	if (ret == -ENOENT && access(src, F_OK)) {
		if (!final)
			tr_warn("%s does not exist: the trace has no CTF metadata",
				src);
		return 0;
	}
	if (!ret && final &&
	    renameat(r->trace_dirfd, tmp, r->trace_dirfd, dst))
		ret = -errno;
	if (ret) {
		unlinkat(r->trace_dirfd, final ? tmp : dst, 0);
		tr_warn("cannot copy %s: %s%s", src, strerror(-ret),
			final ? " (the copy made at the start is kept)" : "");
	}
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

/* Close the output files; a late write error (NFS, quota) shows here. */
void tr_close_outputs(struct tr_rec *r)
{
	unsigned int i;

	/*
	 * Once stopped: the relay writes all, live viewers read the end. A
	 * relay lost by then cost data: the exit status says so.
	 */
	if (r->net) {
		if (tr_relay_close(r, r->stop != TR_STOP_NONE) &&
		    r->stop != TR_STOP_NONE)
			r->output_error = true;
		return;
	}

	for (i = 0; i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (c->out_fd < 0)
			continue;
		if (close(c->out_fd)) {
			tr_err("closing %s/stream_%u: %s", r->trace_dir, c->cpu,
			       strerror(errno));
			r->output_error = true;
		}
		c->out_fd = -1;
	}
}

static const struct tring_packet_header *
packet_header(const struct tr_cpu *c, const struct tring_subbuf *sb)
{
	return (const void *)(c->map + sb->offset);
}

/* Events in a held packet, from its header; the records are not read. */
static uint64_t packet_events(struct tr_cpu *c, const struct tring_subbuf *sb)
{
	const struct tring_packet_header *h = packet_header(c, sb);

	if ((h->magic != TRING_PACKET_MAGIC || h->packet_seq_num != sb->seq) &&
	    !c->bad_header_warned) {
		tr_warn("cpu%u: packet %llu has a bad header (written as is)",
			c->cpu, (unsigned long long)sb->seq);
		c->bad_header_warned = true;
	}
	return h->events_count;
}

/* One iovec per run of sub-buffers adjacent in the mapping. */
static int build_iov(struct tr_rec *r, struct tr_cpu *c, unsigned int count)
{
	size_t size = c->info.subbuf_size;
	const unsigned char *p;
	unsigned int i;
	int n = 0;

	for (i = 0; i < count; i++) {
		p = c->map + r->sb[i].offset;
		if (n && (const unsigned char *)r->iov[n - 1].iov_base +
			 r->iov[n - 1].iov_len == p) {
			r->iov[n - 1].iov_len += size;
			continue;
		}
		r->iov[n].iov_base = (void *)p;
		r->iov[n].iov_len = size;
		n++;
	}
	return n;
}

/* A packet's bytes on disk; on the relay's connection, without padding. */
static uint64_t saved_bytes(struct tr_rec *r, struct tr_cpu *c,
			    const struct tring_subbuf *sb)
{
	if (!r->net)
		return c->info.subbuf_size;
	return tr_relay_packet_bytes(c, packet_header(c, sb));
}

static void output_failed(struct tr_rec *r, struct tr_cpu *c, int err)
{
	tr_err("writing %s/stream_%u failed: %s; stopping", r->trace_dir, c->cpu,
	       strerror(-err));
	r->stop = TR_STOP_OUTPUT;
	r->output_error = true;
}

/*
 * Write a batch of held sub-buffers. On error the file is cut back to
 * the last whole packet, so what is saved stays a valid stream, and the
 * packets that did not make it are counted as unsaved.
 */
int tr_save_batch(struct tr_rec *r, struct tr_cpu *c, unsigned int count)
{
	size_t size = c->info.subbuf_size, done;
	uint64_t events, bytes;
	unsigned int i, whole;
	int ret;

	if (tr_before_batch(r, (uint64_t)count * size)) {
		output_failed(r, c, -EIO);
		return -EIO;
	}
	if (r->net) {
		ret = tr_relay_send_batch(r, c, count, &whole);
		if (ret) {
			r->stop = TR_STOP_OUTPUT;
			r->output_error = true;
		}
	} else {
		ret = write_all(r, c->out_fd, r->iov, build_iov(r, c, count),
				&done);
		whole = ret ? done / size : count;
	}
	for (i = 0, bytes = 0; i < count; i++) {
		events = packet_events(c, &r->sb[i]);
		if (i < whole) {
			c->subbufs++;
			bytes += saved_bytes(r, c, &r->sb[i]);
			c->events += events;
			/* Packets are saved in order: the last one's count. */
			c->trace_discarded =
				packet_header(c, &r->sb[i])->events_discarded;
		} else {
			c->unsaved_subbufs++;
			c->unsaved_events += events;
		}
	}
	c->bytes += bytes;
	c->file_bytes += bytes;
	tr_after_batch(r, bytes);
	if (!ret || r->net)
		return ret;
	if (done % size && ftruncate(c->out_fd, c->file_bytes))
		tr_warn("cannot cut %s/stream_%u back to %" PRIu64 " bytes: %s",
			r->trace_dir, c->cpu, c->file_bytes, strerror(errno));
	output_failed(r, c, ret);
	return ret;
}
