/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: declarations shared by the module's files and by the user-space
 * build of the core (tools/testing/tring).
 */
#ifndef _TRING_INTERNAL_H
#define _TRING_INTERNAL_H

#include <linux/tring.h>

/* Limits on a buffer's shape. */
#define TRING_MAX_SUBBUF_SHIFT	24	/* 16 MiB sub-buffers */
#define TRING_MAX_SLOTS		BIT(20)
#define TRING_MAX_CPU_BYTES	BIT_ULL(32)	/* 4 GiB per CPU */

/**
 * struct tring_counts - one CPU's counters, read without stopping writers
 * @write_pos: reserve position (bytes).
 * @read_pos: consumer position (bytes).
 * @subbufs_delivered: sub-buffers completed.
 * @subbufs_ready: complete sub-buffers not yet taken.
 * @events_written: events committed.
 * @events_discarded: events dropped, buffer full.
 * @events_overwritten: events overwritten unread.
 * @events_too_big: events too big for a sub-buffer.
 */
struct tring_counts {
	u64 write_pos;
	u64 read_pos;
	u64 subbufs_delivered;
	u64 subbufs_ready;
	u64 events_written;
	u64 events_discarded;
	u64 events_overwritten;
	u64 events_too_big;
};

/**
 * struct tring_ring_mem - memory a buffer's rings live in, given by the
 * buffer's owner instead of pages the core allocates (tring_persist.c)
 * @cpu_area: called once for each ring, when it is made (process
 *	context, CPU-hotplug lock held): zeroes and returns CPU @cpu's
 *	sub-buffers, contiguous, physically too, with their first page
 *	frame in *@pfn, and their slots in *@slots; NULL if there is none.
 */
struct tring_ring_mem {
	void *(*cpu_area)(struct tring_ring_mem *mem, unsigned int cpu,
			  struct tring_slot **slots, unsigned long *pfn);
};

/* tring_core_alloc.c: creation */
int tring_check_attr(const struct tring_buffer_attr *attr);
int tring_core_init(void);
void tring_core_exit(void);
struct tring_buffer *tring_buffer_alloc(const struct tring_buffer_attr *attr);
struct tring_buffer *tring_buffer_alloc_in(const struct tring_buffer_attr *attr,
					   struct tring_ring_mem *mem);
void tring_buffer_free(struct tring_buffer *buf);

/* tring_core.c: the records of a buffer with contexts (tring_ctx_write.c) */
long tring_reserve_hdr(struct tring_cpu *cb, unsigned int id,
		       unsigned long room, unsigned int *hlen);

/* tring_ctx_write.c: tring_reserve_slow_v4() of a buffer with contexts */
long tring_ctx_reserve_slow(struct tring_cpu *cb,
			    const struct tring_ctx_set *set, unsigned int id,
			    unsigned int len);

/*
 * The stream position whose low TRING_POS_CTX_SHIFT bits are those of
 * @low, a record reserved on this CPU and not yet committed: the reserve
 * position is at or past its end, and less than a ring's bytes past it
 * (a writer nested since can only have reserved after it, or given back
 * what it reserved after it). Preemption disabled.
 */
static inline unsigned long tring_pos_full(struct tring_cpu *cb,
					   unsigned long low)
{
	unsigned long off = local_read(&cb->offset);

	return off - ((off - low) & TRING_POS_LOW_MASK);
}

/*
 * What tring_reserve_slow_v4() returns for a record at stream position
 * @pos with a header of @hlen bytes and @clen bytes of contexts after
 * it (see <linux/tring.h>).
 */
static inline long tring_pos_pack(unsigned long pos, unsigned int hlen,
				  unsigned int clen)
{
	return (pos & TRING_POS_LOW_MASK) | (hlen / 4 - 1) |
	       ((unsigned long)(clen / 4) << TRING_POS_CTX_SHIFT);
}

/* A ring's geometry, shared by the core's files (tring_core*.c). */
static inline unsigned long tring_ring_bytes(const struct tring_cpu *cb)
{
	return (cb->slot_mask + 1) << cb->subbuf_shift;
}

static inline unsigned long tring_lap(const struct tring_cpu *cb,
				      unsigned long pos)
{
	return pos >> cb->lap_shift;
}

/*
 * slot->map's tag is the lap plus one, modulo 2^39 (the bits above
 * TRING_MAP_TAG_SHIFT): compare tags as a signed difference, so that
 * they keep working after the counter wraps.
 */
static inline long tring_tag_diff(unsigned long e, unsigned long tag)
{
	return (long)(((e >> TRING_MAP_TAG_SHIFT) - tag) << TRING_MAP_TAG_SHIFT) >>
	       TRING_MAP_TAG_SHIFT;
}

/* tring_core.c: a writer's steps, which a flush takes too. */
u64 tring_cpu_losses(struct tring_cpu *cb);
int tring_prepare_switch(struct tring_cpu *cb, unsigned long boundary);
void tring_open(struct tring_cpu *cb, unsigned long boundary, u64 ts);
void tring_close(struct tring_cpu *cb, unsigned long old, u64 ts,
		 u64 losses);
u64 tring_clock_after(struct tring_cpu *cb, u64 *last);

/* tring_core_read.c: the reader side (the rest is in <linux/tring.h>). */
void tring_cpu_reader_reset(struct tring_cpu *cb);
bool tring_cpu_readable(struct tring_cpu *cb);
void tring_cpu_counts(struct tring_cpu *cb, struct tring_counts *c);
void tring_cpu_preload(struct tring_cpu *cb, unsigned long nr, u64 events);

static inline unsigned long tring_cpu_map_size(const struct tring_cpu *cb)
{
	return cb->nr_phys << cb->subbuf_shift;
}

#endif /* _TRING_INTERNAL_H */
