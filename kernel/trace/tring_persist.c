// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the default buffer in memory reserved at boot, so that its
 * events outlive a crash and a warm reboot (module parameter persist=),
 * and the previous boot's trace read back from there as
 * instances/last_boot/.
 *
 *   persist=reserve_mem:NAME   a region reserve_mem=SIZE:ALIGN:NAME gave
 *                              (Linux 6.12 and later)
 *   persist=PHYS:SIZE          a region memmap=SIZE$PHYS took from the
 *                              kernel (x86), for example 0x40000000:64M
 *
 * At load the region is read as the previous boot left it (untrusted:
 * tring_persist_check.c); what is valid is copied into a buffer of its
 * own, published frozen as instances/last_boot/ with the metadata of the
 * boot that wrote it (tring_persist_last.c). Then the region is laid out anew
 * (tring_persist_layout.c) and the default buffer's rings are made in it,
 * in overwrite mode; the write path is the same code. While it runs,
 * every event id given out gets its payload's layout in the region, and
 * the metadata text is rewritten there shortly after (a work item), so a
 * crash leaves everything needed to read the rings back.
 *
 * Concurrency: the region's header and rings are written as in any
 * buffer; the layout table, the segment pool and the metadata copies
 * only under tring_persist_lock (event ids are given out under their
 * own tables' locks, which take it inside).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#ifdef CONFIG_X86
#include <asm/e820/api.h>
#endif

#include "tring_events.h"
#include "tring_gen.h"
#include "tring_internal.h"
#include "tring_persist.h"
#include "tring_persist_api.h"

static char *persist;
module_param(persist, charp, 0444);
MODULE_PARM_DESC(persist, "keep the default buffer in memory reserved at boot: reserve_mem:NAME or PHYS:SIZE (memmap=SIZE$PHYS)");

/* Each of the two metadata copies: every generic event fits. */
#define TRING_PERSIST_META_MAX	SZ_2M

/**
 * struct tring_persist_region - the region this boot writes
 * @mem: the core's view: where each CPU's ring goes.
 * @phys: its physical address.
 * @size: its bytes.
 * @base: its kernel mapping.
 * @pool_used: segments of the pool given out (tring_persist_lock).
 * @next: the metadata generation that describes ids described from now
 *	on (tring_persist_lock).
 * @written: the newest generation written (tring_persist_lock).
 * @dirty: ids were described since the last metadata text was begun
 *	(tring_persist_lock).
 * @attr: the default buffer's attributes (its metadata).
 * @meta_work: writes the metadata once ids changed, for ids described
 *	without tring_persist_sync().
 */
struct tring_persist_region {
	struct tring_ring_mem mem;
	phys_addr_t phys;
	u64 size;
	void *base;
	u32 pool_used;
	u32 next;
	u32 written;
	bool dirty;
	const struct tring_buffer_attr *attr;
	struct delayed_work meta_work;
};

static DEFINE_MUTEX(tring_persist_lock);
/*
 * Serializes the metadata's writes from start to end, so that a writer
 * that finds nothing new to describe knows the text describing it is
 * written. Taken outside the event tables' locks, which making the text
 * takes, and outside tring_persist_lock.
 */
static DEFINE_MUTEX(tring_persist_meta_lock);
static struct tring_persist_region *tring_region;

/**
 * tring_persist_active - is the default buffer in a persistent region
 *
 * Return: true if persist= placed it there (its shape is the region's).
 */
bool tring_persist_active(void)
{
	return tring_region;
}

#ifdef TRING_HAVE_RESERVE_MEM
static int tring_reserve_mem(const char *name, phys_addr_t *phys, u64 *size)
{
	phys_addr_t start, len;

	if (!reserve_mem_find_by_name(name, &start, &len)) {
		pr_err("persist=reserve_mem:%s: no such region (reserve_mem=SIZE:ALIGN:%s on the kernel command line)\n",
		       name, name);
		return -ENOENT;
	}
	*phys = start;
	*size = len;
	return 0;
}
#else
static int tring_reserve_mem(const char *name, phys_addr_t *phys, u64 *size)
{
	pr_err("persist=reserve_mem:%s: this kernel has no reserve_mem=; use memmap=SIZE$PHYS and persist=PHYS:SIZE\n",
	       name);
	return -EOPNOTSUPP;
}
#endif

#ifdef CONFIG_X86
/* Any of @types over [@start, @end) in the kernel's E820 map (@raw: the firmware's)? */
static bool tring_e820_any(bool raw, u64 start, u64 end,
			   const enum e820_type *types, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (raw ? e820__mapped_raw_any(start, end, types[i]) :
			  e820__mapped_any(start, end, types[i]))
			return true;
	return false;
}

/*
 * Is [@start, @end) memory that memmap=SIZE$PHYS took out of RAM? The
 * firmware's E820 map (untouched by the command line) must show every
 * page of it as RAM, and the kernel's map, which memmap= changed, every
 * page as Reserved: firmware-reserved ranges (flash, ECAM, SMRAM), device
 * memory and holes are refused.
 */
static bool tring_persist_reserved(phys_addr_t phys, u64 size)
{
	static const enum e820_type other[] = {
		E820_TYPE_RAM, E820_TYPE_RESERVED, E820_TYPE_RESERVED_KERN,
		E820_TYPE_ACPI, E820_TYPE_NVS, E820_TYPE_UNUSABLE,
		E820_TYPE_PMEM, E820_TYPE_PRAM, E820_TYPE_SOFT_RESERVED,
	};
	u64 start = phys, end = phys + size;

	if (!size || end <= start)	/* empty, or past the end */
		return false;
	/* other[0] is RAM, which the firmware map must show and the kernel's must not. */
	if (tring_e820_any(true, start, end, other + 1, ARRAY_SIZE(other) - 1) ||
	    tring_e820_any(false, start, end, other, 1) ||
	    tring_e820_any(false, start, end, other + 2, ARRAY_SIZE(other) - 2))
		return false;
	/* No hole in either map. */
	for (; start < end; start += PAGE_SIZE) {
		if (!e820__mapped_raw_any(start, start + PAGE_SIZE, E820_TYPE_RAM) ||
		    !e820__mapped_any(start, start + PAGE_SIZE, E820_TYPE_RESERVED))
			return false;
		cond_resched();
	}
	return true;
}
#else
/* Only the E820 map tells memmap= carve-outs apart: elsewhere, reserve_mem=. */
static bool tring_persist_reserved(phys_addr_t phys, u64 size)
{
	return false;
}
#endif

/* Where persist= says the region is; -errno with a message if not usable. */
static int tring_persist_parse(const char *s, phys_addr_t *phys, u64 *size)
{
	char *end;
	int ret;

	if (str_has_prefix(s, "reserve_mem:")) {
		ret = tring_reserve_mem(s + strlen("reserve_mem:"), phys, size);
		if (ret)
			return ret;
	} else {
		*phys = memparse(s, &end);
		if (*end != ':')
			goto bad;
		*size = memparse(end + 1, &end);
		if (*end)
			goto bad;
		if (!tring_persist_reserved(*phys, *size)) {
			pr_err("persist=%s: not memory reserved with memmap=SIZE$PHYS\n",
			       s);
			return -EBUSY;
		}
	}
	if (PAGE_ALIGNED(*phys) && PAGE_ALIGNED(*size) && *size)
		return 0;
bad:
	pr_err("persist=%s: expected reserve_mem:NAME or PHYS:SIZE, page aligned\n", s);
	return -EINVAL;
}

/* The ring of @cpu, in its area of the region (struct tring_ring_mem). */
static void *tring_persist_cpu(struct tring_ring_mem *mem, unsigned int cpu,
			       struct tring_slot **slots, unsigned long *pfn)
{
	struct tring_persist_region *r = container_of(mem, struct tring_persist_region, mem);
	const struct tring_persist_header *h = r->base;
	void *s, *va;

	if (cpu >= h->nr_cpus)
		return NULL;
	va = tring_persist_cpu_area(r->base, cpu, &s);
	*slots = s;
	*pfn = PHYS_PFN(r->phys + (va - r->base));
	return va;
}

static struct tring_persist_region *tring_persist_map(const char *s)
{
	struct tring_persist_region *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	ret = tring_persist_parse(s, &r->phys, &r->size);
	if (ret)
		goto free_region;
	r->base = memremap(r->phys, r->size, MEMREMAP_WB);
	ret = -ENOMEM;
	if (!r->base) {
		pr_err("persist=%s: cannot map the region\n", s);
		goto free_region;
	}
	r->mem.cpu_area = tring_persist_cpu;
	return r;

free_region:
	kfree(r);
	return ERR_PTR(ret);
}

/* ---- this boot's trace ---- */

/*
 * The metadata the default buffer's metadata file shows now, into the
 * region's older copy. Its generation is taken before the text is made:
 * every id described in the region with that generation belongs to an
 * event the tables had listed by then (the hooks run once an event is
 * listed, before its first record), so the text describes them all.
 * Ids described later get the next generation. The text is made without
 * tring_persist_lock: making it takes the event tables' locks, and they
 * take tring_persist_lock inside.
 */
static void tring_persist_meta_write(struct tring_persist_region *r)
{
	struct seq_file m = { };
	int ret = -ENOMEM;
	u32 gen;

	mutex_lock(&tring_persist_meta_lock);
	mutex_lock(&tring_persist_lock);
	if (!r->dirty) {
		mutex_unlock(&tring_persist_lock);
		goto unlock_meta;
	}
	r->dirty = false;
	gen = r->next++;
	mutex_unlock(&tring_persist_lock);
	m.size = TRING_PERSIST_META_MAX;
	m.buf = kvmalloc(m.size, GFP_KERNEL);
	if (m.buf) {
		tring_ctf_metadata(&m, r->attr);
		ret = seq_has_overflowed(&m) ? -E2BIG : 0;
	}
	mutex_lock(&tring_persist_lock);
	if (!ret && gen > r->written) {
		ret = tring_persist_put_meta(r->base, gen, m.buf, m.count);
		if (!ret)
			r->written = gen;
	}
	mutex_unlock(&tring_persist_lock);
	kvfree(m.buf);
	if (ret)
		pr_warn_ratelimited("persist: metadata generation %u not kept (%d): events given ids since are not readable after a crash\n",
				    gen, ret);
unlock_meta:
	mutex_unlock(&tring_persist_meta_lock);
}

/**
 * tring_persist_sync - write the metadata now, if ids were described
 *
 * Once it returns, the region's metadata describes every id described
 * before the call: their records may follow, and a crash leaves them
 * readable.
 *
 * Context: process, without tring_mod_events_lock, which making the
 * text takes (the generic events' enable lock may be held: the text
 * reads their list under RCU); may sleep.
 */
void tring_persist_sync(void)
{
	struct tring_persist_region *r = tring_region;

	if (r && r->attr)
		tring_persist_meta_write(r);
}

static void tring_persist_meta_fn(struct work_struct *work)
{
	struct tring_persist_region *r = container_of(to_delayed_work(work),
						      struct tring_persist_region,
						      meta_work);

	tring_persist_meta_write(r);
}

/*
 * Describe id @id's payload (@segs) in the region, for the next metadata
 * generation, which tring_persist_sync() writes before the id's first
 * record (or the work, soon). Called once the event is listed in its
 * table.
 */
static void tring_persist_layout(unsigned int id,
				 const struct tring_persist_seg *segs,
				 unsigned int nr)
{
	struct tring_persist_region *r = tring_region;
	int ret;

	if (!r)
		return;
	mutex_lock(&tring_persist_lock);
	ret = tring_persist_set_layout(r->base, id, segs, nr, r->next,
				       &r->pool_used);
	r->dirty = true;
	mutex_unlock(&tring_persist_lock);
	if (ret)
		pr_warn_ratelimited("persist: no room to describe event id %u: its records end what a crash leaves readable\n",
				    id);
	if (r->attr)
		mod_delayed_work(system_wq, &r->meta_work, HZ / 10);
}

/**
 * tring_persist_event - a tring event got an id in the default buffer
 * @ev: the event.
 *
 * Context: process; may sleep.
 */
void tring_persist_event(const struct tring_event_desc *ev)
{
	struct tring_persist_seg segs[2];

	tring_persist_layout(ev->id, segs, tring_persist_desc_segs(ev, segs));
}

/**
 * tring_persist_gen_event - a generic event is about to be recorded
 * @ev: the event, described (its fields never change).
 *
 * Its payload: each fixed field's bytes, a string for a __data_loc
 * char[], a u32 count and its elements for another __data_loc array
 * (tring_gen_copy()). The metadata describing it is written before this
 * returns.
 *
 * Context: process, as for tring_persist_sync(); may sleep.
 */
void tring_persist_gen_event(const struct tring_gen_event *ev)
{
	struct tring_persist_seg segs[TRING_PERSIST_MAX_SEGS] = { };
	const struct tring_gen_field *f;
	unsigned int i, n = 0;

	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind < TRING_GEN_DSTR) {
			if (!n || segs[n - 1].kind != TRING_PS_FIXED)
				segs[n++].kind = TRING_PS_FIXED;
			segs[n - 1].bytes += f->size;
		} else if (f->kind == TRING_GEN_DSTR) {
			segs[n++].kind = TRING_PS_STRING;
		} else {
			segs[n].kind = TRING_PS_COUNTED;
			segs[n++].elem = f->elem;
		}
		if (n == TRING_PERSIST_MAX_SEGS && i + 1 < ev->nr_fields) {
			n = 0;	/* cannot happen: at most 8 dynamic fields */
			break;
		}
	}
	tring_persist_layout(ev->id, segs, n);
	tring_persist_sync();
}

