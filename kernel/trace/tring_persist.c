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
 * boot that wrote it. Then the region is laid out anew
 * (tring_persist_layout.c) and the default buffer's rings are made in it,
 * in overwrite mode; the write path is the same code. While it runs,
 * every event id given out gets its payload's layout in the region, and
 * the metadata text is rewritten there shortly after (a work item), so a
 * crash leaves everything needed to read the rings back.
 *
 * Concurrency: the region's header and rings are written as in any
 * buffer; the layout table, the segment pool and the metadata copies
 * only under tring_persist_lock (event ids are given out under their
 * own tables' locks, which take it inside). The last_boot instance is
 * set up at load and removed at unload or on a write to its release
 * file, under tring_persist_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
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
#include "tring_instance.h"
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
/*
 * The previous boot's trace: read at load into @tring_lb_buf and
 * @tring_lb_meta, published as @tring_last_boot once instances/ exists,
 * removed on a write to its release file or at unload. Under
 * tring_persist_lock after load.
 */
static struct tring_buffer *tring_lb_buf;
static char *tring_lb_meta;
static size_t tring_lb_meta_len;
static struct tring_instance *tring_last_boot;

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

/* ---- the previous boot's trace ---- */

/*
 * Copy what @p keeps of @cpu's ring in @v into @cb's first sub-buffers
 * and hand them out. An open packet gets its closing fields, and the
 * losses counted when the packet before it was closed (a lower bound).
 */
static void tring_last_boot_cpu(const struct tring_persist_view *v,
				unsigned int cpu,
				const struct tring_persist_plan *p,
				struct tring_cpu *cb)
{
	const struct tring_persist_header *h = v->h;
	unsigned long sb = 1UL << h->subbuf_shift;
	const void *area = v->base + h->cpu_off + (u64)cpu * h->cpu_stride +
			   h->data_off;
	struct tring_packet_header *ph;
	u64 discarded = 0;
	unsigned int i;

	for (i = 0; i < p->nr && i <= cb->slot_mask; i++) {
		ph = tring_phys_va(cb, i);
		memcpy(ph, area + p->pk[i].phys * sb, sb);
		if (p->pk[i].open) {
			tring_persist_close_packet(ph, &p->pk[i], sb);
			ph->events_discarded = discarded;
		}
		discarded = ph->events_discarded;
	}
	tring_cpu_preload(cb, i, p->events);
}

/* Check @cpu's ring in @v and move what is kept into @buf: events kept. */
static u64 tring_last_boot_fill(const struct tring_persist_view *v,
				unsigned int cpu, struct tring_persist_plan *p,
				struct tring_buffer *buf)
{
	struct tring_cpu *cb;

	memset(p->used, 0, BITS_TO_LONGS(v->h->nr_phys) * sizeof(long));
	tring_persist_check_cpu(v, cpu, p);
	if (p->why) {
		if (strcmp(p->why, "the CPU had no ring") &&
		    strcmp(p->why, "nothing written"))
			pr_warn("last boot: CPU %u's events left out: %s\n", cpu, p->why);
		return 0;
	}
	/* The region's CPU ids are the writing boot's: this one may have fewer. */
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
		pr_warn("last boot: CPU %u's %llu events left out: this boot has no CPU %u\n",
			cpu, p->events, cpu);
		return 0;
	}
	cb = tring_buffer_cpu(buf, cpu);
	if (!cb) {
		pr_warn("last boot: CPU %u's %llu events left out: the CPU is offline now\n",
			cpu, p->events);
		return 0;
	}
	tring_last_boot_cpu(v, cpu, p, cb);
	pr_info("last boot: CPU %u: %u sub-buffers, %llu events%s%s\n", cpu,
		p->nr, p->events, p->inexact ?
		" (cut where a writer stopped between reserve and commit)" : "",
		p->undescribed ?
		" (cut at a record of an event the metadata kept does not describe)" : "");
	return p->events;
}

/* The most sub-buffers one CPU's ring in @v keeps. */
static unsigned int tring_last_boot_most(const struct tring_persist_view *v,
					 struct tring_persist_plan *p)
{
	unsigned int cpu, most = 0;

	for (cpu = 0; cpu < v->h->nr_cpus; cpu++) {
		memset(p->used, 0, BITS_TO_LONGS(v->h->nr_phys) * sizeof(long));
		tring_persist_check_cpu(v, cpu, p);
		most = max(most, p->nr);
	}
	return most;
}

/*
 * A frozen buffer holding what the region @v keeps, NULL if it keeps no
 * event, or an ERR_PTR(). Its rings are as large as the largest share
 * kept needs.
 */
