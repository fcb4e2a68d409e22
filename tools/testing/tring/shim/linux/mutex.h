/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: kernel mutexes on POSIX threads' (the core takes one
 * around a buffer's memory check and allocation).
 */
#ifndef _TWIN_LINUX_MUTEX_H
#define _TWIN_LINUX_MUTEX_H

#include <pthread.h>

struct mutex {
	pthread_mutex_t m;
};

#define DEFINE_MUTEX(name) \
	struct mutex name = { .m = PTHREAD_MUTEX_INITIALIZER }

static inline void mutex_lock(struct mutex *lock)
{
	pthread_mutex_lock(&lock->m);
}

static inline void mutex_unlock(struct mutex *lock)
{
	pthread_mutex_unlock(&lock->m);
}

#endif /* _TWIN_LINUX_MUTEX_H */
