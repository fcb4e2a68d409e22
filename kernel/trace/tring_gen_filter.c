// SPDX-License-Identifier: GPL-2.0
/*
 * tring: filters of generic events, events/<group>/<event>/filter.
 *
 * A filter names the kernel's fields of the event (common_pid included)
 * and is evaluated by the perf overflow handler on the kernel's record,
 * before anything is reserved (tring_gen_perf.c): an event it rejects
 * costs no buffer space, no commit and no reader time. The file itself
 * is tring_filter_file.c's; writes of one event's filter are serialized
 * by tring_gen_enable_lock.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tring_filter_file.h"
#include "tring_gen.h"

/* What kind of filter field a field of @ev is; false if none. */
static bool tring_gen_ffield(const struct tring_gen_field *f,
			     struct tring_filter_field *ff)
{
	ff->name = f->name;
	/* The kernel's name: the trace's escapes a CTF keyword with '_'. */
	if (f->name[0] == '_' && tring_gen_ctf_keyword(f->name + 1))
		ff->name = f->name + 1;
	ff->offset = f->src;
	ff->size = f->size;
	ff->is_signed = f->is_signed;
	switch (f->kind) {
	case TRING_GEN_INT:
		ff->type = TRING_FT_INT;
		return true;
	case TRING_GEN_CHARS:
		ff->type = TRING_FT_CHARS;
		return true;
	case TRING_GEN_DSTR:
		ff->type = f->rel ? TRING_FT_REL_LOC : TRING_FT_DATA_LOC;
		return true;
	}
	return false;
}

/* Compile @text for the fields of the event that owns @slot. */
static struct tring_filter *tring_gen_compile(struct tring_filter_slot *slot,
					      const char *text,
					      struct tring_filter_error *err)
{
	const struct tring_gen_event *ev =
		container_of(slot, struct tring_gen_event, fslot);
	struct tring_filter_field *ff;
	struct tring_filter *f;
	unsigned int i, n = 0;

	ff = kcalloc(ev->nr_fields, sizeof(*ff), GFP_KERNEL);
	if (!ff)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < ev->nr_fields; i++)
		n += tring_gen_ffield(&ev->fields[i], &ff[n]);
	f = tring_filter_compile(text, ff, n, err);
	kfree(ff);
	return f;
}

/**
 * tring_gen_filter_file - make events/<group>/<event>/filter
 * @ev: the event.
 * @dir: its directory.
 *
 * Return: the file, or an ERR_PTR().
 */
struct dentry *tring_gen_filter_file(struct tring_gen_event *ev,
				     struct dentry *dir)
{
	ev->fslot.compile = tring_gen_compile;
	ev->fslot.lock = &tring_gen_enable_lock;
	return tring_filter_file(&ev->fslot, dir);
}

/**
 * tring_gen_filter_release - an event's filter no longer counts as in force
 * @ev: the event, whose last reference is being dropped.
 *
 * In process context (it may sleep), before the event is freed from an
 * RCU callback.
 */
void tring_gen_filter_release(struct tring_gen_event *ev)
{
	tring_filter_slot_release(&ev->fslot);
}

/**
 * tring_gen_filter_free - free an event's filter and last error
 * @ev: the event, which no handler can run for any more.
 *
 * May run in an RCU callback once tring_gen_filter_release() has run.
 */
void tring_gen_filter_free(struct tring_gen_event *ev)
{
	tring_filter_slot_free(&ev->fslot);
}
