// SPDX-License-Identifier: GPL-2.0
/*
 * A CTF trace read through libbabeltrace2 (src.ctf.fs, then
 * flt.utils.muxer for time order) into struct tks_trace: each event's
 * time, CPU (its packet's cpu_id), the task running on that CPU (from
 * sched_switch, or a tid context), and its fields packed (tks_pack.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tks_load.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static size_t tks_slot(const struct tks_loader *ld, const void *key)
{
	size_t i = ((uintptr_t)key >> 4) * 2654435761u & (ld->cap - 1);

	while (ld->keys[i] && ld->keys[i] != key)
		i = (i + 1) & (ld->cap - 1);
	return i;
}

/* Twice the slots of the class map. */
static int tks_map_grow(struct tks_loader *ld)
{
	size_t cap = ld->cap ? ld->cap * 2 : 256, i, j;
	const void **keys = ld->keys;
	int *vals = ld->vals;
	size_t old = ld->cap;

	ld->keys = calloc(cap, sizeof(*ld->keys));
	ld->vals = calloc(cap, sizeof(*ld->vals));
	ld->cap = cap;
	if (!ld->keys || !ld->vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < old; i++) {
		if (!keys[i])
			continue;
		j = tks_slot(ld, keys[i]);
		ld->keys[j] = keys[i];
		ld->vals[j] = vals[i];
	}
	free(keys);
	free(vals);
	return 0;
}

/* The class index of @key (@ec's), made the first time it is seen. */
static int tks_class_of(struct tks_loader *ld, const void *key,
			const bt_event_class *ec)
{
	size_t i;
	int id;

	if (ld->cap) {
		i = tks_slot(ld, key);
		if (ld->keys[i])
			return ld->vals[i];
	}
	if ((size_t)(ld->t->nr_classes + 1) * 2 > ld->cap && tks_map_grow(ld))
		return -ENOMEM;
	id = tks_class_new(ld, key, ec);
	if (id >= 0) {
		i = tks_slot(ld, key);
		ld->keys[i] = key;
		ld->vals[i] = id;
	}
	return id;
}

/* The CPU of @stream's packets (known from its first packet). */
static int tks_cpu_of(struct tks_loader *ld, const bt_stream *stream)
{
	int i;

	for (i = 0; i < ld->nr_streams; i++)
		if (ld->stream[i] == stream)
			return ld->stream_cpu[i];
	return 0;
}

/* A packet begins: its stream's CPU is the packet context's cpu_id. */
static int tks_packet(struct tks_loader *ld, const bt_message *msg)
{
	const bt_packet *p = bt_message_packet_beginning_borrow_packet_const(msg);
	const bt_stream *s = bt_packet_borrow_stream_const(p);
	const bt_field *ctx = bt_packet_borrow_context_field_const(p);
	const bt_field *cpu = NULL;
	int i, n = ld->nr_streams;

	if (ctx)
		cpu = bt_field_structure_borrow_member_field_by_name_const(ctx, "cpu_id");
	for (i = 0; i < n && ld->stream[i] != s; i++)
		;
	if (i == n) {
		if (n == TKS_MAX_STREAMS)
			return -E2BIG;
		ld->stream[i] = s;
		ld->nr_streams++;
	}
	ld->stream_cpu[i] = cpu ? (int)bt_field_integer_unsigned_get_value(cpu) :
				  (int)bt_stream_get_id(s);
	if (ld->stream_cpu[i] < 0 || ld->stream_cpu[i] >= TKS_MAX_CPUS)
		return -ERANGE;
	if (ld->stream_cpu[i] >= ld->t->nr_cpus)
		ld->t->nr_cpus = ld->stream_cpu[i] + 1;
	return 0;
}

/* Field @r of the record just packed, if class @c has it. */
static bool tks_role(const struct tks_loader *ld, const struct tks_class *c,
		     enum tks_role r, int64_t *val, const char **str)
{
	*val = 0;
	*str = NULL;
	return c->role[r] >= 0 &&
	       !tks_field_value(c, ld->rec, c->role[r], val, str);
}

/* The names the record gives tasks: learned. */
static int tks_learn(struct tks_loader *ld, const struct tks_class *c)
{
	static const enum tks_role pairs[][2] = {
		{ TKS_PREV_TID, TKS_PREV_COMM }, { TKS_NEXT_TID, TKS_NEXT_COMM },
		{ TKS_CTX_TID, TKS_CTX_COMM }, { TKS_TID, TKS_COMM },
		{ TKS_CHILD_TID, TKS_CHILD_COMM },
	};
	const char *s, *comm;
	int64_t tid, v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pairs); i++)
		if (tks_role(ld, c, pairs[i][0], &tid, &s) &&
		    tks_role(ld, c, pairs[i][1], &v, &comm) &&
		    tks_comm_set(ld->t, (int32_t)tid, comm))
			return -ENOMEM;
	return 0;
}

