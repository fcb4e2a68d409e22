// SPDX-License-Identifier: GPL-2.0
/*
 * tring: laying out a persistent region and writing what recovery needs
 * beside the rings: the header, the event layout table and the metadata
 * text (tring_persist.h). Built in the kernel and in user space
 * (tools/testing/tring).
 *
 * Concurrency: tring_persist_geometry() and tring_persist_format() run
 * once, before any ring is made in the region. tring_persist_set_layout()
 * and tring_persist_put_meta() are serialized by the caller (the event
 * table's lock in the kernel) and never run beside each other; records
 * of an id are written only after its layout entry is. Nothing here is
 * read while the machine runs: a crash may stop any of it half-way, and
 * recovery (tring_persist_check.c) reads what it finds with suspicion.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/tring.h>

#include "tring_persist.h"

#define TP_PAGE		4096ULL

/* The region's layout is an ABI between boots (and persist-corrupt.py). */
static_assert(sizeof(struct tring_persist_header) == 144);
static_assert(sizeof(struct tring_persist_layout) == 12);
static_assert(sizeof(struct tring_persist_seg) == 8);
static_assert(sizeof(struct tring_persist_meta) == 24);
static_assert(sizeof(struct tring_persist_cpu) == 16);
static_assert(sizeof(struct tring_persist_slot) == sizeof(struct tring_slot));

/* Bytes of a CPU area holding @n slots and @n + 1 sub-buffers. */
static u64 tp_cpu_bytes(u64 n, unsigned int shift, u64 *data_off)
{
	*data_off = ALIGN(sizeof(struct tring_persist_cpu) +
			     n * sizeof(struct tring_persist_slot), TP_PAGE);
	return *data_off + ((n + 1) << shift);
}

/**
 * tring_persist_geometry - lay out a region
 * @size: the region's bytes.
 * @nr_cpus: CPU areas to make (the possible CPUs).
 * @subbuf_shift: log2 of the sub-buffer size.
 * @meta_max: bytes for each of the two metadata copies.
 * @h: filled in (all but @boot_id, @clock and @csum).
 *
 * Each CPU gets an equal share of what the header, the layout table and
 * the metadata leave, and in it the most slots (a power of two) that fit
 * with one spare sub-buffer.
 *
 * Return: 0, or -ENOSPC if a CPU's share holds fewer than two slots.
 */
int tring_persist_geometry(u64 size, unsigned int nr_cpus,
			   unsigned int subbuf_shift, u64 meta_max,
			   struct tring_persist_header *h)
{
	u64 share, n, data_off;

	memset(h, 0, sizeof(*h));
	h->magic = TRING_PERSIST_MAGIC;
	h->version = TRING_PERSIST_VERSION;
	h->header_size = sizeof(*h);
	h->region_size = size;
	h->nr_cpus = nr_cpus;
	h->subbuf_shift = subbuf_shift;
	h->layout_ids = TRING_PERSIST_MAX_IDS;
	h->seg_max = TRING_PERSIST_SEG_POOL;
	h->layout_off = TP_PAGE;
	h->seg_off = ALIGN(h->layout_off + TRING_PERSIST_MAX_IDS *
			   sizeof(struct tring_persist_layout), TP_PAGE);
	h->meta_off = ALIGN(h->seg_off + TRING_PERSIST_SEG_POOL *
			    sizeof(struct tring_persist_seg), TP_PAGE);
	h->meta_max = ALIGN(meta_max, TP_PAGE);
	h->cpu_off = h->meta_off + 2 * h->meta_max;
	if (!nr_cpus || h->cpu_off > size)
		return -ENOSPC;
	share = (size - h->cpu_off) / nr_cpus & ~(TP_PAGE - 1);
	if (share < tp_cpu_bytes(2, subbuf_shift, &data_off))
		return -ENOSPC;
	n = 2;
	while (n < BIT(20) &&
	       tp_cpu_bytes(2 * n, subbuf_shift, &data_off) <= share)
		n *= 2;
	h->cpu_stride = tp_cpu_bytes(n, subbuf_shift, &data_off);
	h->nr_slots = n;
	h->nr_phys = n + 1;
	h->slots_off = sizeof(struct tring_persist_cpu);
	h->data_off = data_off;
	return 0;
}

/**
 * tring_persist_format - make a region empty, for a new trace
 * @base: the region.
 * @h: its header, from tring_persist_geometry() with @boot_id and @clock
 *	set.
 *
 * Zeroes the layout table, the metadata copies and every CPU area's
 * header, then writes the header with its checksum. The rings' memory is
 * zeroed as each ring is made (tring_persist_cpu_area()).
 */
void tring_persist_format(void *base, const struct tring_persist_header *h)
{
	struct tring_persist_header *dst = base;
	unsigned int cpu;

	memset(base, 0, h->cpu_off);
	for (cpu = 0; cpu < h->nr_cpus; cpu++)
		memset(base + h->cpu_off + (u64)cpu * h->cpu_stride, 0,
		       sizeof(struct tring_persist_cpu));
	*dst = *h;
	dst->csum = 0;
	dst->csum = tring_persist_csum(dst, sizeof(*dst));
}

