/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the debugfs front end of a buffer (tring_fs.c).
 */
#ifndef _TRING_FS_H
#define _TRING_FS_H

#include <linux/kref.h>
#include <linux/mutex.h>

#include "tring_internal.h"

struct dentry;
struct tring_instance;

/**
 * struct tring_stream - one CPU's stream file
 * @inst: the instance it belongs to.
 * @lock: serializes the reader side of the CPU's ring (ioctls, poll,
 *	statistics, release).
 * @cpu: the CPU.
 * @open: the file is open (one reader at a time); under @inst->lock.
 */
struct tring_stream {
	struct tring_instance *inst;
	struct mutex lock;	/* the reader side of the CPU's ring */
	unsigned int cpu;
	bool open;
};

/**
 * struct tring_instance - a buffer and its debugfs files
 * @ref: one reference for the files' existence, one per open stream.
 * @lock: guards @buf replacement, @open_streams, @dead and stream opens.
 * @buf: the buffer; freed with the last reference.
 * @dir: the debugfs directory holding the files.
 * @streams: one per possible CPU, indexed by CPU number.
 * @open_streams: stream files open (a mapping keeps its file open).
 * @dead: the files are being removed; opens fail, pollers get EPOLLHUP
 *	once nothing is left. Written under @lock, read with READ_ONCE.
 */
struct tring_instance {
	struct kref ref;
	struct mutex lock;	/* @buf, @open_streams, @dead, stream opens */
	struct tring_buffer *buf;
	struct dentry *dir;
	struct tring_stream *streams;
	unsigned int open_streams;
	bool dead;
};

struct tring_instance *tring_instance_new(struct dentry *dir,
					  struct tring_buffer *buf);
struct tring_buffer *tring_instance_replace(struct tring_instance *inst,
					    struct tring_buffer *buf);
bool tring_instance_busy(struct tring_instance *inst);
void tring_instance_kill(struct tring_instance *inst);
void tring_instance_put(struct tring_instance *inst);

#endif /* _TRING_FS_H */
