// SPDX-License-Identifier: GPL-2.0
/*
 * tring: filters of the default buffer's hand-written events (the
 * table's tracepoint events and the system calls' sys_<name>),
 * events/<group>/<event>/filter.
 *
 * The event's writer (tring_write_<name>() and tring_sys_entry() in
 * tring_events.c) builds, only while a filter is in force, the record
 * the filter reads from the probe's own arguments: the payload's fixed
 * part as the trace lays it out, then the trailing string as a pointer
 * at TRING_FREC_STR(), then common_pid (the writer's tid) at
 * TRING_FREC_PID(). A rejected event reserves nothing. The file is
 * tring_filter_file.c's; writes are serialized by tring_ev_filter_lock.
 *
 * Memory: one struct tring_filter_slot per event id (about 480 of them,
 * 32 bytes each), and a compiled filter per event that has one.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "tring_events.h"
#include "tring_filter_file.h"

/* Fields a hand-written event has at most, common_pid included. */
#define TRING_EV_FILTER_FIELDS	16

struct tring_filter_slot *tring_ev_fslots;
static DEFINE_MUTEX(tring_ev_filter_lock);

/* Field @f of @ev, as the filter's record holds it; false: none. */
static bool tring_ev_ffield(const struct tring_event_desc *ev,
			    const struct tring_field *f,
			    struct tring_filter_field *ff)
{
	unsigned int end = f[1].name ? f[1].offset : ev->size;

	ff->name = f->name;
	ff->offset = f->offset;
	ff->is_signed = 0;
	switch (f->type) {
	case TRING_FIELD_U8 ... TRING_FIELD_S64:
		ff->type = TRING_FT_INT;
		/* U8, U16, U32, U64, then S8 ... S64 (<linux/tring.h>). */
		ff->size = 1 << ((f->type - TRING_FIELD_U8) & 3);
		ff->is_signed = f->type >= TRING_FIELD_S8;
		return true;
	case TRING_FIELD_CHARS:
		ff->type = TRING_FT_CHARS;
		ff->size = end - f->offset;
		return true;
	case TRING_FIELD_STRING:
		ff->type = TRING_FT_STRPTR;
		ff->offset = TRING_FREC_STR(ev->size);
		ff->size = sizeof(void *);
		return true;
	}
	/* TRING_FIELD_BYTES: not comparable. */
	return false;
}

/* Compile @text for the fields of the event that owns @slot. */
static struct tring_filter *tring_ev_compile(struct tring_filter_slot *slot,
					     const char *text,
					     struct tring_filter_error *err)
{
	const struct tring_event_desc *ev =
		tring_default_event(TRING_ID_FIRST_EVENT + (slot - tring_ev_fslots));
	struct tring_filter_field ff[TRING_EV_FILTER_FIELDS];
	const struct tring_field *f;
	unsigned int n = 0;

	for (f = ev->fields; f->name; f++) {
		if (n == TRING_EV_FILTER_FIELDS - 1)
			return ERR_PTR(-E2BIG);
		n += tring_ev_ffield(ev, f, &ff[n]);
	}
	ff[n++] = (struct tring_filter_field){
		.name = "common_pid", .offset = TRING_FREC_PID(ev->size),
		.size = 4, .type = TRING_FT_INT, .is_signed = 1,
		.is_current_pid = 1,
	};
	return tring_filter_compile(text, ff, n, err);
}

/**
 * tring_ev_filter_file - make the filter file of event @id in @dir
 * @dir: the event's directory.
 * @id: its id.
 *
 * Return: 0 or -errno from debugfs.
 */
int tring_ev_filter_file(struct dentry *dir, unsigned int id)
{
	struct tring_filter_slot *slot = &tring_ev_fslots[id -
							 TRING_ID_FIRST_EVENT];

	slot->compile = tring_ev_compile;
	slot->lock = &tring_ev_filter_lock;
	return PTR_ERR_OR_ZERO(tring_filter_file(slot, dir));
}

/**
 * tring_ev_filters_init - allocate the slots
 *
 * Before any probe can run: a writer looks at its slot whenever some
 * filter, a generic event's too, is in force.
 *
 * Return: 0 or -ENOMEM.
 */
int tring_ev_filters_init(void)
{
	tring_ev_fslots = kcalloc(tring_nr_builtin_events,
				  sizeof(*tring_ev_fslots), GFP_KERNEL);
	return tring_ev_fslots ? 0 : -ENOMEM;
}

/**
 * tring_ev_filters_exit - free the slots and their filters
 *
 * Once no probe runs any more and no filter file can be written.
 */
void tring_ev_filters_exit(void)
{
	unsigned int i;

	for (i = 0; tring_ev_fslots && i < tring_nr_builtin_events; i++)
		tring_filter_slot_free(&tring_ev_fslots[i]);
	kfree(tring_ev_fslots);
	tring_ev_fslots = NULL;
}
