/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: wait queues on a mutex and a condition variable.
 *
 * wait_event_interruptible() evaluates its condition with the queue's
 * mutex held, as the kernel does after prepare_to_wait(): a wake_up_all()
 * that follows a change the condition depends on cannot slip between the
 * check and the sleep. The sleep is timed so that a lost wakeup can never
 * hang a test; and lost wakeups are counted: if a timed sleep ends with
 * no wake_up_all() since the last check and the condition is now true,
 * the wakeup that was due never came (twin_lost_wakeups). After
 * TWIN_WAIT_GIVE_UP_MS without the condition, the wait gives up with
 * -ETIMEDOUT (counted in twin_wait_give_ups).
 */
#ifndef _TWIN_LINUX_WAIT_H
#define _TWIN_LINUX_WAIT_H

#include <pthread.h>

#include <linux/err.h>
#include <linux/types.h>

struct wait_queue_head {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long wakeups;
	unsigned long sleepers;
};
typedef struct wait_queue_head wait_queue_head_t;

/* One waiter's state across its timed sleeps. */
struct twin_waiter {
	unsigned long seen;	/* wq->wakeups at the last check */
	bool timed_out;		/* the last sleep ended by its timeout */
	unsigned long long deadline_ns;
};

extern unsigned long twin_lost_wakeups;
extern unsigned long twin_wait_give_ups;
extern unsigned long twin_wakeups;

void init_waitqueue_head(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);
void twin_wait_begin(struct wait_queue_head *wq, struct twin_waiter *w);
int twin_wait_sleep(struct wait_queue_head *wq, struct twin_waiter *w);
void twin_wait_end(struct wait_queue_head *wq, struct twin_waiter *w,
		   bool cond);

#define wait_event_interruptible(wq, condition) ({			\
	struct twin_waiter __w;						\
	bool __c;							\
	int __ret = 0;							\
									\
	twin_wait_begin(&(wq), &__w);					\
	for (;;) {							\
		__c = (condition);					\
		if (__c)						\
			break;						\
		__ret = twin_wait_sleep(&(wq), &__w);			\
		if (__ret)						\
			break;						\
	}								\
	twin_wait_end(&(wq), &__w, __c);				\
	__ret;								\
})
#define wait_event(wq, condition)	((void)wait_event_interruptible(wq, condition))

#endif /* _TWIN_LINUX_WAIT_H */
