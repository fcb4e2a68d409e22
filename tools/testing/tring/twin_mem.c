// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: the allocators behind the shim headers (shim/): kmalloc,
 * per-CPU areas, pages and vmap(), each counted (a test checks that
 * none is left), failing on request (twin_fail_alloc_after()), and the
 * memory the core checks a new buffer against (twin_set_memory()).
 * vmap() gives fresh zeroed memory between two guard pages.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "twin.h"

/* Pages: plenty unless a test says otherwise. */
static long twin_mem_available = 1L << 40;
static unsigned long twin_totalram = 1UL << 40;

void twin_set_memory(long available, unsigned long total)
{
	__atomic_store_n(&twin_mem_available, available, __ATOMIC_RELAXED);
	__atomic_store_n(&twin_totalram, total, __ATOMIC_RELAXED);
}

long si_mem_available(void)
{
	return __atomic_load_n(&twin_mem_available, __ATOMIC_RELAXED);
}

unsigned long totalram_pages(void)
{
	return __atomic_load_n(&twin_totalram, __ATOMIC_RELAXED);
}

static long twin_fail_countdown;
static long twin_outstanding;

void twin_fail_alloc_after(long n)
{
	__atomic_store_n(&twin_fail_countdown, n, __ATOMIC_RELAXED);
}

bool twin_alloc_should_fail(void)
{
	long n = __atomic_load_n(&twin_fail_countdown, __ATOMIC_RELAXED);

	if (n <= 0)
		return false;
	return __atomic_sub_fetch(&twin_fail_countdown, 1,
				  __ATOMIC_RELAXED) == 0;
}

long twin_outstanding_allocs(void)
{
	return __atomic_load_n(&twin_outstanding, __ATOMIC_RELAXED);
}

static void twin_count_alloc(long d)
{
	__atomic_fetch_add(&twin_outstanding, d, __ATOMIC_RELAXED);
}

void *twin_kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	if (twin_alloc_should_fail() || size == SIZE_MAX)
		return NULL;
	p = (gfp & __GFP_ZERO) ? calloc(1, size ?: 1) : malloc(size ?: 1);
	if (p)
		twin_count_alloc(1);
	return p;
}

void twin_kfree(const void *p)
{
	if (!p)
		return;
	twin_count_alloc(-1);
	free((void *)p);
}

void *twin_alloc_percpu(size_t size, size_t align)
{
	/* Copies a constant stride apart, like separate per-CPU areas. */
	size_t stride = TWIN_PERCPU_UNIT;
	char *p;

	if (size > stride || align > stride)
		abort();
	if (twin_alloc_should_fail())
		return NULL;
	p = aligned_alloc(stride, stride * TWIN_NR_CPUS);
	if (!p)
		return NULL;
	memset(p, 0, stride * TWIN_NR_CPUS);
	twin_count_alloc(1);
	return p;
}

void twin_free_percpu(void *p)
{
	if (!p)
		return;
	twin_count_alloc(-1);
	free(p);
}

struct page *alloc_pages_node(int node, gfp_t gfp, unsigned int order)
{
	static unsigned long next_id;
	struct page *page;

	(void)node;
	(void)gfp;
	if (order || twin_alloc_should_fail())
		return NULL;
	page = calloc(1, sizeof(*page));
	if (!page)
		return NULL;
	page->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	twin_count_alloc(1);
	return page;
}

void __free_page(struct page *page)
{
	if (!page)
		return;
	twin_count_alloc(-1);
	free(page);
}

struct twin_vmap {
	struct twin_vmap *next;
	char *va;
	size_t size;
};

static struct twin_vmap *twin_vmaps;
static pthread_mutex_t twin_vmap_lock = PTHREAD_MUTEX_INITIALIZER;

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot)
{
	size_t size = (size_t)count * PAGE_SIZE;
	struct twin_vmap *v;
	char *m;

	(void)pages;
	(void)flags;
	(void)prot;
	if (!count || twin_alloc_should_fail())
		return NULL;
	v = malloc(sizeof(*v));
	if (!v)
		return NULL;
	/* Fresh anonymous memory is zeroed; the guard pages stay PROT_NONE. */
	m = mmap(NULL, size + 2 * PAGE_SIZE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		free(v);
		return NULL;
	}
	if (mprotect(m + PAGE_SIZE, size, PROT_READ | PROT_WRITE)) {
		munmap(m, size + 2 * PAGE_SIZE);
		free(v);
		return NULL;
	}
	v->va = m + PAGE_SIZE;
	v->size = size;
	pthread_mutex_lock(&twin_vmap_lock);
	v->next = twin_vmaps;
	twin_vmaps = v;
	pthread_mutex_unlock(&twin_vmap_lock);
	twin_count_alloc(1);
	return v->va;
}

void vunmap(const void *addr)
{
	struct twin_vmap **pp, *v = NULL;

	if (!addr)
		return;
	pthread_mutex_lock(&twin_vmap_lock);
	for (pp = &twin_vmaps; *pp; pp = &(*pp)->next) {
		if ((*pp)->va == addr) {
			v = *pp;
			*pp = v->next;
			break;
		}
	}
	pthread_mutex_unlock(&twin_vmap_lock);
	if (!v) {
		fprintf(stderr, "vunmap: %p was not mapped\n", addr);
		abort();
	}
	munmap(v->va - PAGE_SIZE, v->size + 2 * PAGE_SIZE);
	free(v);
	twin_count_alloc(-1);
}
