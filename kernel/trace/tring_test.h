/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tring: the test event that tring_test.ko writes and the kselftests
 * decode. Shared by kernel and user space, so plain uapi types only.
 */
#ifndef _TRING_TEST_H
#define _TRING_TEST_H

#include <linux/types.h>

/* Event id of the test event in the default buffer. */
#define TRING_TEST_EVENT_ID	3

/**
 * struct tring_test_payload - the start of a test event's payload
 * @seq: sequence number, from the trigger's start value upwards.
 * @cpu: CPU the event was written on.
 * @len: payload bytes, this structure included.
 *
 * Byte i of the @len - 16 bytes that follow is (seq + i) & 0xff.
 */
struct tring_test_payload {
	__u64 seq;
	__u32 cpu;
	__u32 len;
};

static inline __u8 tring_test_byte(__u64 seq, __u32 i)
{
	return (__u8)(seq + i);
}

#endif /* _TRING_TEST_H */
