/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: RCU. synchronize_rcu() is a no-op: the only caller is
 * tring_buffer_free(), and every test stops (joins) its writer threads
 * and leaves its signal handlers idle before freeing a buffer, so no
 * writer can still be inside one.
 */
#ifndef _TWIN_LINUX_RCUPDATE_H
#define _TWIN_LINUX_RCUPDATE_H

#include <linux/compiler.h>

#define rcu_read_lock()		barrier()
#define rcu_read_unlock()	barrier()
#define synchronize_rcu()	barrier()
/* A buffer's contexts (struct tring_buffer.ctx): never set in the twin. */
#define rcu_dereference_sched(p)	READ_ONCE(p)

#endif /* _TWIN_LINUX_RCUPDATE_H */
