/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the generic events' internals, shared by tring_generic.c (the
 * event list and field tables), tring_gen_perf.c (recording through perf,
 * CPU hotplug, memory) and tring_gen_fs.c (their debugfs files).
 */
#ifndef _TRING_GEN_H
#define _TRING_GEN_H

#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "tring_filter_file.h"

struct dentry;
struct seq_file;
struct module;
struct perf_event;
struct trace_event_call;
struct trace_event_file;

/* What a field of the kernel's record becomes in the trace. */
enum tring_gen_kind {
	TRING_GEN_INT,		/* an integer of 1, 2, 4 or 8 bytes */
	TRING_GEN_CHARS,	/* char[N]: text of N bytes */
	TRING_GEN_ARRAY,	/* N integers */
	TRING_GEN_BYTES,	/* anything else of fixed size: N bytes */
	TRING_GEN_DSTR,		/* __data_loc char[]: a NUL-terminated string */
	TRING_GEN_DARR,		/* __data_loc T[]: u32 count, then the T */
};

/**
 * struct tring_gen_field - one field of a generic event
 * @name: its name, the kernel's (with a leading '_' if a CTF keyword).
 * @src: its offset in the kernel's record.
 * @size: its size there (4, the location word, for a dynamic field).
 * @kind: enum tring_gen_kind.
 * @elem: bytes of the integer or of one element.
 * @is_signed: the integers are signed.
 * @hex: a pointer: shown in hexadecimal.
 * @rel: __rel_loc: the location counts from the end of the field.
 */
struct tring_gen_field {
	char *name;
	u16 src;
	u16 size;
	u8 kind;
	u8 elem;
	u8 is_signed:1;
	u8 hex:1;
	u8 rel:1;
};

/* Dynamic fields an event may have (no kernel event has more than 5). */
#define TRING_GEN_MAX_DYN	8

/**
 * struct tring_gen_group - events/<group>/ of generic events
 * @node: in tring_gen_groups (tring_gen_lock); never removed before unload.
 * @dir: the directory; a group that also has tring's own events keeps
 *	that group's directory and enable file (@own).
 * @own: @dir is tring_events_fs.c's: no enable file of ours in it.
 * @name: the group's name.
 */
struct tring_gen_group {
	struct list_head node;
	struct dentry *dir;
	bool own;
	char name[];
};

struct tring_gen_event;

/* Declarations shared by several events, written once per metadata. */
#define TRING_GEN_CTF_FUNCTION	BIT(0)	/* tring_function_t (tring_func.c) */

/**
 * struct tring_gen_ops - how an event that is not the kernel's is recorded
 * @on: start recording it. Process context, tring_gen_enable_lock held;
 *	@ev->on is set before, and cleared again if this fails.
 * @off: stop recording it; the same context. A handler that began may
 *	still finish its record (under its own preempt-disabled section).
 * @show: its definition, for its format file.
 * @ctf_decl: NULL, or writes the CTF declarations the event's fields
 *	use, before the event's own. Under rcu_read_lock(): no sleeping.
 *	@done holds a bit per declaration several events share
 *	(TRING_GEN_CTF_*) that this copy of the metadata already has: the
 *	hook writes a shared one only if its bit is clear, then sets it.
 * @ctf_field: NULL, or writes field @i of the event itself and returns
 *	true (false: the usual integer, string...). The same context.
 *
 * A dynamic probe's event (tring_probe_event.c) and the function event
 * (tring_func_event.c) have these; the kernel's trace events (perf,
 * tring_gen_perf.c) have none.
 */
struct tring_gen_ops {
	int (*on)(struct tring_gen_event *ev);
	void (*off)(struct tring_gen_event *ev);
	void (*show)(struct seq_file *m, const struct tring_gen_event *ev);
	void (*ctf_decl)(struct seq_file *m, const struct tring_gen_event *ev,
			 unsigned long *done);
	bool (*ctf_field)(struct seq_file *m, const struct tring_gen_event *ev,
			  unsigned int i);
};

