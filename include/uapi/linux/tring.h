/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tring: the user-space ABI of the per-CPU trace ring buffer.
 *
 * Each CPU's stream file in debugfs (per_cpu/cpuN/stream) maps the CPU's
 * sub-buffers read-only. Every complete sub-buffer is one CTF 1.8 packet:
 * a struct tring_packet_header followed by event records, padded with
 * zeroes to the sub-buffer size. A reader takes complete sub-buffers with
 * TRING_IOC_GET, writes them out straight from the mapping and gives them
 * back with TRING_IOC_PUT.
 *
 * poll() on a stream reports POLLIN when the watermark of complete
 * sub-buffers is reached (TRING_IOC_WATERMARK), or after a flush when one
 * is complete. When the buffer's owner destroys it, every partly filled
 * sub-buffer is flushed; from then on poll() reports POLLIN while a
 * complete sub-buffer is left to take and POLLHUP once none is, so a
 * reader that polls until POLLHUP has everything that was written.
 *
 * Every ioctl argument starts with a __u32 size field holding the size of
 * the structure as the caller knows it. The kernel accepts any size from
 * the first published one (the *_SIZE_VER0 constants) up to a page; bytes
 * beyond what the kernel knows must be zero on input and are left
 * untouched on output. The ioctl numbers encode the VER0 sizes, not
 * sizeof(), so they never change when a structure grows.
 *
 * All multi-byte fields are little-endian: tring is built for
 * little-endian 64-bit machines only, and its CTF metadata says so.
 */
#ifndef _UAPI_LINUX_TRING_H
#define _UAPI_LINUX_TRING_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TRING_ABI_VERSION	3

/* CTF 1.8 packet magic, the first 32 bits of every packet. */
#define TRING_PACKET_MAGIC	0xC1FC1FC1U

/**
 * struct tring_packet_header - the start of every sub-buffer (CTF packet)
 * @magic: %TRING_PACKET_MAGIC.
 * @stream_id: CTF stream class; 0 for every tring stream.
 * @timestamp_begin: clock value (ns) when the packet was opened; no event
 *	in the packet is older.
 * @timestamp_end: clock value (ns) when the packet was closed; no event in
 *	the packet is newer.
 * @content_size: bits of the packet holding the header and events.
 * @packet_size: bits of the packet including the zero padding: always the
 *	sub-buffer size times 8.
 * @packet_seq_num: sequence number of the packet in its CPU's stream,
 *	from 0; a gap means whole packets were overwritten before the
 *	reader took them (overwrite mode).
 * @events_discarded: events this CPU's writers could not write since the
 *	buffer was created (the buffer was full, or the event too big),
 *	counted when the packet was closed. Events in overwritten packets
 *	are not in it: their count is TRING_IOC_STATUS's events_overwritten.
 * @cpu_id: the CPU whose events the packet holds.
 * @events_count: event records in the packet, not counting padding
 *	records.
 *
 * The layout is described to CTF readers by the metadata file; this
 * structure is the same layout for tools that read packets directly.
 */
struct tring_packet_header {
	__u32 magic;
	__u32 stream_id;
	__u64 timestamp_begin;
	__u64 timestamp_end;
	__u64 content_size;
	__u64 packet_size;
	__u64 packet_seq_num;
	__u64 events_discarded;
	__u32 cpu_id;
	__u32 events_count;
};

/*
 * Event records follow the packet header, each starting on a 4-byte
 * boundary with a 32-bit header word:
 *
 *   bits 0-8   event id, or TRING_ID_WIDE, or TRING_ID_EXTENDED
 *   bits 9-31  low 23 bits of the timestamp (ns); zero if extended
 *
 * A compact record (id 0-509) stores only the low timestamp bits: a
 * reader keeps the stream's current time, starting at the packet's
 * timestamp_begin, replaces its low 23 bits with the record's and adds
 * 2^23 when the new low bits are smaller than the old ones (the CTF 1.8
 * rule for clock fields narrower than 64 bits). The writer guarantees
 * that less than 2^23 ns (8.4 ms) separate a compact record from the
 * one before it.
 *
 * A wide record (id field TRING_ID_WIDE) has the same timestamp bits and
 * rule, and is followed by a __u32 event id: struct
 * tring_event_header_wide, 8 bytes. Events of id 510 and up take it.
 *
 * An extended record (id field TRING_ID_EXTENDED, the other 23 bits zero)
 * is followed by a __u32 event id and a __u64 full timestamp:
 * struct tring_event_header_ext. Any event may take it; the writer uses
 * it when 2^23 ns or more separate a record from the one before.
 *
 * ABI version 2 had 5 id bits (compact ids 0-29, 30 wide, 31 extended)
 * and 27 timestamp bits. Version 3 gives every built-in event and every
 * system call the 4-byte header, for a shorter window before a record
 * needs the extended one.
 *
 * The payload follows the header; its length is given by the event's
 * description in the metadata, rounded up to 4 bytes.
 */
