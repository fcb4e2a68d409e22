// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: long recordings. --rotate SIZE|SECONDS writes the trace
 * as numbered chunks, DIR/chunk_<N>/kernel, each a CTF trace of its own
 * (its metadata and a stream file per CPU, whole packets), as LTTng's
 * rotations and perf record --switch-output do; babeltrace2 reads one
 * chunk, or DIR for all of them as one trace (their packets' sequence
 * numbers go on from chunk to chunk). --max-size SIZE stops the
 * recording once that much is saved, or, with --rotate, keeps the last
 * chunks that fit in SIZE and removes the older ones.
 *
 * Streaming, the relay splits the stream files itself: --rotate SIZE is
 * sent as each stream's tracefile_size, --max-size as tracefile_count.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

/**
 * tr_parse_rotate - --rotate SIZE|SECONDS
 * @o: the options.
 * @arg: a size with a K, M or G suffix, or seconds (a number, or one
 *	with an s suffix; decimals allowed).
 *
 * Return: 0, or a usage exit status after a message.
 */
int tr_parse_rotate(struct tr_opts *o, const char *arg)
{
	size_t len = strlen(arg);
	double s;
	char *end;
	long kb;

	o->rotate_size = o->rotate_ns = 0;
	if (len && strchr("kKmMgGB", arg[len - 1])) {
		kb = tr_parse_size_kb(arg, 4, LONG_MAX >> 10);
		if (kb < 0)
			goto bad;
		o->rotate_size = (uint64_t)kb << 10;
		return 0;
	}
	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || (*end && strcmp(end, "s")) ||
	    !(s >= 0.001) || s > 1e9)
		goto bad;
	o->rotate_ns = (uint64_t)(s * NSEC_PER_SEC);
	return 0;
bad:
	fprintf(stderr, "tring-record: invalid rotation '%s': expected a size (64M) or seconds (60, 60s)\n",
		arg);
	return TR_EXIT_USAGE;
}

/* Bytes in DIR/chunk_<n>/kernel, removing its files with @remove. */
static uint64_t chunk_size(struct tr_rec *r, unsigned int n, bool remove)
{
	char sub[64], path[128];
	unsigned int i;
	uint64_t sum = 0;
	struct stat st;

	snprintf(sub, sizeof(sub), "chunk_%u/%s", n, TR_TRACE_SUBDIR);
	for (i = 0; i <= r->ncpus; i++) {
		if (i < r->ncpus)
			snprintf(path, sizeof(path), "%s/stream_%u", sub,
				 r->cpus[i].cpu);
		else
			snprintf(path, sizeof(path), "%s/metadata", sub);
		if (!fstatat(r->out_dirfd, path, &st, AT_SYMLINK_NOFOLLOW))
			sum += st.st_size;
		if (remove)
			unlinkat(r->out_dirfd, path, 0);
	}
	if (remove) {
		unlinkat(r->out_dirfd, sub, AT_REMOVEDIR);
		snprintf(sub, sizeof(sub), "chunk_%u", n);
		unlinkat(r->out_dirfd, sub, AT_REMOVEDIR);
	}
	return sum;
}

/*
 * --max-size with --rotate, as a chunk begins: the oldest chunks go
 * while they and the new one, at its full --rotate SIZE, would not fit.
 */
static void drop_old_chunks(struct tr_rec *r)
{
	uint64_t size;

	while (r->opt.max_size &&
	       r->kept_bytes + r->opt.rotate_size > r->opt.max_size &&
	       r->oldest_chunk < r->chunk) {
		size = chunk_size(r, r->oldest_chunk, true);
		r->kept_bytes -= size < r->kept_bytes ? size : r->kept_bytes;
		r->oldest_chunk++;
	}
}

/**
 * tr_chunk_start - the trace directory of the chunk to write next
 * @r: the run; with --rotate, r->chunk is its number.
 *
 * Sets r->trace_sub (and r->trace_dir): kernel, or chunk_<N>/kernel.
 */