/**
 * struct tring_gen_event - one trace event of the kernel's, as tring has it
 * @node: in tring_gen_list. Added and removed under tring_gen_lock, read
 *	under RCU (the metadata, the state of many) or tring_gen_lock.
 * @rcu: frees the event after readers of the list are done.
 * @ref: the list holds one, every snapshot of a bulk enable one more.
 * @group: its group ("group\0name\0", one allocation).
 * @name: its name.
 * @mod: the module that defines it, NULL for the kernel's own; only
 *	compared, never dereferenced.
 * @grp: its group directory.
 * @dir: events/<group>/<name>/; NULL once the event went away.
 * @id: its id in tring's traces, never given to another event while
 *	tring is loaded.
 * @fields: its fields in record order (common_pid first), from the
 *	kernel's field table at registration; never changes.
 * @nr_fields: entries in @fields.
 * @fixed: payload bytes of the fixed-size fields.
 * @rec_min: the kernel's record is at least this long.
 * @flat_src: with @flat, where the payload starts in the record.
 * @flat: no dynamic field, and the fields lie one after the other in the
 *	record as in the payload: the payload is @fixed bytes of the
 *	record from @flat_src, copied at once.
 * @err: why it cannot be recorded (0: it can), set at registration.
 * @described: it was enabled once: the metadata describes it, also after
 *	it went away (its records may still be in the buffer). Set once,
 *	with release, before its first perf event exists.
 * @gone: not listed yet, or its kernel event went away (its module was
 *	unloaded). Written under tring_gen_lock (listing) or
 *	tring_gen_enable_lock (going), read locklessly: an enable tests it
 *	again under tring_gen_enable_lock.
 * @on: enabled. Written under tring_gen_enable_lock, read locklessly.
 * @file: the kernel's event file, held while @on: it pins the module.
 * @pe: one perf event per CPU while @on, NULL where none (an array of
 *	nr_cpu_ids); under tring_gen_enable_lock.
 * @nr_pe: perf events in @pe (for the memory account).
 * @fslot: its filter file's slot (tring_filter_file.h), whose lock is
 *	tring_gen_enable_lock; the overflow handler reads the filter in
 *	force with tring_filter_get().
 * @ops: NULL for the kernel's events (perf); how a dynamic probe's event
 *	is recorded. Set before the event is listed, never changed.
 * @priv: @ops' own (the probe); set before listing, never changed.
 *
 * The overflow handler reads @id and the field table, which do not
 * change while the event lives, and @fslot's filter.
 */
struct tring_gen_event {
	struct list_head node;
	struct rcu_head rcu;
	struct kref ref;
	char *group;
	char *name;
	struct module *mod;
	struct tring_gen_group *grp;
	struct dentry *dir;
	unsigned int id;
	struct tring_gen_field *fields;
	unsigned int nr_fields;
	unsigned int fixed;
	unsigned int rec_min;
	unsigned int flat_src;
	bool flat;
	int err;
	bool described;
	bool gone;
	bool on;
	struct trace_event_file *file;
	struct perf_event **pe;
	unsigned int nr_pe;
	struct tring_filter_slot fslot;
	const struct tring_gen_ops *ops;
	void *priv;
};

extern struct list_head tring_gen_list;
extern struct mutex tring_gen_lock;
extern struct mutex tring_gen_enable_lock;

/* tring_gen_fields.c */
bool tring_gen_ctf_keyword(const char *s);
int tring_gen_fields(struct tring_gen_event *ev, struct trace_event_call *call);
void tring_gen_fields_free(struct tring_gen_field *fields, unsigned int n);
int tring_gen_sizes(struct tring_gen_event *ev);
int tring_gen_field_add(struct tring_gen_event *ev, const char *name,
			unsigned int src, unsigned int size,
			enum tring_gen_kind kind, bool is_signed, bool hex);

/* tring_generic.c */
struct tring_gen_event *tring_gen_event_alloc(const char *group,
					      const char *name,
					      const struct tring_gen_ops *ops,
					      void *priv,
					      unsigned int max_fields);
int tring_gen_add(struct tring_gen_event *ev);
void tring_gen_unlist(struct tring_gen_event *ev);
int tring_gen_register_name(const char *group, const char *name);
void tring_gen_put(struct tring_gen_event *ev);
struct tring_gen_event **tring_gen_snapshot(const char *group,
					    unsigned int *nr);
void tring_gen_snapshot_put(struct tring_gen_event **evs, unsigned int nr);
bool tring_gen_selected(const struct tring_gen_event *ev, const char *group);

/* tring_gen_perf.c */
int tring_gen_set(struct tring_gen_event *ev, bool on);
void tring_gen_lost(unsigned int n);
void tring_gen_record(const struct tring_gen_event *ev, const u8 *rec,
		      unsigned int size, struct pt_regs *regs);
int tring_gen_perf_init(void);
void tring_gen_perf_exit(void);
void tring_gen_mem_show(struct seq_file *m);

/* tring_gen_fs.c */
int tring_gen_fs_init(struct dentry *events);
void tring_gen_fs_exit(void);
int tring_gen_files(struct tring_gen_event *ev);
void tring_gen_files_remove(struct tring_gen_event *ev);
void tring_gen_groups_free(void);

/* tring_gen_filter.c */
struct dentry *tring_gen_filter_file(struct tring_gen_event *ev,
				     struct dentry *dir);
void tring_gen_filter_release(struct tring_gen_event *ev);
void tring_gen_filter_free(struct tring_gen_event *ev);

#endif /* _TRING_GEN_H */