#define TRING_ID_BITS		9
#define TRING_ID_COMPACT_LAST	509
#define TRING_ID_WIDE		510
#define TRING_ID_EXTENDED	511
#define TRING_TS_BITS		23

/* Records of these ids carry no event: readers skip them. */
#define TRING_ID_PADDING	0	/* payload: __u32 size, then size bytes */
#define TRING_ID_NOP		1	/* no payload */
#define TRING_ID_FIRST_EVENT	2	/* first id available to events */

/**
 * struct tring_event_header_wide - wide event record header
 * @word: %TRING_ID_WIDE in bits 0-8, the timestamp's low 23 bits above.
 * @id: event id.
 */
struct tring_event_header_wide {
	__u32 word;
	__u32 id;
};

/**
 * struct tring_event_header_ext - extended event record header
 * @word: %TRING_ID_EXTENDED in bits 0-8, zero above.
 * @id: event id.
 * @timestamp: full timestamp (ns).
 */
struct tring_event_header_ext {
	__u32 word;
	__u32 id;
	__u64 timestamp;
};

/* Timestamp sources (struct tring_info.clock). */
#define TRING_CLOCK_MONO	0	/* ktime_get_mono_fast_ns(): ordered across CPUs */
#define TRING_CLOCK_LOCAL	1	/* trace_clock_local(): per-CPU, fastest */

/* struct tring_info.flags */
#define TRING_INFO_OVERWRITE	0x1	/* flight-recorder mode */

/**
 * struct tring_info - shape of one CPU's stream (TRING_IOC_INFO)
 * @size: in: sizeof(struct tring_info) as the caller knows it.
 * @abi_version: out: %TRING_ABI_VERSION.
 * @cpu: out: the CPU this stream records.
 * @flags: out: %TRING_INFO_OVERWRITE when the buffer overwrites the oldest
 *	unread sub-buffer instead of dropping new events.
 * @subbuf_size: out: bytes per sub-buffer (a power of two, at least the
 *	page size).
 * @subbuf_count: out: sub-buffers in the ring.
 * @header_size: out: bytes of struct tring_packet_header at the start of
 *	each sub-buffer.
 * @map_size: out: bytes to mmap() to see every sub-buffer a reader can be
 *	handed: the ring plus, in overwrite mode, the reader's spare.
 * @clock: out: TRING_CLOCK_* source of the timestamps.
 * @watermark: out: complete sub-buffers not yet given back (held by the
 *	reader or waiting to be taken) that make poll() report readable;
 *	see struct tring_watermark.
 */
struct tring_info {
	__u32 size;
	__u32 abi_version;
	__u32 cpu;
	__u32 flags;
	__u64 subbuf_size;
	__u32 subbuf_count;
	__u32 header_size;
	__u64 map_size;
	__u32 clock;
	__u32 watermark;
};

#define TRING_INFO_SIZE_VER0	48

/**
 * struct tring_subbuf - one sub-buffer handed to the reader
 * @offset: byte offset of the sub-buffer in the mapping.
 * @length: bytes of the sub-buffer holding data (header and events); the
 *	rest up to the sub-buffer size is zero.
 * @seq: packet sequence number (equal to the header's packet_seq_num).
 */
struct tring_subbuf {
	__u64 offset;
	__u64 length;
	__u64 seq;
};

/**
 * struct tring_get - take complete sub-buffers (TRING_IOC_GET)
 * @size: in: sizeof(struct tring_get) as the caller knows it.
 * @max: in: number of entries at @subbufs, at least 1.
 * @count: out: entries filled, oldest first, consecutive in sequence.
 * @flags: in: must be 0.
 * @subbufs: in: user address of an array of @max struct tring_subbuf.
 *
 * Fails with EAGAIN when no complete sub-buffer is waiting. May hand out
 * fewer than @max even when more are complete (at most 64 per call). A
 * reader may hold several sub-buffers in discard mode, one in overwrite
 * mode (EBUSY while it holds one). Held sub-buffers are never written to
 * until given back.
 */
struct tring_get {
	__u32 size;
	__u32 max;
	__u32 count;
	__u32 flags;
	__u64 subbufs;
};

#define TRING_GET_SIZE_VER0	24

/**
 * struct tring_put - give back held sub-buffers (TRING_IOC_PUT)
 * @size: in: sizeof(struct tring_put) as the caller knows it.
 * @count: in: sub-buffers to give back, oldest first, at least 1.
 * @seq: in: sequence number of the oldest held sub-buffer; a mismatch
 *	fails with EINVAL.
 */
struct tring_put {
	__u32 size;
	__u32 count;
	__u64 seq;
};

#define TRING_PUT_SIZE_VER0	16

/* struct tring_status.flags */
#define TRING_STATUS_DEAD	0x1	/* the buffer was destroyed: nothing new comes */

