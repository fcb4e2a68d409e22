// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record output: the stream files (DIR/kernel/stream_CPU, as an
 * LTTng session lays them out) and the writes to them, and the CTF
 * metadata; or, with -o net://, the same steps handed to the relay's
 * session (relay.c). The directory itself: output_dir.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

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
