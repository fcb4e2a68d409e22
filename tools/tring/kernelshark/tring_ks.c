// SPDX-License-Identifier: GPL-2.0
/*
 * tring's KernelShark input plugin: a tring recording (a CTF trace)
 * opened in KernelShark 2:
 *
 *   kernelshark -p /usr/local/lib/tring/tring-ks.so DIR/kernel/metadata
 *
 * Every event is an entry with its CPU, time, name, the task running on
 * its CPU, and its fields as the list view's info. The trace is read
 * whole when the stream opens (tks_load.c); entries are made from it
 * each time KernelShark loads them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkshark.h>
#include <libkshark-plugin.h>

#include "tks.h"

static struct tks_trace *tks_of(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *in = stream->interface;

	return in ? in->handle : NULL;
}

static const struct tks_class *tks_class(struct kshark_data_stream *stream,
					 const struct kshark_entry *e)
{
	struct tks_trace *t = tks_of(stream);

	if (!t || !e || e->event_id < 0 || e->event_id >= t->nr_classes)
		return NULL;
	return &t->classes[e->event_id];
}

static const unsigned char *tks_rec(struct kshark_data_stream *stream,
				    const struct kshark_entry *e)
{
	return tks_arena_at(&tks_of(stream)->arena, e->offset);
}

static int tks_get_pid(struct kshark_data_stream *stream,
			     const struct kshark_entry *e)
{
	(void)stream;
	return e->pid;
}

static int tks_get_event_id(struct kshark_data_stream *stream,
				  const struct kshark_entry *e)
{
	(void)stream;
	return e->event_id;
}

static char *tks_get_event_name(struct kshark_data_stream *stream,
				const struct kshark_entry *e)
{
	const struct tks_class *c = tks_class(stream, e);

	return c ? strdup(c->name) : NULL;
}

static char *tks_get_task(struct kshark_data_stream *stream,
			  const struct kshark_entry *e)
{
	const char *comm = tks_comm_get(tks_of(stream), e->pid);
	char *s;

	if (comm)
		return strdup(comm);
	return asprintf(&s, "<%d>", e->pid) < 0 ? NULL : s;
}

static char *tks_get_info(struct kshark_data_stream *stream,
			  const struct kshark_entry *e)
{
	const struct tks_class *c = tks_class(stream, e);

	return c ? tks_format_fields(c, tks_rec(stream, e)) : NULL;
}

static char *tks_aux_info(struct kshark_data_stream *stream,
			  const struct kshark_entry *e)
{
	(void)stream;
	(void)e;
	return NULL;
}

static int tks_find_event_id(struct kshark_data_stream *stream,
			     const char *name)
{
	struct tks_trace *t = tks_of(stream);
	int i;

	for (i = 0; t && i < t->nr_classes; i++)
		if (!strcmp(t->classes[i].name, name))
			return i;
	return -EINVAL;
}

static int *tks_get_all_event_ids(struct kshark_data_stream *stream)
{
	struct tks_trace *t = tks_of(stream);
	int *ids, i;

	ids = t ? calloc(t->nr_classes ?: 1, sizeof(*ids)) : NULL;
	for (i = 0; ids && i < t->nr_classes; i++)
		ids[i] = i;
	return ids;
}

static char *tks_dump_entry(struct kshark_data_stream *stream,
			    const struct kshark_entry *e)
{
	char *info = tks_get_info(stream, e), *task = tks_get_task(stream, e);
	const struct tks_class *c = tks_class(stream, e);
	char *s = NULL;

	if (c && info && task &&
	    asprintf(&s, "%lld cpu %d %s-%d %s: %s", (long long)e->ts, e->cpu,
		     task, e->pid, c->name, info) < 0)
		s = NULL;
	free(info);
	free(task);
	return s;
}

static int tks_get_all_field_names(struct kshark_data_stream *stream,
				   const struct kshark_entry *e, char ***out)
{
	const struct tks_class *c = tks_class(stream, e);
	char **names;
	int i;

	*out = NULL;
	if (!c)
		return -EINVAL;
	names = calloc(c->nr_fields ?: 1, sizeof(*names));
	for (i = 0; names && i < c->nr_fields; i++) {
		names[i] = strdup(c->fields[i].name);
		if (!names[i]) {
			while (i--)
				free(names[i]);
			free(names);
			names = NULL;
		}
	}
	if (!names)
		return -ENOMEM;
	*out = names;
	return c->nr_fields;
}

/* The index of field @name in class @c, or -1. */
static int tks_field_index(const struct tks_class *c, const char *name)
{
	int i;

	for (i = 0; c && i < c->nr_fields; i++)
		if (!strcmp(c->fields[i].name, name))
			return i;
	return -1;
}

