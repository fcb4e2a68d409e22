// SPDX-License-Identifier: GPL-2.0
/*
 * tring: buffers and their per-CPU rings: attributes checked,
 * memory checked and allocated, rings made for CPUs coming online.
 *
 * Part of the ring buffer's core (tring_core.c describes the positions,
 * slots and modes). Also compiled in user space by tools/testing/tring
 * with shim headers: it uses only what those shims provide.
 */
#define pr_fmt(fmt) "tring: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#include "tring_internal.h"

/**
 * tring_check_attr - validate buffer attributes
 * @attr: the attributes.
 *
 * A ring is at most TRING_MAX_CPU_BYTES per CPU: its pages are counted
 * in the unsigned int vmap() takes.
 *
 * Return: 0 or -EINVAL.
 */
int tring_check_attr(const struct tring_buffer_attr *attr)
{
	if (!is_power_of_2(attr->subbuf_size) ||
	    attr->subbuf_size < PAGE_SIZE ||
	    ilog2(attr->subbuf_size) > TRING_MAX_SUBBUF_SHIFT)
		return -EINVAL;
	if (!is_power_of_2(attr->subbuf_count) || attr->subbuf_count < 2 ||
	    attr->subbuf_count > TRING_MAX_SLOTS)
		return -EINVAL;
	/* Both powers of two: the product cannot overflow before this test. */
	if ((u64)attr->subbuf_size * attr->subbuf_count > TRING_MAX_CPU_BYTES)
		return -EINVAL;
	if (attr->flags & ~TRING_OVERWRITE)
		return -EINVAL;
	if (attr->clock != TRING_CLOCK_MONO && attr->clock != TRING_CLOCK_LOCAL)
		return -EINVAL;
	if (attr->watermark >= attr->subbuf_count)
		return -EINVAL;
	return 0;
}

/*
 * A buffer may not leave less than this share of the machine's RAM
 * available (1 / 2^TRING_MEM_KEEP_SHIFT): tracing must not be what runs
 * the system out of memory.
 */
#define TRING_MEM_KEEP_SHIFT	3

/*
 * Held from the memory check of a new buffer to the end of its
 * allocation, so that two buffers allocated at once (a knob rebuilding
 * the default buffer, an instance being created) cannot both pass the
 * check against the same available memory.
 */
static DEFINE_MUTEX(tring_mem_lock);

/*
 * Refuse, before allocating anything, a buffer whose pages would leave
 * less than an eighth of RAM available (si_mem_available(), which counts
 * free and reclaimable memory). Rings are made for the CPUs online now;
 * a CPU that comes online later gets its ring then (tring_cpu_prepare()).
 */
static int tring_check_memory(const struct tring_buffer_attr *attr)
{
	bool spare = attr->flags & TRING_OVERWRITE;
	unsigned long cpu_pages = (attr->subbuf_count + spare) *
				  (attr->subbuf_size >> PAGE_SHIFT);
	unsigned int cpus = num_online_cpus();
	unsigned long need = cpu_pages * cpus;
	unsigned long keep = totalram_pages() >> TRING_MEM_KEEP_SHIFT;
	long avail = si_mem_available();

	if (avail >= 0 && need + keep <= (unsigned long)avail)
		return 0;
	pr_warn("buffer '%s' refused: %lu KiB per CPU x %u online CPUs = %lu KiB, with %ld KiB available of which %lu KiB (1/%u of RAM) must stay available\n",
		attr->name ?: "", cpu_pages * (PAGE_SIZE / 1024), cpus,
		need * (PAGE_SIZE / 1024), avail * (long)(PAGE_SIZE / 1024),
		keep * (PAGE_SIZE / 1024), 1U << TRING_MEM_KEEP_SHIFT);
	return -ENOMEM;
}

/* The ring's pages, zeroed, into cb->pages; their mapping, or NULL. */
static void *tring_cpu_alloc_pages(struct tring_cpu *cb, int node)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	unsigned long i;
	void *va;

	cb->pages = kvmalloc_node(array_size(cb->nr_pages, sizeof(*cb->pages)),
				  GFP_KERNEL | __GFP_ZERO, node);
	if (!cb->pages)
		return NULL;
	for (i = 0; i < cb->nr_pages; i++) {
		cb->pages[i] = alloc_pages_node(node, gfp, 0);
		if (!cb->pages[i])
			goto free_pages;
	}
	va = vmap(cb->pages, cb->nr_pages, VM_MAP, PAGE_KERNEL);
	if (!va)
		goto free_pages;
	return va;

free_pages:
	while (i--)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
	cb->pages = NULL;
	return NULL;
}

