// SPDX-License-Identifier: GPL-2.0
/*
 * What tring's KernelShark plugin keeps of a trace: the columns, the
 * packed fields and the tasks' names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tks.h"

/* Copy @len bytes of @rec into the arena; its place in *@off. */
int tks_arena_put(struct tks_arena *a, const void *rec, size_t len,
		  int64_t *off)
{
	unsigned char **chunk;

	if (len > TKS_CHUNK)
		return -E2BIG;
	if (!a->nr_chunks || a->used + len > TKS_CHUNK) {
		chunk = realloc(a->chunk, (a->nr_chunks + 1) * sizeof(*chunk));
		if (!chunk)
			return -ENOMEM;
		a->chunk = chunk;
		chunk[a->nr_chunks] = malloc(TKS_CHUNK);
		if (!chunk[a->nr_chunks])
			return -ENOMEM;
		a->nr_chunks++;
		a->used = 0;
	}
	memcpy(a->chunk[a->nr_chunks - 1] + a->used, rec, len);
	*off = (int64_t)(a->nr_chunks - 1) << TKS_CHUNK_SHIFT | a->used;
	a->used += len;
	return 0;
}

const unsigned char *tks_arena_at(const struct tks_arena *a, int64_t off)
{
	size_t chunk = (uint64_t)off >> TKS_CHUNK_SHIFT;

	if (off < 0 || chunk >= a->nr_chunks)
		return NULL;
	return a->chunk[chunk] + (off & (TKS_CHUNK - 1));
}

void tks_arena_free(struct tks_arena *a)
{
	size_t i;

	for (i = 0; i < a->nr_chunks; i++)
		free(a->chunk[i]);
	free(a->chunk);
	memset(a, 0, sizeof(*a));
}

static size_t tks_comm_slot(const struct tks_comm *tab, size_t cap,
			    int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (cap - 1);

	while (tab[i].tid && tab[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Twice the slots, every name moved. */
static int tks_comm_grow(struct tks_trace *t)
{
	size_t cap = t->comms_cap ? t->comms_cap * 2 : 1024, i;
	struct tks_comm *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->comms_cap; i++)
		if (t->comms[i].tid)
			tab[tks_comm_slot(tab, cap, t->comms[i].tid)] = t->comms[i];
	free(t->comms);
	t->comms = tab;
	t->comms_cap = cap;
	return 0;
}

/* @tid's name is @comm from now on (the last name seen is kept). */
int tks_comm_set(struct tks_trace *t, int32_t tid, const char *comm)
{
	struct tks_comm *c;

	if (tid <= 0 || !comm || !*comm)
		return 0;
	if ((t->nr_comms + 1) * 2 > t->comms_cap && tks_comm_grow(t))
		return -ENOMEM;
	c = &t->comms[tks_comm_slot(t->comms, t->comms_cap, tid)];
	if (!c->tid) {
		c->tid = tid;
		t->nr_comms++;
	}
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	return 0;
}

const char *tks_comm_get(const struct tks_trace *t, int32_t tid)
{
	const struct tks_comm *c;

	if (tid == 0)
		return "<idle>";
	if (tid < 0 || !t->comms_cap)
		return NULL;
	c = &t->comms[tks_comm_slot(t->comms, t->comms_cap, tid)];
	return c->tid ? c->comm : NULL;
}

size_t tks_put_uint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	return n;
}

const unsigned char *tks_get_uint(const unsigned char *p, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	do {
		if (shift < 64)
			*v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	return p;
}

/* The field after the one at @p, of @kind; its value in @val or @str. */
static const unsigned char *tks_next(const unsigned char *p,
				     enum tks_kind kind, int64_t *val,
				     const char **str)
{
	uint64_t u;

	*str = NULL;
	switch (kind) {
	case TKS_UINT:
		p = tks_get_uint(p, &u);
		*val = (int64_t)u;
		return p;
	case TKS_SINT:
		p = tks_get_uint(p, &u);
		*val = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		return p;
	default:
		*str = (const char *)p;
		return p + strlen(*str) + 1;
	}
}

/*
 * Field @index of the record @rec of class @c: an integer in *@val, or
 * a string in *@str. Returns 0, or -ENOENT.
 */
int tks_field_value(const struct tks_class *c, const unsigned char *rec,
		    int index, int64_t *val, const char **str)
{
	int i;

	if (!rec || index < 0 || index >= c->nr_fields)
		return -ENOENT;
	for (i = 0; i <= index; i++)
		rec = tks_next(rec, c->fields[i].kind, val, str);
	return 0;
}

/* "name=value name=value ...": the record's fields, to be freed. */
char *tks_format_fields(const struct tks_class *c, const unsigned char *rec)
{
	char *buf = NULL;
	size_t size = 0;
	const char *str;
	int64_t val;
	FILE *f;
	int i;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (i = 0; rec && i < c->nr_fields; i++) {
		const struct tks_field *fl = &c->fields[i];

		rec = tks_next(rec, fl->kind, &val, &str);
		fprintf(f, "%s%s=", i ? " " : "", fl->name);
		if (str)
			fputs(str, f);
		else if (fl->hex)
			fprintf(f, "0x%" PRIx64, (uint64_t)val);
		else if (fl->kind == TKS_UINT)
			fprintf(f, "%" PRIu64, (uint64_t)val);
		else
			fprintf(f, "%" PRId64, val);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int tks_grow(void **p, size_t cap, size_t size)
{
	void *n = realloc(*p, cap * size);

	if (!n)
		return -ENOMEM;
	*p = n;
	return 0;
}

/* Room for one more row; its index is t->n (not yet counted). */
int tks_add_row(struct tks_trace *t)
{
	size_t cap;

	if (t->n < t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 65536;
	if (tks_grow((void **)&t->ts, cap, sizeof(*t->ts)) ||
	    tks_grow((void **)&t->off, cap, sizeof(*t->off)) ||
	    tks_grow((void **)&t->pid, cap, sizeof(*t->pid)) ||
	    tks_grow((void **)&t->cpu, cap, sizeof(*t->cpu)) ||
	    tks_grow((void **)&t->event, cap, sizeof(*t->event)))
		return -ENOMEM;
	t->cap = cap;
	return 0;
}