/**
 * tring_persist_cpu_area - make CPU @cpu's area ready for its ring
 * @base: the region.
 * @cpu: the CPU (below h->nr_cpus).
 * @slots: set to where the ring's slots go.
 *
 * Zeroes the slots and the sub-buffers, so nothing of an earlier boot is
 * mapped to user space, and marks the area as holding a ring.
 *
 * Return: where the ring's sub-buffers go.
 */
void *tring_persist_cpu_area(void *base, unsigned int cpu, void **slots)
{
	const struct tring_persist_header *h = base;
	struct tring_persist_cpu *pc = base + h->cpu_off + (u64)cpu * h->cpu_stride;

	memset(pc, 0, h->cpu_stride);
	*slots = (void *)pc + h->slots_off;
	pc->cpu = cpu;
	pc->magic = TRING_PERSIST_CPU_MAGIC;
	return (void *)pc + h->data_off;
}

/* Bytes of field @i of @ev, an integer or a char array. */
static unsigned int tp_field_size(const struct tring_event_desc *ev,
				  unsigned int i)
{
	const struct tring_field *f = &ev->fields[i];

	return (f[1].name ? f[1].offset : ev->size) - f->offset;
}

/**
 * tring_persist_desc_segs - the segments of a tring event's payload
 * @ev: the event: fixed fields, then maybe a string or bytes counted by
 *	the field before them.
 * @segs: filled in; room for two.
 *
 * Return: the number of segments.
 */
unsigned int tring_persist_desc_segs(const struct tring_event_desc *ev,
				     struct tring_persist_seg *segs)
{
	unsigned int i, n = 0;

	memset(segs, 0, 2 * sizeof(*segs));
	segs[n].kind = TRING_PS_FIXED;
	segs[n++].bytes = ev->size;
	for (i = 0; ev->fields[i].name; i++) {
		if (ev->fields[i].type == TRING_FIELD_STRING) {
			segs[n++].kind = TRING_PS_STRING;
		} else if (ev->fields[i].type == TRING_FIELD_BYTES && i) {
			segs[n].kind = TRING_PS_COUNT_AT;
			segs[n].bytes = ev->fields[i - 1].offset;
			segs[n].size = tp_field_size(ev, i - 1);
			segs[n++].elem = 1;
		}
	}
	return n;
}

/**
 * tring_persist_set_layout - describe event id @id's records in the region
 * @base: the region.
 * @id: the id.
 * @segs: its payload's segments, in order; NULL (with @nr 0) to say no
 *	event has the id any more.
 * @nr: their number.
 * @gen: the metadata generation that will first describe the event.
 * @pool_used: segments of the pool given out so far (the caller's).
 *
 * Return: 0, -ENOSPC if the segment pool is full or @id is past the
 * table (records of the id will end recovery of their packet).
 */
int tring_persist_set_layout(void *base, unsigned int id,
			     const struct tring_persist_seg *segs,
			     unsigned int nr, u32 gen, u32 *pool_used)
{
	const struct tring_persist_header *h = base;
	struct tring_persist_layout *dst;

	if (id >= h->layout_ids)
		return -ENOSPC;
	dst = base + h->layout_off + (u64)id * sizeof(*dst);
	WRITE_ONCE(dst->nr_segs, 0);
	if (!nr)
		return 0;
	if (nr > TRING_PERSIST_MAX_SEGS || h->seg_max - *pool_used < nr)
		return -ENOSPC;
	memcpy(base + h->seg_off + (u64)*pool_used * sizeof(*segs), segs,
	       nr * sizeof(*segs));
	dst->seg = *pool_used;
	dst->meta_gen = gen;
	*pool_used += nr;
	/*
	 * Compiler barrier, pairing with nothing: a crash reads memory as
	 * this CPU left it; the entry counts only once @nr_segs is set.
	 */
	barrier();
	WRITE_ONCE(dst->nr_segs, nr);
	return 0;
}

/**
 * tring_persist_put_meta - keep a metadata text in the region
 * @base: the region.
 * @gen: its generation, above every one put before.
 * @text: the text.
 * @len: its bytes.
 *
 * Overwrites the older copy; the newer one stays whole meanwhile.
 *
 * Return: 0, or -E2BIG if the text does not fit (nothing is written).
 */
int tring_persist_put_meta(void *base, u32 gen, const char *text, u64 len)
{
	const struct tring_persist_header *h = base;
	struct tring_persist_meta *m[2], *dst;

	if (len > h->meta_max - sizeof(*dst))
		return -E2BIG;
	m[0] = base + h->meta_off;
	m[1] = base + h->meta_off + h->meta_max;
	dst = m[0]->magic != TRING_PERSIST_META_MAGIC ? m[0] :
	      m[1]->magic != TRING_PERSIST_META_MAGIC ? m[1] :
	      m[0]->gen < m[1]->gen ? m[0] : m[1];
	WRITE_ONCE(dst->magic, 0);
	/*
	 * Compiler barriers, pairing with nothing: a crash reads memory as
	 * this CPU left it (x86 keeps stores in order), so the magic must
	 * go last, after the text and its checksum, in program order.
	 */
	barrier();
	memcpy(dst + 1, text, len);
	dst->gen = gen;
	dst->len = len;
	dst->csum = tring_persist_csum(text, len);
	barrier();
	WRITE_ONCE(dst->magic, TRING_PERSIST_META_MAGIC);
	return 0;
}