static void tring_cpu_free_pages(struct tring_cpu *cb, void *va)
{
	unsigned long i;

	vunmap(va);
	for (i = 0; i < cb->nr_pages; i++)
		__free_page(cb->pages[i]);
	kvfree(cb->pages);
}

/* The irq_work tring_maybe_wake() queues: wake the ring's reader. */
static void tring_wakeup_fn(struct irq_work *work)
{
	struct tring_cpu *cb = container_of(work, struct tring_cpu, wakeup);

	WRITE_ONCE(cb->reader_waiting, 0);
	wake_up_all(&cb->waitq);
}

/* Everything but the memory, from the buffer's attributes. */
static void tring_cpu_setup(struct tring_cpu *cb, struct tring_buffer *buf,
			    unsigned int cpu)
{
	const struct tring_buffer_attr *attr = &buf->attr;
	unsigned long nslots = attr->subbuf_count;

	cb->buf = buf;
	cb->cpu = cpu;
	cb->subbuf_size = attr->subbuf_size;
	cb->subbuf_mask = attr->subbuf_size - 1;
	cb->subbuf_shift = ilog2(attr->subbuf_size);
	cb->cur_last = TRING_NO_LAST;
	cb->slot_mask = nslots - 1;
	cb->lap_shift = cb->subbuf_shift + ilog2(nslots);
	cb->clock = attr->clock;
	cb->overwrite = attr->flags & TRING_OVERWRITE;
	/* A record must end before its packet does, after any header. */
	cb->max_payload = cb->subbuf_size - TRING_PACKET_HEADER_SIZE -
			  TRING_EVENT_HEADER_EXT_SIZE - 4;
	cb->nr_phys = nslots + cb->overwrite;
	cb->nr_pages = cb->nr_phys << (cb->subbuf_shift - PAGE_SHIFT);
	cb->reader_phys = nslots;
	/*
	 * An eighth by default: the reader is woken with most of the ring
	 * still free, so a reader slow to be scheduled (hackbench's dozens
	 * of runnable tasks per CPU, on 6.12) loses nothing; at half the
	 * ring it lost 5% of the events there.
	 */
	cb->watermark = attr->watermark ?: max(nslots / 8, 1UL);
	init_waitqueue_head(&cb->waitq);
	init_irq_work(&cb->wakeup, tring_wakeup_fn);
}

/*
 * Make @cpu's ring. Called for each CPU online when the buffer is made,
 * and from the CPU-hotplug prepare step of a CPU coming online, before it
 * runs anything; both under the hotplug lock, so never at once for a
 * ring.
 */
static int tring_cpu_init(struct tring_cpu *cb, struct tring_buffer *buf,
			  unsigned int cpu)
{
	int node = cpu_to_node(cpu);
	unsigned long i, nslots;
	void *va;

	tring_cpu_setup(cb, buf, cpu);
	nslots = cb->slot_mask + 1;
	if (buf->mem) {
		/* Zeroed by the provider, slots and sub-buffers. */
		va = buf->mem->cpu_area(buf->mem, cpu, &cb->slots, &cb->pfn);
		if (!va)
			return -ENOMEM;
	} else {
		va = tring_cpu_alloc_pages(cb, node);
		if (!va)
			return -ENOMEM;
		cb->slots = kvmalloc_node(array_size(nslots, sizeof(*cb->slots)),
					  GFP_KERNEL | __GFP_ZERO, node);
		if (!cb->slots)
			goto free_pages;
	}
	for (i = 0; i < nslots; i++)
		atomic_long_set(&cb->slots[i].map, i | TRING_MAP_TAKEN);
	/*
	 * Pairs with smp_load_acquire() in tring_buffer_cpu(): a reader
	 * that sees the ring made sees all of the above.
	 */
	smp_store_release(&cb->va, va);
	return 0;

free_pages:
	tring_cpu_free_pages(cb, va);
	return -ENOMEM;
}

static void tring_cpu_free(struct tring_cpu *cb)
{
	irq_work_sync(&cb->wakeup);
	if (cb->buf->mem)
		return;
	kvfree(cb->slots);
	tring_cpu_free_pages(cb, cb->va);
}

/* Free the rings made; no writer is left. */
static void tring_buffer_free_rings(struct tring_buffer *buf)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct tring_cpu *cb = per_cpu_ptr(buf->cpus, cpu);

		if (cb->va)
			tring_cpu_free(cb);
	}
	free_percpu(buf->cpus);
}

/*
 * The CPU-hotplug state (CPUHP_BP_PREPARE_DYN, multi-instance) with one
 * instance per buffer, whose startup makes a CPU's ring. Set up at load
 * by tring_core_init().
 */