static struct tring_buffer *tring_last_boot_buffer(const struct tring_persist_view *v)
{
	const struct tring_persist_header *h = v->h;
	struct tring_buffer_attr attr = {
		.name = "last_boot",
		.subbuf_size = 1UL << h->subbuf_shift,
		.clock = h->clock,
	};
	struct tring_persist_plan p = { };
	struct tring_buffer *buf = ERR_PTR(-ENOMEM);
	unsigned int cpu, most;
	u64 kept = 0;

	p.pk = kvcalloc(h->nr_phys, sizeof(*p.pk), GFP_KERNEL);
	p.used = (u64 *)bitmap_zalloc(h->nr_phys, GFP_KERNEL);
	if (!p.pk || !p.used)
		goto free_plan;
	most = tring_last_boot_most(v, &p);
	buf = NULL;
	if (!most)
		goto free_plan;
	attr.subbuf_count = roundup_pow_of_two(max(most, 2U));
	buf = tring_buffer_alloc(&attr);
	if (IS_ERR(buf))
		goto free_plan;
	for (cpu = 0; cpu < h->nr_cpus; cpu++)
		kept += tring_last_boot_fill(v, cpu, &p, buf);
	if (!kept) {
		tring_buffer_free(buf);
		buf = NULL;
	}
free_plan:
	bitmap_free((unsigned long *)p.used);
	kvfree(p.pk);
	return buf;
}

/*
 * Read the region as the previous boot left it and keep what is valid,
 * for instances/last_boot/. Nothing valid (a cold boot, another layout)
 * is a message.
 */
static void tring_last_boot_read(struct tring_persist_region *r)
{
	struct tring_persist_view v = { .base = r->base, .size = r->size };
	struct tring_buffer *buf;
	const char *why;
	char *meta;

	why = tring_persist_check_header(&v);
	if (why) {
		pr_info("last boot: no trace kept: %s\n", why);
		return;
	}
	meta = kvmalloc(v.meta_len, GFP_KERNEL);
	if (!meta)
		goto fail;
	memcpy(meta, v.meta, v.meta_len);
	buf = tring_last_boot_buffer(&v);
	if (IS_ERR_OR_NULL(buf)) {
		kvfree(meta);
		if (!buf) {
			pr_info("last boot: no event kept\n");
			return;
		}
		goto fail;
	}
	tring_lb_buf = buf;
	tring_lb_meta = meta;
	tring_lb_meta_len = v.meta_len;
	return;

fail:
	pr_warn("last boot: the trace kept could not be offered (no memory)\n");
}

static void tring_last_boot_release_fn(struct work_struct *work)
{
	mutex_lock(&tring_persist_lock);
	if (tring_last_boot) {
		tring_instance_remove(tring_last_boot);
		tring_last_boot = NULL;
		pr_info("last boot: released\n");
	}
	mutex_unlock(&tring_persist_lock);
}

static DECLARE_WORK(tring_last_boot_release, tring_last_boot_release_fn);

/*
 * instances/last_boot/release: "1" frees the previous boot's trace. The
 * removal runs from a work item: removing the file from its own write
 * would wait for that write to end.
 */
static ssize_t tring_release_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	bool v;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &v);
	if (ret)
		return ret;
	if (!v)
		return -EINVAL;
	schedule_work(&tring_last_boot_release);
	return count;
}

static const struct file_operations tring_release_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tring_release_write,
	.llseek	= noop_llseek,
};

/* Publish the previous boot's trace read at load, with its release file. */
static void tring_last_boot_publish(void)
{
	struct tring_instance *inst;

	if (!tring_lb_buf)
		return;
	inst = tring_instance_add(tring_lb_buf, tring_lb_meta, tring_lb_meta_len);
	if (IS_ERR(inst)) {
		pr_warn("last boot: instances/last_boot could not be made (%ld)\n",
			PTR_ERR(inst));
		tring_buffer_free(tring_lb_buf);
		kvfree(tring_lb_meta);
	} else {
		debugfs_create_file("release", 0200, inst->dir, NULL,
				    &tring_release_fops);
		tring_last_boot = inst;
	}
	tring_lb_buf = NULL;
	tring_lb_meta = NULL;
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
	tring_last_boot_read(r);
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

	mutex_lock(&tring_persist_lock);
	tring_last_boot_publish();
	mutex_unlock(&tring_persist_lock);
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
	cancel_work_sync(&tring_last_boot_release);
	tring_last_boot_release_fn(NULL);
	/* Read, never published (a load that failed). */
	if (tring_lb_buf)
		tring_buffer_free(tring_lb_buf);
	kvfree(tring_lb_meta);
	tring_lb_buf = NULL;
	tring_lb_meta = NULL;
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
