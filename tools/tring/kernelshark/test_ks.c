// SPDX-License-Identifier: GPL-2.0
/*
 * tring's KernelShark plugin through KernelShark's own library: the
 * plugin registered, FILE opened and its entries loaded as the GUI
 * loads them. Prints what a test compares with babeltrace2's reading:
 *
 *   entries N
 *   cpu C N            (each CPU's entries)
 *   event NAME N       (each event's)
 *   switch-tasks N/M   (sched_switch entries whose task is prev_tid,
 *                       of M)
 *   next-tasks N/M     (entries right after a sched_switch on their CPU
 *                       whose task is its next_tid, of M)
 *   task TID COMM      (with --task TID)
 *   first EVENT PID COMM (with --first EVENT: its first entry's task)
 *   info N: TEXT       (with --dump N: the first N entries' lines)
 *   matrix N same M    (kshark_load_matrix()'s rows, M of them equal
 *                       to the entries' time, CPU, task and event)
 *
 * usage: test_ks PLUGIN FILE [--dump N] [--task TID] [--first EVENT]
 * Exit status 1 if the file does not open (its message on stderr).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libkshark.h>
#include <libkshark-plugin.h>

#define MAX_CPUS	4096

struct counts {
	long cpu[MAX_CPUS];
	long switch_ok, switches, next_ok, nexts;
	int32_t next_tid[MAX_CPUS];	/* after a switch there, else -2 */
};

/* Whether sched_switch entry @e's task is its prev_tid. */
static int switch_task_ok(const struct kshark_entry *e)
{
	int64_t tid = -1;

	return !kshark_read_event_field_int(e, "prev_tid", &tid) &&
	       tid == e->pid;
}

static void count(struct counts *c, const struct kshark_entry *e, int sw)
{
	int64_t next = -1;

	if (e->cpu < 0 || e->cpu >= MAX_CPUS)
		return;
	c->cpu[e->cpu]++;
	if (c->next_tid[e->cpu] != -2) {
		c->nexts++;
		c->next_ok += e->pid == c->next_tid[e->cpu] ||
			      e->event_id == sw;
		c->next_tid[e->cpu] = -2;
	}
	if (e->event_id != sw)
		return;
	c->switches++;
	c->switch_ok += switch_task_ok(e);
	kshark_read_event_field_int(e, "next_tid", &next);
	c->next_tid[e->cpu] = (int32_t)next;
}

/* Each event's count, by name, in the order of their ids. */
static void print_events(struct kshark_entry **rows, ssize_t n, int nr_events)
{
	long *per = calloc(nr_events + 1, sizeof(*per));
	char *name;
	ssize_t i;
	int id;

	for (i = 0; per && i < n; i++)
		if (rows[i]->event_id >= 0 && rows[i]->event_id < nr_events)
			per[rows[i]->event_id]++;
	for (id = 0; per && id < nr_events; id++) {
		struct kshark_entry probe = { .stream_id = rows[0]->stream_id,
					      .event_id = (int16_t)id };

		name = kshark_get_event_name(&probe);
		if (per[id])
			printf("event %s %ld\n", name ? name : "?", per[id]);
		free(name);
	}
	free(per);
}

static void report(struct kshark_context *ctx, int sd,
		   struct kshark_entry **rows, ssize_t n, long dump)
{
	struct kshark_data_stream *s = ctx->stream[sd];
	struct kshark_generic_stream_interface *in = s->interface;
	static struct counts c;
	int sw = in->find_event_id(s, "sched_switch"), cpu;
	ssize_t i;
	char *line;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		c.next_tid[cpu] = -2;
	for (i = 0; i < n; i++)
		count(&c, rows[i], sw);
	printf("entries %zd\n", n);
	for (cpu = 0; cpu < s->n_cpus && cpu < MAX_CPUS; cpu++)
		if (c.cpu[cpu])
			printf("cpu %d %ld\n", cpu, c.cpu[cpu]);
	print_events(rows, n, s->n_events);
	printf("switch-tasks %ld/%ld\n", c.switch_ok, c.switches);
	printf("next-tasks %ld/%ld\n", c.next_ok, c.nexts);
	for (i = 0; i < n && i < dump; i++) {
		line = in->dump_entry(s, rows[i]);
		printf("info %zd: %s\n", i, line ? line : "(null)");
		free(line);
	}
}

/* The first entry of event @name: its task. */
static void print_first(struct kshark_entry **rows, ssize_t n, const char *name)
{
	char *ev, *task;
	ssize_t i;

	for (i = 0; i < n; i++) {
		ev = kshark_get_event_name(rows[i]);
		if (ev && !strcmp(ev, name)) {
			task = kshark_get_task(rows[i]);
			printf("first %s %d %s\n", name, rows[i]->pid, task ? task : "?");
			free(task);
			free(ev);
			return;
		}
		free(ev);
	}
	printf("first %s none\n", name);
}

/* The columns of kshark_load_matrix(): as many, and the same times. */
static void print_matrix(struct kshark_context *ctx, int sd,
			 struct kshark_entry **rows, ssize_t n)
{
	int16_t *ev = NULL, *cpu = NULL;
	int64_t *off = NULL, *ts = NULL;
	int32_t *pid = NULL;
	ssize_t m, i, same = 0;

	m = kshark_load_matrix(ctx, sd, &ev, &cpu, &pid, &off, &ts);
	for (i = 0; i < m && i < n; i++)
		same += ts[i] == rows[i]->ts && cpu[i] == rows[i]->cpu &&
			pid[i] == rows[i]->pid && ev[i] == rows[i]->event_id;
	printf("matrix %zd same %zd\n", m, same);
	free(ev);
	free(cpu);
	free(pid);
	free(off);
	free(ts);
}

static void print_task(struct kshark_entry **rows, ssize_t n, long tid)
{
	ssize_t i;
	char *task;

	for (i = 0; i < n; i++) {
		if (rows[i]->pid != tid)
			continue;
		task = kshark_get_task(rows[i]);
		printf("task %ld %s\n", tid, task ? task : "?");
		free(task);
		return;
	}
	printf("task %ld none\n", tid);
}

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	const char *first = NULL;
	long dump = 0, tid = -1;
	ssize_t n, i;
	int sd, a;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PLUGIN FILE [--dump N] [--task TID] [--first EVENT]\n", argv[0]);
		return 2;
	}
	for (a = 3; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--dump"))
			dump = atol(argv[a + 1]);
		else if (!strcmp(argv[a], "--task"))
			tid = atol(argv[a + 1]);
		else if (!strcmp(argv[a], "--first"))
			first = argv[a + 1];
	}
	if (!kshark_instance(&ctx) ||
	    !kshark_register_plugin(ctx, "tring-ks", argv[1])) {
		fprintf(stderr, "%s: cannot register %s\n", argv[0], argv[1]);
		return 2;
	}
	sd = kshark_open(ctx, argv[2]);
	n = sd < 0 ? -1 : kshark_load_entries(ctx, sd, &rows);
	if (n <= 0) {
		fprintf(stderr, "%s: %s: not opened (%d, %zd)\n", argv[0], argv[2], sd, n);
		/*
		 * Not freed (kshark's context stays reachable): the plugins
		 * stay mapped, and a leak report can name their frames.
		 */
		return 1;
	}
	report(ctx, sd, rows, n, dump);
	print_matrix(ctx, sd, rows, n);
	if (tid >= 0)
		print_task(rows, n, tid);
	if (first)
		print_first(rows, n, first);
	for (i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
	kshark_close_all(ctx);
	kshark_free(ctx);
	return 0;
}