/**
 * struct tring_status - positions and counters (TRING_IOC_STATUS)
 * @size: in: sizeof(struct tring_status) as the caller knows it.
 * @flags: out: %TRING_STATUS_DEAD once the buffer's owner destroyed it.
 *	The destruction flushed every partly filled sub-buffer, and no
 *	writer is left: poll() reports POLLIN while a complete sub-buffer
 *	is left to take, whatever the watermark, and POLLHUP once none is.
 * @write_pos: out: bytes reserved in the stream since it was created
 *	(the producer position).
 * @read_pos: out: bytes given back by readers (the consumer position);
 *	always a multiple of the sub-buffer size.
 * @subbufs_delivered: out: sub-buffers completed since creation.
 * @subbufs_ready: out: complete sub-buffers waiting to be taken.
 * @events_written: out: events committed since creation.
 * @events_discarded: out: events dropped because the buffer was full.
 * @events_overwritten: out: events in sub-buffers overwritten unread.
 * @events_too_big: out: events that could not fit in a sub-buffer.
 *
 * Counters are read without stopping writers: each is exact once writers
 * are quiet; while they run they are not one atomic snapshot, and
 * @events_written can be off by the events of a sub-buffer being
 * delivered at that moment.
 */
struct tring_status {
	__u32 size;
	__u32 flags;
	__u64 write_pos;
	__u64 read_pos;
	__u64 subbufs_delivered;
	__u64 subbufs_ready;
	__u64 events_written;
	__u64 events_discarded;
	__u64 events_overwritten;
	__u64 events_too_big;
};

#define TRING_STATUS_SIZE_VER0	72

/* struct tring_flush.flags */
#define TRING_FLUSH_EMPTY	0x1	/* make a packet even with no event */

/**
 * struct tring_flush - close the partly filled sub-buffer (TRING_IOC_FLUSH)
 * @size: in: sizeof(struct tring_flush) as the caller knows it.
 * @flags: in: 0, or %TRING_FLUSH_EMPTY: close a packet even when nothing
 *	was written since the last one, so that the stream holds a packet
 *	(a header, no event) that carries the time of the flush. None is
 *	made when the sub-buffer it needs holds data not yet read.
 * @pos: out: the stream position up to which every sub-buffer is now
 *	closed: a reader has everything written before the flush once its
 *	read_pos (struct tring_status) reaches it.
 * @timestamp: out (from size 24): the buffer's clock read on the stream's
 *	CPU during the flush (on the caller's if that CPU is offline). Every
 *	event written on that CPU later has a later or equal time: a live
 *	reader can tell its viewers that an idle stream has reached that
 *	time. A sub-buffer left open with no record in it (see
 *	tring_discard()) gives its timestamp_begin instead.
 */
struct tring_flush {
	__u32 size;
	__u32 flags;
	__u64 pos;
	__u64 timestamp;
};

#define TRING_FLUSH_SIZE_VER0	16
#define TRING_FLUSH_SIZE_VER1	24	/* with timestamp */

/**
 * struct tring_watermark - set the poll() watermark (TRING_IOC_WATERMARK)
 * @size: in: sizeof(struct tring_watermark) as the caller knows it.
 * @watermark: in: complete sub-buffers that make poll() report readable,
 *	at least 1; out: the value in use, clamped to subbuf_count - 1.
 *
 * poll() counts every complete sub-buffer not yet given back: those the
 * reader holds (TRING_IOC_GET without TRING_IOC_PUT) as well as those
 * waiting to be taken. In discard mode a writer that cannot go on until
 * the reader gives a sub-buffer back has subbuf_count - 1 of them, so
 * that state always reports readable, and the wakeup comes with the
 * delivery that reaches the watermark. A reader that holds sub-buffers
 * may therefore find poll() readable and TRING_IOC_GET failing with
 * EAGAIN: it must give back what it holds, not wait, for new data to
 * come. After TRING_IOC_FLUSH one sub-buffer that can be taken is enough
 * until read_pos reaches the flush position.
 */
struct tring_watermark {
	__u32 size;
	__u32 watermark;
};

#define TRING_WATERMARK_SIZE_VER0	8

#define TRING_IOC_MAGIC		0xC1
#define TRING_IOC_RW		(_IOC_READ | _IOC_WRITE)

#define TRING_IOC_INFO		_IOC(TRING_IOC_RW, TRING_IOC_MAGIC, 0x00, TRING_INFO_SIZE_VER0)
#define TRING_IOC_GET		_IOC(TRING_IOC_RW, TRING_IOC_MAGIC, 0x01, TRING_GET_SIZE_VER0)
#define TRING_IOC_PUT		_IOC(_IOC_WRITE, TRING_IOC_MAGIC, 0x02, TRING_PUT_SIZE_VER0)
#define TRING_IOC_STATUS	_IOC(TRING_IOC_RW, TRING_IOC_MAGIC, 0x03, TRING_STATUS_SIZE_VER0)
#define TRING_IOC_FLUSH		_IOC(TRING_IOC_RW, TRING_IOC_MAGIC, 0x04, TRING_FLUSH_SIZE_VER0)
#define TRING_IOC_WATERMARK	_IOC(TRING_IOC_RW, TRING_IOC_MAGIC, 0x05, TRING_WATERMARK_SIZE_VER0)

#endif /* _UAPI_LINUX_TRING_H */
