/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring's KernelShark input plugin: a CTF trace (tring's, or LTTng's
 * kernel traces) read through libbabeltrace2 into what KernelShark
 * keeps of each event, its fields packed beside it.
 *
 * Memory per event: 24 bytes of columns here (time, field offset,
 * task, CPU, event id), the packed fields (a varint per integer, the
 * bytes of each string), and KernelShark's own entry (48 bytes and its
 * allocation) when it loads them.
 */
#ifndef TKS_H
#define TKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a field is packed. */
enum tks_kind {
	TKS_UINT,	/* LEB128 */
	TKS_SINT,	/* zigzag, then LEB128 */
	TKS_STR,	/* the bytes and a NUL */
	TKS_TEXT,	/* anything else, formatted as babeltrace2 would */
};

struct tks_field {
	char *name;
	enum tks_kind kind;
	bool hex;		/* an integer shown in hexadecimal */
};

/* Fields whose values give the running task and the tasks' names. */
enum tks_role {
	TKS_PREV_TID, TKS_PREV_COMM, TKS_NEXT_TID, TKS_NEXT_COMM,
	TKS_CTX_TID, TKS_CTX_COMM, TKS_TID, TKS_COMM,
	TKS_CHILD_TID, TKS_CHILD_COMM, TKS_NR_ROLES
};

/* An event class: its name and its fields (contexts, then payload). */
struct tks_class {
	const void *key;	/* the bt_event_class, or NULL: ours */
	char *name;
	int nr_fields;
	struct tks_field *fields;
	int role[TKS_NR_ROLES];	/* field index, or -1 */
	bool sched_switch;
	bool skip;		/* tring's padding and no-op records */
};

/* The packed fields: 16 MiB chunks, a record never across two. */
#define TKS_CHUNK_SHIFT	24
#define TKS_CHUNK	(1UL << TKS_CHUNK_SHIFT)

struct tks_arena {
	unsigned char **chunk;
	size_t nr_chunks, used;	/* used: of the last chunk */
};

/* A task id and its name. */
struct tks_comm {
	int32_t tid;
	char comm[20];
};

/* The whole trace, in time order. */
struct tks_trace {
	size_t n, cap;
	int64_t *ts, *off;
	int32_t *pid;
	int16_t *cpu, *event;
	struct tks_class *classes;
	int nr_classes;
	struct tks_arena arena;
	struct tks_comm *comms;	/* open addressing, tid 0 never stored */
	size_t comms_cap, nr_comms;
	int nr_cpus;
	uint64_t lost;		/* events the trace says were discarded */
};

/* tks_load.c */
int tks_load(struct tks_trace *t, const char *dir);
void tks_free(struct tks_trace *t);

/* tks_store.c */
int tks_arena_put(struct tks_arena *a, const void *rec, size_t len,
		  int64_t *off);
const unsigned char *tks_arena_at(const struct tks_arena *a, int64_t off);
void tks_arena_free(struct tks_arena *a);
int tks_comm_set(struct tks_trace *t, int32_t tid, const char *comm);
const char *tks_comm_get(const struct tks_trace *t, int32_t tid);
size_t tks_put_uint(unsigned char *p, uint64_t v);
const unsigned char *tks_get_uint(const unsigned char *p, uint64_t *v);
int tks_field_value(const struct tks_class *c, const unsigned char *rec,
		    int index, int64_t *val, const char **str);
char *tks_format_fields(const struct tks_class *c, const unsigned char *rec);
int tks_add_row(struct tks_trace *t);

#endif