/*
 * The task of a record of class @c on @cpu: sched_switch's prev_tid, a
 * tid context, or the task the last sched_switch there switched to
 * (-1 before the first: tks_backfill()).
 */
static int32_t tks_task(struct tks_loader *ld, const struct tks_class *c,
			int cpu)
{
	int32_t pid = ld->current[cpu];
	const char *s;
	int64_t v;

	if (c->sched_switch && tks_role(ld, c, TKS_PREV_TID, &v, &s))
		pid = (int32_t)v;
	else if (tks_role(ld, c, TKS_CTX_TID, &v, &s))
		pid = (int32_t)v;
	if (c->sched_switch && tks_role(ld, c, TKS_NEXT_TID, &v, &s))
		ld->current[cpu] = (int32_t)v;
	return pid;
}

/* One row: @class's record (packed in ld->rec) at @ts on @cpu. */
static int tks_row(struct tks_loader *ld, int class, int64_t ts, int cpu)
{
	struct tks_trace *t = ld->t;
	const struct tks_class *c = &t->classes[class];
	int err = tks_add_row(t);

	err = err ?: tks_arena_put(&t->arena, ld->rec, ld->len, &t->off[t->n]);
	err = err ?: tks_learn(ld, c);
	if (err)
		return err;
	t->ts[t->n] = ts;
	t->cpu[t->n] = (int16_t)cpu;
	t->event[t->n] = (int16_t)class;
	t->pid[t->n] = tks_task(ld, c, cpu);
	t->n++;
	return 0;
}

/*
 * A time in ns of the trace's own clock (tring's and LTTng's: the
 * monotonic clock, time since boot as ftrace shows it), not from the
 * clock's origin (the epoch).
 */
static int64_t tks_ns(const bt_clock_snapshot *cs)
{
	uint64_t freq;

	if (!cs)
		return 0;
	freq = bt_clock_class_get_frequency(bt_clock_snapshot_borrow_clock_class_const(cs));
	if (!freq)
		return 0;
	return (int64_t)((__uint128_t)bt_clock_snapshot_get_value(cs) *
			 1000000000u / freq);
}

static int tks_event(struct tks_loader *ld, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	int class = tks_class_of(ld, ec, ec);
	const struct tks_class *c;
	int64_t ts = 0;
	int index = 0, err;

	if (class < 0)
		return class;
	c = &ld->t->classes[class];
	if (c->skip)
		return 0;
	ld->len = 0;
	err = tks_pack_struct(ld, c, bt_event_borrow_common_context_field_const(ev), &index) ?:
	      tks_pack_struct(ld, c, bt_event_borrow_specific_context_field_const(ev), &index) ?:
	      tks_pack_struct(ld, c, bt_event_borrow_payload_field_const(ev), &index);
	if (err)
		return err;
	if (bt_stream_class_borrow_default_clock_class_const(
		bt_event_class_borrow_stream_class_const(ec)))
		ts = tks_ns(bt_message_event_borrow_default_clock_snapshot_const(msg));
	return tks_row(ld, class, ts, tks_cpu_of(ld, bt_event_borrow_stream_const(ev)));
}

/* Events a stream lost: a row of our own, at the end of the gap. */
static int tks_discarded(struct tks_loader *ld, const bt_message *msg)
{
	static const char lost_key;
	const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	int class = tks_class_of(ld, &lost_key, NULL);
	unsigned char v[10];
	int64_t ts = 0;
	uint64_t n = 0;

	if (class < 0)
		return class;
	bt_message_discarded_events_get_count(msg, &n);
	ld->t->lost += n;
	if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
		ts = tks_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
	ld->len = 0;
	return tks_put_bytes(ld, v, tks_put_uint(v, n)) ?:
	       tks_row(ld, class, ts, tks_cpu_of(ld, s));
}

static int tks_message(struct tks_loader *ld, const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return tks_packet(ld, msg);
	case BT_MESSAGE_TYPE_EVENT:
		return tks_event(ld, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return tks_discarded(ld, msg);
	default:
		return 0;
	}
}

