/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's state, shared by tks_load.c (reading the trace) and
 * tks_pack.c (packing each record, describing each event class).
 */
#ifndef TKS_LOAD_H
#define TKS_LOAD_H

#include <babeltrace2/babeltrace.h>

#include "tks.h"

#define TKS_MAX_STREAMS	1024
#define TKS_MAX_CPUS	4096

struct tks_loader {
	struct tks_trace *t;
	const bt_stream *stream[TKS_MAX_STREAMS];
	int stream_cpu[TKS_MAX_STREAMS];
	int nr_streams;
	int32_t current[TKS_MAX_CPUS];	/* the running task, -1: not known */
	const void **keys;		/* event class -> t->classes index */
	int *vals;
	size_t cap;
	unsigned char *rec;		/* the record being packed */
	size_t len, rec_cap;
	int err;
};


int tks_put_bytes(struct tks_loader *ld, const void *p, size_t n);
int tks_pack_struct(struct tks_loader *ld, const struct tks_class *c,
		    const bt_field *s, int *index);
int tks_class_new(struct tks_loader *ld, const void *key,
		  const bt_event_class *ec);

#endif