void tr_chunk_start(struct tr_rec *r)
{
	if (r->opt.rotate_size || r->opt.rotate_ns)
		snprintf(r->trace_sub, sizeof(r->trace_sub), "chunk_%u/%s",
			 r->chunk, TR_TRACE_SUBDIR);
	else
		snprintf(r->trace_sub, sizeof(r->trace_sub), "%s",
			 TR_TRACE_SUBDIR);
	/* out_dir leaves room for it (tr_prepare_output()). */
	if ((size_t)snprintf(r->trace_dir, sizeof(r->trace_dir), "%s/%s",
			     r->out_dir, r->trace_sub) >= sizeof(r->trace_dir))
		r->trace_dir[0] = '\0';
	r->chunk_bytes = 0;
	r->chunk_t0 = r->ops->now_ns();
}

/* DIR/chunk_<N>/kernel made and opened: the next chunk's directory. */
static int open_chunk(struct tr_rec *r)
{
	char sub[32];
	int fd, kfd;

	snprintf(sub, sizeof(sub), "chunk_%u", r->chunk);
	if (mkdirat(r->out_dirfd, sub, 0755) && errno != EEXIST)
		return -errno;
	fd = openat(r->out_dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	tr_give_away(r, fd);
	if (mkdirat(fd, TR_TRACE_SUBDIR, 0755) && errno != EEXIST) {
		close(fd);
		return -errno;
	}
	kfd = openat(fd, TR_TRACE_SUBDIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	close(fd);
	if (kfd < 0)
		return -errno;
	tr_give_away(r, kfd);
	close(r->trace_dirfd);
	r->trace_dirfd = kfd;
	return 0;
}

/*
 * Close the chunk written (its final metadata, its stream files) and
 * start the next: its directory, its metadata, a stream file per CPU.
 */
static int rotate(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	tr_copy_metadata(r, true);
	tr_close_outputs(r);
	if (r->output_error)
		return -EIO;
	r->chunk++;
	tr_chunk_start(r);
	ret = open_chunk(r);
	if (ret) {
		tr_err("cannot make %s: %s", r->trace_dir, strerror(-ret));
		return ret;
	}
	tr_copy_metadata(r, false);
	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].absent || r->cpus[i].failed)
			continue;
		if (tr_create_output(r, &r->cpus[i]))
			return -EIO;
	}
	drop_old_chunks(r);
	return 0;
}

/**
 * tr_before_batch - rotate, if due, before @bytes are written
 * @r: the run (files, not the relay, which splits its files itself).
 * @bytes: the batch about to be written.
 *
 * Due when the chunk would pass --rotate SIZE, or is --rotate SECONDS
 * old; never for an empty chunk. Chunks hold whole batches.
 *
 * Return: 0, or -errno when the next chunk cannot be made (the output
 * then failed).
 */
int tr_before_batch(struct tr_rec *r, uint64_t bytes)
{
	bool due;

	if (r->net || !r->chunk_bytes)
		return 0;
	due = (r->opt.rotate_size &&
	       r->chunk_bytes + bytes > r->opt.rotate_size) ||
	      (r->opt.rotate_ns &&
	       r->ops->now_ns() >= r->chunk_t0 + r->opt.rotate_ns);
	return due ? rotate(r) : 0;
}

/**
 * tr_after_batch - count @bytes saved; --max-size
 * @r: the run.
 * @bytes: saved (or sent) of the batch.
 */
void tr_after_batch(struct tr_rec *r, uint64_t bytes)
{
	r->chunk_bytes += bytes;
	r->kept_bytes += bytes;
	r->total_bytes += bytes;
	if (!r->opt.max_size || r->stop)
		return;
	if (!r->opt.rotate_size && !r->opt.rotate_ns &&
	    r->total_bytes >= r->opt.max_size)
		r->stop = TR_STOP_MAX_SIZE;
}