static enum cpuhp_state tring_cpuhp_state;

/*
 * CPU @cpu is coming online (or the buffer is being made): make its ring
 * unless it has one from an earlier time online. A CPU without the
 * memory for its ring does not come online, as with ftrace's buffers.
 */
static int tring_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct tring_buffer *buf = hlist_entry(node, struct tring_buffer,
					       cpuhp_node);
	struct tring_cpu *cb = per_cpu_ptr(buf->cpus, cpu);
	int ret;

	if (cb->va)
		return 0;
	ret = tring_cpu_init(cb, buf, cpu);
	if (ret)
		pr_warn("buffer '%s': no memory for CPU %u's ring (%zu KiB)\n",
			buf->name, cpu,
			(buf->attr.subbuf_count + cb->overwrite) *
			(buf->attr.subbuf_size >> 10));
	return ret;
}

/**
 * tring_core_init - set up the CPU-hotplug state that makes the rings
 *
 * Context: module load, before any buffer is made.
 * Return: 0 or a negative errno.
 */
int tring_core_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "trace/tring:prepare",
				      tring_cpu_prepare, NULL);
	if (ret < 0)
		return ret;
	tring_cpuhp_state = ret;
	return 0;
}

/**
 * tring_core_exit - remove the CPU-hotplug state
 *
 * Context: module unload or failed load, once every buffer is freed.
 */
void tring_core_exit(void)
{
	cpuhp_remove_multi_state(tring_cpuhp_state);
}

/**
 * tring_buffer_alloc_in - allocate a buffer, its rings in given memory
 * @attr: the attributes.
 * @mem: where the rings go (a persistent region), or NULL for pages of
 *	their own (tring_buffer_alloc()). Its geometry must be @attr's; it
 *	must outlive the buffer.
 *
 * Context: process; may sleep; takes the CPU-hotplug lock.
 * Return: the buffer, or an ERR_PTR(): -EINVAL for bad attributes,
 * -ENOMEM.
 */
struct tring_buffer *tring_buffer_alloc_in(const struct tring_buffer_attr *attr,
					   struct tring_ring_mem *mem)
{
	struct tring_buffer *buf;
	int ret;

	ret = tring_check_attr(attr);
	if (ret)
		return ERR_PTR(ret);
	mutex_lock(&tring_mem_lock);
	ret = mem ? 0 : tring_check_memory(attr);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		goto unlock;
	buf->attr = *attr;
	buf->mem = mem;
	strscpy(buf->name, attr->name ?: "", sizeof(buf->name));
	buf->attr.name = buf->name;
	buf->cpus = alloc_percpu(struct tring_cpu);
	if (!buf->cpus)
		goto free_buf;
	/* Makes the online CPUs' rings; on failure, adds no instance. */
	ret = cpuhp_state_add_instance(tring_cpuhp_state, &buf->cpuhp_node);
	if (ret)
		goto free_rings;
	mutex_unlock(&tring_mem_lock);
	return buf;

free_rings:
	tring_buffer_free_rings(buf);
free_buf:
	kfree(buf);
unlock:
	mutex_unlock(&tring_mem_lock);
	return ERR_PTR(ret);
}

/**
 * tring_buffer_alloc - allocate a buffer with a ring for every online CPU
 * @attr: the attributes.
 *
 * Each ring's sub-buffers are allocated page by page on the CPU's node,
 * zeroed, and mapped contiguously with vmap(). A buffer whose pages would
 * leave less than an eighth of RAM available is refused (with a kernel
 * message naming the sizes) before anything is allocated. A CPU that
 * comes online later gets its ring before it runs anything.
 *
 * Context: process; may sleep; takes the CPU-hotplug lock.
 * Return: the buffer, or an ERR_PTR(): -EINVAL for bad attributes,
 * -ENOMEM.
 */
struct tring_buffer *tring_buffer_alloc(const struct tring_buffer_attr *attr)
{
	return tring_buffer_alloc_in(attr, NULL);
}

/**
 * tring_buffer_free - free a buffer
 * @buf: the buffer; no new writer may start on it.
 *
 * Writers run with preemption disabled: after synchronize_rcu() every
 * writer that could still see @buf has finished. Pages still mapped by
 * user space stay until unmapped.
 *
 * Context: process; may sleep.
 */
void tring_buffer_free(struct tring_buffer *buf)
{
	cpuhp_state_remove_instance_nocalls(tring_cpuhp_state,
					    &buf->cpuhp_node);
	synchronize_rcu();
	tring_buffer_free_rings(buf);
	kfree(buf);
}
