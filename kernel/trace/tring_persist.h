/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the layout of a persistent region, memory the kernel reserved at
 * boot (memmap=, reserve_mem=) that holds the default buffer's rings so
 * that they outlive a crash and a warm reboot; and the checks that
 * recover the previous boot's trace from it (tring_persist_check.c, also
 * built in user space by tools/testing/tring).
 *
 * Everything in the region is position independent (offsets from the
 * region's start, no kernel address) and little-endian:
 *
 *   0                  struct tring_persist_header, one page
 *   layout_off         struct tring_persist_layout[layout_ids]: how long
 *                      each event id's payload is, to walk records, as
 *   seg_off            struct tring_persist_seg[seg_max], its pieces
 *   meta_off           two struct tring_persist_meta copies of meta_max
 *                      bytes each: the CTF metadata text of the boot that
 *                      wrote the region, the newer valid copy wins
 *   cpu_off + n * cpu_stride
 *                      CPU n's area: struct tring_persist_cpu, then at
 *                      slots_off its slots (struct tring_slot, read back
 *                      as struct tring_persist_slot), then at data_off
 *                      (page aligned) its nr_phys sub-buffers
 *
 * After a reboot the region is untrusted input: every offset and count
 * is checked against the region's size before it is used, and a CPU's
 * data is used only if its slots, its packets and every record in them
 * are consistent.
 */
#ifndef _TRING_PERSIST_H
#define _TRING_PERSIST_H

#include <linux/types.h>

#define TRING_PERSIST_MAGIC	0x315453504e495254ULL	/* "TRINPST1" */
/*
 * 3: records have the header of TRING_ABI_VERSION 3 (9 id bits, 23
 * timestamp bits). 2: a slot's commit counter counts an event as
 * TRING_COMMIT_EVENT (1: as the sub-buffer size).
 */
#define TRING_PERSIST_VERSION	3
#define TRING_PERSIST_CPU_MAGIC	0x55504354U		/* "TCPU" */
#define TRING_PERSIST_META_MAGIC 0x4154454dU		/* "META" */

/* Event ids the layout table describes, and segments for them. */
#define TRING_PERSIST_MAX_IDS	4096
#define TRING_PERSIST_SEG_POOL	16384

/**
 * struct tring_persist_header - the region's first bytes
 * @magic: %TRING_PERSIST_MAGIC.
 * @version: %TRING_PERSIST_VERSION; another version is not read.
 * @header_size: sizeof(struct tring_persist_header).
 * @region_size: bytes of the region.
 * @boot_id: the writing boot's random id (the CTF clock uuid).
 * @nr_cpus: CPU areas (the writing boot's possible CPUs).
 * @subbuf_shift: log2 of the sub-buffer size.
 * @nr_slots: ring slots per CPU (a power of two).
 * @nr_phys: physical sub-buffers per CPU (slots plus the reader's spare).
 * @clock: TRING_CLOCK_* of the records.
 * @layout_ids: entries of the layout table.
 * @seg_max: entries of the segment pool.
 * @layout_off: offset of the layout table.
 * @seg_off: offset of the segment pool (struct tring_persist_seg).
 * @meta_off: offset of the two metadata copies.
 * @meta_max: bytes of each copy, its struct tring_persist_meta included.
 * @cpu_off: offset of CPU 0's area.
 * @cpu_stride: bytes from one CPU's area to the next.
 * @slots_off: offset of the slots in a CPU's area.
 * @data_off: offset of the sub-buffers in a CPU's area.
 * @csum: tring_persist_csum() of the header with this field zero.
 * @pad0: zero.
 * @pad: zero.
 *
 * Written once, when the region is set up for a buffer, before any
 * event; never changed while the buffer lives.
 */
struct tring_persist_header {
	__u64 magic;
	__u32 version;
	__u32 header_size;
	__u64 region_size;
	__u8 boot_id[16];
	__u32 nr_cpus;
	__u32 subbuf_shift;
	__u32 nr_slots;
	__u32 nr_phys;
	__u32 clock;
	__u32 layout_ids;
	__u32 seg_max;
	__u32 pad0;
	__u64 layout_off;
	__u64 seg_off;
	__u64 meta_off;
	__u64 meta_max;
	__u64 cpu_off;
	__u64 cpu_stride;
	__u64 slots_off;
	__u64 data_off;
	__u32 csum;
	__u32 pad;
};

/* struct tring_persist_seg.kind */
#define TRING_PS_FIXED		1	/* @bytes bytes */
#define TRING_PS_STRING		2	/* a NUL-terminated string */
#define TRING_PS_COUNTED	3	/* a __u32 count, then count * @elem bytes */
/* count * @elem bytes, the count an earlier field's (@size bytes at @bytes) */
#define TRING_PS_COUNT_AT	4

/**
 * struct tring_persist_seg - one piece of an event's payload, in order
 * @bytes: TRING_PS_FIXED: its bytes; TRING_PS_COUNT_AT: the count field's
 *	offset in the payload.
 * @kind: TRING_PS_*.
 * @elem: TRING_PS_COUNTED, TRING_PS_COUNT_AT: bytes per element.
 * @size: TRING_PS_COUNT_AT: bytes of the count field (1, 2, 4 or 8).
 * @pad: zero.
 */
struct tring_persist_seg {
	__u32 bytes;
	__u8 kind;
	__u8 elem;
	__u8 size;
	__u8 pad;
};

/* Segments a payload has at most: fixed runs around 8 variable fields. */
#define TRING_PERSIST_MAX_SEGS	17

/**
 * struct tring_persist_layout - how long one event id's payload is
 * @seg: its first segment in the segment pool.
 * @nr_segs: its segments; 0: no event has the id.
 * @pad: zero.
 * @meta_gen: the metadata generation that first describes the id: a
 *	record of the id is used only if the metadata recovered is at least
 *	that one.
 *
 * Written when an id is given to an event, before any record of it;
 * @nr_segs last.
 */
struct tring_persist_layout {
	__u32 seg;
	__u16 nr_segs;
	__u16 pad;
	__u32 meta_gen;
};

/**
 * struct tring_persist_meta - one copy of the metadata text
 * @magic: %TRING_PERSIST_META_MAGIC.
 * @gen: generation, from 1; the newer valid copy is used.
 * @len: bytes of text following this structure.
 * @csum: tring_persist_csum() of the text.
 * @pad: zero.
 *
 * The writer zeroes @magic, writes the text, @gen, @len and @csum, then
 * @magic again: a copy interrupted by a crash fails its checksum and the
 * other copy is used.
 */
struct tring_persist_meta {
	__u32 magic;
	__u32 gen;
	__u64 len;
	__u32 csum;
	__u32 pad;
};

/**
 * struct tring_persist_cpu - the start of one CPU's area
 * @magic: %TRING_PERSIST_CPU_MAGIC once the CPU's ring is made there.
 * @cpu: the CPU.
 * @pad: zero.
 */
struct tring_persist_cpu {
	__u32 magic;
	__u32 cpu;
	__u64 pad;
};

/*
 * struct tring_slot as it lies in the region on the 64-bit
 * little-endian machines tring is built for: four 64-bit words.
 */
struct tring_persist_slot {
	__u64 commit;
	__u64 map;
	__u64 done;
	__u64 done_commit;
};

/**
 * struct tring_persist_packet - one sub-buffer recovery keeps
 * @phys: its physical sub-buffer in the CPU's area.
 * @bytes: bytes holding the header and records; the sub-buffer size for a
 *	complete one, less for one a writer had open.
 * @events: records of events in it.
 * @ts_end: the time of its last record (open ones), or its header's.
 * @open: it was open: its header's closing fields must be written (by
 *	tring_persist_close_packet(), on a copy) before it is read.
 */
struct tring_persist_packet {
	u32 phys;
	u32 events;
	unsigned long bytes;
	u64 ts_end;
	bool open;
};

/**
 * struct tring_persist_plan - what recovery keeps of one CPU's ring
 * @pk: the sub-buffers to hand out, oldest first (caller's array of
 *	nr_phys entries).
 * @nr: entries used in @pk.
 * @events: events in them.
 * @dropped_bytes: committed bytes of open sub-buffers left out (a record
 *	a stopped writer left unfinished, and what followed it).
 * @inexact: an open sub-buffer's records kept are not exactly the bytes
 *	and events committed to it: a writer stopped between reserve and
 *	commit, and writers nested in it committed after its record, which
 *	may then be kept with its payload partly written.
 * @undescribed: the trace was cut before a record of an event the
 *	recovered metadata does not describe; what came before is kept.
 * @used: scratch, nr_phys bits zeroed by the caller.
 * @why: NULL, or why the CPU's data was not used (then @nr is 0).
 */
struct tring_persist_plan {
	struct tring_persist_packet *pk;
	u64 *used;
	unsigned int nr;
	u64 events;
	unsigned long dropped_bytes;
	bool inexact;
	bool undescribed;
	const char *why;
};

/**
 * struct tring_persist_view - a region being recovered
 * @base: the region's bytes.
 * @size: their number.
 * @h: the header, once tring_persist_check_header() accepted it.
 * @meta_gen: generation of the metadata copy recovered.
 * @meta: its text.
 * @meta_len: its bytes.
 */
struct tring_persist_view {
	void *base;
	u64 size;
	const struct tring_persist_header *h;
	u32 meta_gen;
	const char *meta;
	u64 meta_len;
};

struct tring_event_desc;

/* tring_persist_layout.c: the writing side */
int tring_persist_geometry(u64 size, unsigned int nr_cpus,
			   unsigned int subbuf_shift, u64 meta_max,
			   struct tring_persist_header *h);
void tring_persist_format(void *base, const struct tring_persist_header *h);
void *tring_persist_cpu_area(void *base, unsigned int cpu, void **slots);
unsigned int tring_persist_desc_segs(const struct tring_event_desc *ev,
				     struct tring_persist_seg *segs);
int tring_persist_set_layout(void *base, unsigned int id,
			     const struct tring_persist_seg *segs,
			     unsigned int nr, u32 gen, u32 *pool_used);
int tring_persist_put_meta(void *base, u32 gen, const char *text, u64 len);

/* tring_persist_check.c: the recovering side */
u32 tring_persist_csum(const void *p, size_t len);
const char *tring_persist_check_header(struct tring_persist_view *v);
void tring_persist_check_cpu(const struct tring_persist_view *v,
			     unsigned int cpu, struct tring_persist_plan *p);
void tring_persist_close_packet(void *sb, const struct tring_persist_packet *pk,
				unsigned long subbuf_size);

#endif /* _TRING_PERSIST_H */
