// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the previous boot's trace, read back at load from the
 * persistent region as that boot left it (untrusted: every offset and
 * record checked by tring_persist_check.c), copied into a frozen buffer
 * of its own and published as instances/last_boot/ with the metadata of
 * the boot that wrote it, until a write to its release file or unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "tring_instance.h"
#include "tring_internal.h"
#include "tring_persist.h"
#include "tring_persist_api.h"

/*
 * The previous boot's trace: read at load into @tring_lb_buf and
 * @tring_lb_meta, published as @tring_last_boot once instances/ exists,
 * removed on a write to its release file or at unload; under
 * tring_last_boot_lock after load.
 */
static DEFINE_MUTEX(tring_last_boot_lock);
static struct tring_buffer *tring_lb_buf;
static char *tring_lb_meta;
static size_t tring_lb_meta_len;
static struct tring_instance *tring_last_boot;

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

/**
 * tring_last_boot_read - keep what the region holds of the previous boot
 * @base: the region's mapping, as the previous boot left it.
 * @size: its bytes.
 *
 * What is valid is copied, for instances/last_boot/; nothing valid (a
 * cold boot, another layout) is a message.
 *
 * Context: module load, before the region is laid out anew.
 */
void tring_last_boot_read(void *base, u64 size)
{
	struct tring_persist_view v = { .base = base, .size = size };
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
	mutex_lock(&tring_last_boot_lock);
	if (tring_last_boot) {
		tring_instance_remove(tring_last_boot);
		tring_last_boot = NULL;
		pr_info("last boot: released\n");
	}
	mutex_unlock(&tring_last_boot_lock);
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

/**
 * tring_last_boot_publish - make instances/last_boot/ of what was read
 *
 * With its release file; nothing if tring_last_boot_read() kept nothing.
 *
 * Context: module load, once instances/ exists.
 */
void tring_last_boot_publish(void)
{
	struct tring_instance *inst;

	mutex_lock(&tring_last_boot_lock);
	if (!tring_lb_buf)
		goto unlock;
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
unlock:
	mutex_unlock(&tring_last_boot_lock);
}

/**
 * tring_last_boot_exit - drop the previous boot's trace
 *
 * Context: module unload or failed load.
 */
void tring_last_boot_exit(void)
{
	cancel_work_sync(&tring_last_boot_release);
	tring_last_boot_release_fn(NULL);
	/* Read, never published (a load that failed). */
	if (tring_lb_buf)
		tring_buffer_free(tring_lb_buf);
	kvfree(tring_lb_meta);
	tring_lb_buf = NULL;
	tring_lb_meta = NULL;
}
