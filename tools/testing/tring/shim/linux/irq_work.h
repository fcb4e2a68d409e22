/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: irq_work.
 *
 * irq_work_queue() may be called from a signal handler (a nested writer
 * plays an interrupt or NMI): it only claims the work with an atomic,
 * pushes it on a lock-free list and writes a byte to a pipe, all of
 * which are async-signal-safe. A dedicated thread reads the pipe and
 * runs the callbacks, the way the kernel runs them from the irq_work
 * interrupt. The flag protocol is the kernel's: PENDING while queued,
 * BUSY from the claim until the callback has returned; a work queued
 * again while its callback runs is queued again.
 */
#ifndef _TWIN_LINUX_IRQ_WORK_H
#define _TWIN_LINUX_IRQ_WORK_H

#include <linux/types.h>

#define IRQ_WORK_PENDING	1U
#define IRQ_WORK_BUSY		2U

struct irq_work {
	unsigned int flags;
	struct irq_work *next;
	void (*func)(struct irq_work *);
};

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	work->flags = 0;
	work->next = NULL;
	work->func = func;
}

bool irq_work_queue(struct irq_work *work);
void irq_work_sync(struct irq_work *work);

#endif /* _TWIN_LINUX_IRQ_WORK_H */
