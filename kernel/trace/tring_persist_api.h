/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: the persistent default buffer, as the rest of the module sees
 * it (tring_persist.c, tring_persist_last.c).
 */
#ifndef _TRING_PERSIST_API_H
#define _TRING_PERSIST_API_H

#include <linux/types.h>

struct dentry;
struct tring_buffer;
struct tring_buffer_attr;
struct tring_event_desc;
struct tring_gen_event;
struct tring_ring_mem;

int tring_persist_init(struct tring_buffer_attr *attr,
		       struct tring_ring_mem **mem);
void tring_persist_start(struct tring_buffer *buf);
void tring_persist_exit(void);
void tring_persist_unmap(void);
bool tring_persist_active(void);
void tring_persist_event(const struct tring_event_desc *ev);
void tring_persist_gen_event(const struct tring_gen_event *ev);
void tring_persist_sync(void);

/* tring_persist_last.c: the previous boot's trace, instances/last_boot/ */
void tring_last_boot_read(void *base, u64 size);
void tring_last_boot_publish(void);
void tring_last_boot_exit(void);

#endif /* _TRING_PERSIST_API_H */
