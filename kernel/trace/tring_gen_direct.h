/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: writing a generic event's record straight into the buffer, for
 * the hooks whose record is theirs to lay out (dynamic probes, function
 * entry): no copy through tring_gen_record() while no filter needs the
 * record first.
 */
#ifndef _TRING_GEN_DIRECT_H
#define _TRING_GEN_DIRECT_H

#include <linux/errno.h>
#include <linux/rcupdate.h>
#include <linux/tring.h>

#include "tring_ctx.h"
#include "tring_events.h"
#include "tring_gen.h"

/**
 * tring_gen_reserve_direct - reserve a generic event to fill in place
 * @ev: the event; flat (struct tring_gen_event): its payload is its
 *	record as the writer lays it out.
 * @len: the payload's bytes, @ev->fixed.
 * @res: the reservation, as tring_reserve() fills it.
 * @regs: as tring_gen_record()'s (where a kernel call stack starts).
 *
 * The caller holds preemption off from this call to its tring_commit().
 * The buffer is reentrant: no scratch, no busy flag. An event racing
 * with a change of its filter is judged as before or after it.
 *
 * Return: 0; -EAGAIN while @ev has a filter (it runs on the whole record:
 * the caller takes tring_gen_record()); else tring_reserve()'s or
 * tring_ctx_reserve()'s error, the event counted as lost.
 */
static __always_inline int
tring_gen_reserve_direct(const struct tring_gen_event *ev, unsigned int len,
			 struct tring_res *res, struct pt_regs *regs)
{
	struct tring_buffer *buf;

	if (rcu_access_pointer(ev->fslot.filter))
		return -EAGAIN;
	buf = rcu_dereference_sched(tring_default_buf);
	if (buf)
		return tring_reserve(buf, ev->id, len, res);
	return tring_ctx_reserve(ev->id, len, res, regs);
}

#endif /* _TRING_GEN_DIRECT_H */