static kshark_event_field_format
tks_get_field_type(struct kshark_data_stream *stream,
		   const struct kshark_entry *e, const char *name)
{
	const struct tks_class *c = tks_class(stream, e);
	int i = tks_field_index(c, name);

	if (i < 0 || c->fields[i].kind > TKS_SINT)
		return KS_INVALID_FIELD;
	return KS_INTEGER_FIELD;
}

static int tks_read_field(struct kshark_data_stream *stream,
				const struct kshark_entry *e,
				const char *name, int64_t *val)
{
	const struct tks_class *c = tks_class(stream, e);
	int i = tks_field_index(c, name);
	const char *str;

	if (i < 0 || c->fields[i].kind > TKS_SINT)
		return -EINVAL;
	return tks_field_value(c, tks_rec(stream, e), i, val, &str);
}

static int tks_read_record_field(struct kshark_data_stream *stream,
				       void *rec, const char *name,
				       int64_t *val)
{
	(void)stream;
	(void)rec;
	(void)name;
	(void)val;
	return -EINVAL;
}

/* Entries for KernelShark (which frees them), each CPU's chained. */
static ssize_t tks_load_entries(struct kshark_data_stream *stream,
				struct kshark_context *ctx,
				struct kshark_entry ***out)
{
	struct tks_trace *t = tks_of(stream);
	struct kshark_entry **rows, **last;
	size_t i;

	(void)ctx;
	rows = t ? calloc(t->n ?: 1, sizeof(*rows)) : NULL;
	last = t ? calloc(t->nr_cpus ?: 1, sizeof(*last)) : NULL;
	for (i = 0; rows && last && i < t->n; i++) {
		struct kshark_entry *e = calloc(1, sizeof(*e));

		if (!e)
			break;
		e->visible = 0xff;
		e->stream_id = stream->stream_id;
		e->event_id = t->event[i];
		e->cpu = t->cpu[i];
		e->pid = t->pid[i];
		e->offset = t->off[i];
		e->ts = t->ts[i];
		if (last[e->cpu])
			last[e->cpu]->next = e;
		last[e->cpu] = e;
		rows[i] = e;
	}
	free(last);
	if (!rows || i < t->n) {
		while (rows && i--)
			free(rows[i]);
		free(rows);
		return -ENOMEM;
	}
	*out = rows;
	return t->n;
}

/* A copy of @n items of @size at @src into *@dst, if @dst. */
static int tks_copy(void *dst, const void *src, size_t n, size_t size)
{
	void **d = dst;

	if (!d)
		return 0;
	*d = malloc(n * size ?: 1);
	if (!*d)
		return -ENOMEM;
	memcpy(*d, src, n * size);
	return 0;
}

/* No copy at *@dst yet, if @dst. */
static void tks_clear(void *dst)
{
	void **d = dst;

	if (d)
		*d = NULL;
}

/* Free the copy at *@dst, if @dst (NULL: nothing there yet). */
static void tks_uncopy(void *dst)
{
	void **d = dst;

	if (d) {
		free(*d);
		*d = NULL;
	}
}

/* The same as columns (KernelShark's Python interface). */
static ssize_t tks_load_matrix(struct kshark_data_stream *stream,
			       struct kshark_context *ctx, int16_t **event,
			       int16_t **cpu, int32_t **pid, int64_t **off,
			       int64_t **ts)
{
	struct tks_trace *t = tks_of(stream);

	(void)ctx;
	if (!t)
		return -EINVAL;
	tks_clear(event);
	tks_clear(cpu);
	tks_clear(pid);
	tks_clear(off);
	tks_clear(ts);
	if (tks_copy(event, t->event, t->n, sizeof(*t->event)) ||
	    tks_copy(cpu, t->cpu, t->n, sizeof(*t->cpu)) ||
	    tks_copy(pid, t->pid, t->n, sizeof(*t->pid)) ||
	    tks_copy(off, t->off, t->n, sizeof(*t->off)) ||
	    tks_copy(ts, t->ts, t->n, sizeof(*t->ts)))
		goto free_copies;
	return t->n;

free_copies:
	tks_uncopy(event);
	tks_uncopy(cpu);
	tks_uncopy(pid);
	tks_uncopy(off);
	tks_uncopy(ts);
	return -ENOMEM;
}