static bt_graph_simple_sink_component_consume_func_status
tks_consume(bt_message_iterator *it, void *data)
{
	struct tks_loader *ld = data;
	bt_message_array_const msgs;
	uint64_t i, n;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (!ld->err)
			ld->err = tks_message(ld, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return ld->err ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR :
			 BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* Component class @name of plugin @plugin, added to @g as @comp. */
static int tks_add(bt_graph *g, const char *plugin, const char *name,
		   const bt_value *params, const void **comp)
{
	const bt_plugin *p = NULL;
	int err = -EINVAL;

	if (bt_plugin_find(plugin, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return -ENOENT;
	if (params) {
		const bt_component_class_source *c =
			bt_plugin_borrow_source_component_class_by_name_const(p, name);

		if (c && bt_graph_add_source_component(g, c, name, params,
				BT_LOGGING_LEVEL_NONE, (const bt_component_source **)comp) ==
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			err = 0;
	} else {
		const bt_component_class_filter *c =
			bt_plugin_borrow_filter_component_class_by_name_const(p, name);

		if (c && bt_graph_add_filter_component(g, c, name, NULL,
				BT_LOGGING_LEVEL_NONE, (const bt_component_filter **)comp) ==
		    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			err = 0;
	}
	bt_plugin_put_ref(p);
	return err;
}

/* Every output port of @src into the muxer @mux, @mux into @sink. */
static int tks_connect(bt_graph *g, const bt_component_source *src,
		       const bt_component_filter *mux, const bt_component_sink *sink)
{
	uint64_t i, n = bt_component_source_get_output_port_count(src);

	if (!n)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (bt_graph_connect_ports(g,
			bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_filter_borrow_input_port_by_index_const(mux, i),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return -EIO;
	if (bt_graph_connect_ports(g,
		bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		return -EIO;
	return 0;
}

/* src.ctf.fs of @dir, flt.utils.muxer, our sink; NULL: *@err. */
static bt_graph *tks_graph(struct tks_loader *ld, const char *dir, int *perr)
{
	const bt_component_source *src = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	bt_graph *g = bt_graph_create(0);
	int err = -ENOMEM;

	if (!g || !params)
		goto out;
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir))
		goto out;
	err = tks_add(g, "ctf", "fs", params, (const void **)&src) ?:
	      tks_add(g, "utils", "muxer", NULL, (const void **)&mux);
	if (err)
		goto out;
	if (bt_graph_add_simple_sink_component(g, "tring-ks", NULL, tks_consume,
					       NULL, ld, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		err = -ENOMEM;
	else
		err = tks_connect(g, src, mux, sink);
out:
	bt_value_put_ref(params);
	*perr = err;
	if (err) {
		bt_graph_put_ref(g);
		return NULL;
	}
	return g;
}

/* What babeltrace2 said went wrong, on stderr. */
static void tks_report(const char *dir)
{
	const bt_error *e = bt_current_thread_take_error();
	uint64_t i, n = e ? bt_error_get_cause_count(e) : 0;

	fprintf(stderr, "tring-ks: %s: not a trace babeltrace2 can read:\n", dir);
	for (i = 0; i < n && i < 6; i++)
		fprintf(stderr, "tring-ks:   %s\n",
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i)));
	if (e)
		bt_error_release(e);
}

/*
 * Events before a CPU's first sched_switch ran in the task it switched
 * away from: walked back from the end, each CPU's next prev_tid.
 */
static void tks_backfill(struct tks_trace *t)
{
	int32_t *next = calloc(t->nr_cpus ?: 1, sizeof(*next));
	size_t i;

	if (!next)
		return;
	for (i = t->n; i-- > 0;) {
		const struct tks_class *c = &t->classes[t->event[i]];

		if (c->sched_switch && t->pid[i] >= 0)
			next[t->cpu[i]] = t->pid[i];
		else if (t->pid[i] < 0)
			t->pid[i] = next[t->cpu[i]];
	}
	free(next);
}

/* Read the trace under @dir into @t (zeroed). Returns 0 or -errno. */
int tks_load(struct tks_trace *t, const char *dir)
{
	struct tks_loader *ld = calloc(1, sizeof(*ld));
	bt_graph_run_status st;
	bt_graph *g;
	int err = -ENOMEM;

	if (!ld)
		return err;
	ld->t = t;
	memset(ld->current, 0xff, sizeof(ld->current));
	g = tks_graph(ld, dir, &err);
	if (g) {
		do {
			st = bt_graph_run(g);
		} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
		err = st == BT_GRAPH_RUN_STATUS_OK ? 0 : ld->err ?: -EIO;
		bt_graph_put_ref(g);
	}
	if (err && err != -ENOMEM)
		tks_report(dir);
	else if (!err && !t->n)
		err = -ENODATA;
	if (!err)
		tks_backfill(t);
	free(ld->keys);
	free(ld->vals);
	free(ld->rec);
	free(ld);
	return err;
}

void tks_free(struct tks_trace *t)
{
	int i, j;

	for (i = 0; i < t->nr_classes; i++) {
		for (j = 0; j < t->classes[i].nr_fields; j++)
			free(t->classes[i].fields[j].name);
		free(t->classes[i].fields);
		free(t->classes[i].name);
	}
	free(t->classes);
	free(t->ts);
	free(t->off);
	free(t->pid);
	free(t->cpu);
	free(t->event);
	free(t->comms);
	tks_arena_free(&t->arena);
	memset(t, 0, sizeof(*t));
}
