// SPDX-License-Identifier: GPL-2.0
/*
 * tring: events other modules describe in the default buffer
 * (tring_default_events_add()), so that its metadata decodes the records
 * they write there with ids of their own.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/tring.h>

#include "tring_events.h"
#include "tring_persist_api.h"

/* Events other modules added to the default buffer, by id. */
static DEFINE_MUTEX(tring_mod_events_lock);
static const struct tring_event_desc *
tring_mod_events[TRING_ID_MODULE_LAST - TRING_ID_MODULE_FIRST + 1];

static int tring_mod_event_check(const struct tring_event_desc *ev)
{
	if (ev->id < TRING_ID_MODULE_FIRST || ev->id > TRING_ID_MODULE_LAST ||
	    tring_event_desc_check(ev))
		return -EINVAL;
	return tring_mod_events[ev->id - TRING_ID_MODULE_FIRST] ? -EBUSY : 0;
}

/**
 * tring_default_events_add - describe a module's events in the default buffer
 * @evs: the descriptions; ids from TRING_ID_MODULE_FIRST to
 *	TRING_ID_MODULE_LAST. They must stay valid until removed.
 * @n: entries in @evs.
 *
 * The default buffer's metadata describes them from now on, so traces of
 * the events the module writes there decode. They have no files under
 * events/: the module writes them itself.
 *
 * Context: process.
 * Return: 0; -EINVAL for a bad description or an id out of range,
 * -EBUSY for an id in use. Nothing is added on error.
 */
int tring_default_events_add(const struct tring_event_desc *evs,
			     unsigned int n)
{
	unsigned int i, j;
	int ret = 0;

	mutex_lock(&tring_mod_events_lock);
	for (i = 0; i < n && !ret; i++) {
		ret = tring_mod_event_check(&evs[i]);
		for (j = 0; j < i && !ret; j++)
			if (evs[j].id == evs[i].id)
				ret = -EINVAL;
	}
	for (i = 0; i < n && !ret; i++) {
		tring_mod_events[evs[i].id - TRING_ID_MODULE_FIRST] = &evs[i];
		/* Listed: its layout in a persistent region, before a record. */
		tring_persist_event(&evs[i]);
	}
	mutex_unlock(&tring_mod_events_lock);
	/* Described there before the caller writes any record. */
	if (!ret)
		tring_persist_sync();
	return ret;
}
EXPORT_SYMBOL_GPL(tring_default_events_add);

/**
 * tring_default_events_remove - undo tring_default_events_add()
 * @evs: the descriptions added.
 * @n: entries in @evs.
 *
 * Context: process.
 */
void tring_default_events_remove(const struct tring_event_desc *evs,
				 unsigned int n)
{
	unsigned int i, k;

	mutex_lock(&tring_mod_events_lock);
	for (i = 0; i < n; i++)
		for (k = 0; k < ARRAY_SIZE(tring_mod_events); k++)
			if (tring_mod_events[k] == &evs[i])
				tring_mod_events[k] = NULL;
	mutex_unlock(&tring_mod_events_lock);
}
EXPORT_SYMBOL_GPL(tring_default_events_remove);

/**
 * tring_module_events_show - show the events modules added
 * @m: where.
 * @show: called for each.
 */
void tring_module_events_show(struct seq_file *m,
			      void (*show)(struct seq_file *m,
					   const struct tring_event_desc *ev))
{
	unsigned int k;

	mutex_lock(&tring_mod_events_lock);
	for (k = 0; k < ARRAY_SIZE(tring_mod_events); k++)
		if (tring_mod_events[k])
			show(m, tring_mod_events[k]);
	mutex_unlock(&tring_mod_events_lock);
}