static const char tks_format[] = "tring_ctf";

const char *KSHARK_INPUT_FORMAT(void)
{
	return tks_format;
}

/* Whether the first bytes of @path are a CTF 1.8 metadata's. */
static bool tks_is_metadata(const char *path)
{
	static const unsigned char magic_le[4] = { 0x57, 0x1d, 0xd1, 0x75 };
	static const unsigned char magic_be[4] = { 0x75, 0xd1, 0x1d, 0x57 };
	unsigned char head[10] = { 0 };
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return (n == sizeof(head) && !memcmp(head, "/* CTF 1.8", 10)) ||
	       (n >= 4 && (!memcmp(head, magic_le, 4) || !memcmp(head, magic_be, 4)));
}

/*
 * The trace directory of @file: a CTF metadata file's directory, or a
 * directory holding one (DIR/metadata, or a recording's DIR/kernel/).
 * NULL if @file is neither. To be freed.
 */
static char *tks_trace_dir(const char *file)
{
	const char *base = strrchr(file, '/');
	struct stat st;
	char *p = NULL;

	if (stat(file, &st))
		return NULL;
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&p, "%s/metadata", file) < 0)
			return NULL;
		if (!tks_is_metadata(p)) {
			free(p);
			if (asprintf(&p, "%s/kernel/metadata", file) < 0)
				return NULL;
		}
		if (!tks_is_metadata(p)) {
			free(p);
			return NULL;
		}
		*strrchr(p, '/') = '\0';
		return p;
	}
	base = base ? base + 1 : file;
	if (strcmp(base, "metadata") || !tks_is_metadata(file))
		return NULL;
	if (base == file)
		return strdup(".");
	return strndup(file, base - 1 - file);
}

bool KSHARK_INPUT_CHECK(const char *file)
{
	char *dir = tks_trace_dir(file);

	free(dir);
	return dir != NULL;
}

static void tks_set_methods(struct kshark_generic_stream_interface *in)
{
	in->type = KS_GENERIC_DATA_INTERFACE;
	in->get_pid = tks_get_pid;
	in->get_event_id = tks_get_event_id;
	in->get_event_name = tks_get_event_name;
	in->get_task = tks_get_task;
	in->get_info = tks_get_info;
	in->aux_info = tks_aux_info;
	in->find_event_id = tks_find_event_id;
	in->get_all_event_ids = tks_get_all_event_ids;
	in->dump_entry = tks_dump_entry;
	in->get_all_event_field_names = tks_get_all_field_names;
	in->get_event_field_type = tks_get_field_type;
	in->read_event_field_int64 = tks_read_field;
	in->read_record_field_int64 = tks_read_record_field;
	in->load_entries = tks_load_entries;
	in->load_matrix = tks_load_matrix;
}

int KSHARK_INPUT_INITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *in;
	struct tks_trace *t = calloc(1, sizeof(*t));
	char *dir = tks_trace_dir(stream->file);
	size_t i;
	int err;

	in = calloc(1, sizeof(*in));
	err = !t || !in ? -ENOMEM : !dir ? -ENODATA : tks_load(t, dir);
	if (err) {
		fprintf(stderr, "tring-ks: %s: %s\n", stream->file, strerror(-err));
		tks_free(t);
		free(t);
		free(in);
		free(dir);
		return err;
	}
	free(dir);
	for (i = 0; i < t->n; i++)
		kshark_hash_id_add(stream->tasks, t->pid[i]);
	stream->n_cpus = t->nr_cpus;
	stream->n_events = t->nr_classes;
	stream->idle_pid = 0;
	tks_set_methods(in);
	in->handle = t;
	stream->interface = in;
	return 0;
}

int KSHARK_INPUT_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct tks_trace *t = tks_of(stream);

	if (t) {
		tks_free(t);
		free(t);
	}
	free(stream->interface);
	stream->interface = NULL;
	return 0;
}