/* The builtin events' and the module events' layouts, at start. */
static void tring_persist_builtin(void)
{
	unsigned int i;

	for (i = 0; i < tring_nr_builtin_events; i++)
		if (tring_builtin_events[i].name)
			tring_persist_event(&tring_builtin_events[i]);
}

/**
 * tring_persist_init - read the previous boot's trace, lay out the region
 * @attr: the default buffer's attributes; with persist= its shape becomes
 *	the region's (overwrite mode, as many sub-buffers as fit).
 * @mem: set to where the default buffer's rings go, or NULL.
 *
 * Context: module load, after tring_core_init().
 * Return: 0, or -errno with a message (persist= given but unusable: the
 * module does not load rather than trace where nothing survives).
 */
int tring_persist_init(struct tring_buffer_attr *attr,
		       struct tring_ring_mem **mem)
{
	struct tring_persist_header h;
	struct tring_persist_region *r;
	int ret;

	*mem = NULL;
	if (!persist || !*persist)
		return 0;
	r = tring_persist_map(persist);
	if (IS_ERR(r))
		return PTR_ERR(r);
	tring_last_boot_read(r->base, r->size);
	ret = tring_persist_geometry(r->size, nr_cpu_ids, ilog2(attr->subbuf_size),
				     TRING_PERSIST_META_MAX, &h);
	if (ret) {
		pr_err("persist=%s: too small for %u CPUs of two %zu KiB sub-buffers and the metadata\n",
		       persist, nr_cpu_ids, attr->subbuf_size >> 10);
		goto unmap;
	}
	get_random_bytes(h.boot_id, sizeof(h.boot_id));
	h.clock = attr->clock;
	tring_persist_format(r->base, &h);
	attr->subbuf_count = h.nr_slots;
	attr->flags |= TRING_OVERWRITE;
	INIT_DELAYED_WORK(&r->meta_work, tring_persist_meta_fn);
	r->next = 1;
	tring_region = r;
	*mem = &r->mem;
	pr_info("persist: %llu MiB region, %u sub-buffers of %zu KiB per CPU\n",
		r->size >> 20, h.nr_slots, attr->subbuf_size >> 10);
	return 0;

unmap:
	tring_persist_exit();
	memunmap(r->base);
	kfree(r);
	return ret;
}

/**
 * tring_persist_start - the default buffer is made: keep what reads it
 * @buf: the default buffer.
 *
 * Writes the builtin events' layouts and the first metadata, and
 * publishes the previous boot's trace (instances/ exists now).
 *
 * Context: module load.
 */
void tring_persist_start(struct tring_buffer *buf)
{
	struct tring_persist_region *r = tring_region;

	tring_last_boot_publish();
	if (!r)
		return;
	tring_persist_builtin();
	r->attr = &buf->attr;
	tring_persist_sync();
}

/**
 * tring_persist_exit - stop keeping the metadata, drop the last boot's trace
 *
 * Context: module unload or failed load, no event being given an id.
 */
void tring_persist_exit(void)
{
	if (tring_region)
		cancel_delayed_work_sync(&tring_region->meta_work);
	tring_last_boot_exit();
}

/**
 * tring_persist_unmap - give the region back
 *
 * Context: module unload or failed load, once the default buffer is
 * freed (its rings were in the region).
 */
void tring_persist_unmap(void)
{
	if (!tring_region)
		return;
	memunmap(tring_region->base);
	kfree(tring_region);
	tring_region = NULL;
}
