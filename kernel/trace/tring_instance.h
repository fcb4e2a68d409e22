/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: an instance is a buffer with its debugfs files and, for buffers
 * made with tring_buffer_create(), its name (tring_instance.c); a stream
 * is one CPU's file of it (tring_fs.c).
 */
#ifndef _TRING_INSTANCE_H
#define _TRING_INSTANCE_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>

#include "tring_internal.h"

/* Sub-buffers one TRING_IOC_GET hands out at most. */
#define TRING_GET_BATCH_MAX	64

struct dentry;
struct tring_instance;

/**
 * struct tring_stream - one CPU's stream file
 * @inst: the instance it belongs to.
 * @lock: the reader side of the CPU's ring: serializes every call into
 *	the core for this CPU (ioctls, poll, statistics, release, the flush
 *	at destroy). Held only around those calls, never across an access
 *	to user memory: nothing that takes it waits for a reader's page
 *	fault. Taken after @ioctl_lock and after @inst->lock.
 * @ioctl_lock: serializes the open file's ioctls, their user copies
 *	included, so that a TRING_IOC_GET whose results cannot be copied out
 *	gives back exactly what it took. Only that reader's own ioctls ever
 *	wait for its memory.
 * @batch: TRING_GET_BATCH_MAX entries, allocated while the file is open:
 *	what a TRING_IOC_GET took, until copied out; under @ioctl_lock.
 * @cpu: the CPU.
 * @open: the file is open (one reader at a time); under @inst->lock.
 * @skip_seq: sub-buffers of a lower sequence number hold records of a
 *	layout before the instance's last context change: the reader is
 *	never handed them (they are given back unread). Set under @lock
 *	while no stream of the instance is open.
 */
struct tring_stream {
	struct tring_instance *inst;
	struct mutex lock;	/* the reader side of the CPU's ring */
	struct mutex ioctl_lock;	/* the file's ioctls, copies included */
	struct tring_subbuf *batch;
	unsigned int cpu;
	bool open;
	u64 skip_seq;
};

/**
 * struct tring_instance - a buffer, its debugfs files and its name
 * @ref: one reference for the files' existence, one per open stream.
 * @lock: guards @buf replacement, @open_streams, @dead and stream opens.
 * @buf: the buffer; freed with the last reference. Replaced (the default
 *	instance only) under @lock while no stream is open.
 * @dir: the debugfs directory holding the files.
 * @streams: one per possible CPU, indexed by CPU number.
 * @node: in the registry of named instances, under its lock, from
 *	tring_buffer_create() until the instance's files are gone: a name
 *	is free again only when its directory is.
 * @open_streams: stream files open (a mapping keeps its file open).
 * @dead: destroyed: every ring was flushed, opens fail, and poll()
 *	reports POLLIN while a complete sub-buffer is left and POLLHUP once
 *	none is. Set once under @lock with a release store; read with
 *	acquire by poll(), with READ_ONCE elsewhere.
 * @meta: the metadata text the instance's metadata file shows instead of
 *	its buffer's (a previous boot's), or NULL; @meta_len bytes. Set
 *	before the files exist, freed with the instance. An instance with
 *	it is frozen: nothing will ever be written to @buf, so poll() and
 *	TRING_IOC_STATUS answer as for a dead instance, but it can be opened.
 * @meta_len: bytes of @meta.
 */
struct tring_instance {
	struct kref ref;
	struct mutex lock;	/* @buf, @open_streams, @dead, stream opens */
	struct tring_buffer *buf;
	struct dentry *dir;
	struct tring_stream *streams;
	struct list_head node;
	unsigned int open_streams;
	bool dead;
	char *meta;
	size_t meta_len;
};

static inline struct tring_cpu *tring_stream_cpu(struct tring_stream *st)
{
	return per_cpu_ptr(st->inst->buf->cpus, st->cpu);
}

/* tring_instance.c */
int tring_instances_init(struct dentry *root);
struct tring_instance *tring_instance_new(struct dentry *dir,
					  struct tring_buffer *buf);
struct tring_buffer *tring_instance_replace(struct tring_instance *inst,
					    struct tring_buffer *buf);
bool tring_instance_busy(struct tring_instance *inst);
void tring_instance_kill(struct tring_instance *inst);
struct tring_instance *tring_instance_add(struct tring_buffer *buf,
					  char *meta, size_t meta_len);
void tring_instance_remove(struct tring_instance *inst);
void tring_instance_get(struct tring_instance *inst);
void tring_instance_put(struct tring_instance *inst);

/* tring_fs.c */
int tring_fs_add_files(struct tring_instance *inst);

/* tring_ctx_inst.c */
int tring_ctx_inst_add(struct tring_instance *inst);
void tring_ctx_inst_free(struct tring_buffer *buf);

#endif /* _TRING_INSTANCE_H */
