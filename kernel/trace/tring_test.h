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
 * @data_len: bytes that follow this structure.
 *
 * Byte i of the @data_len bytes that follow is (seq + i) & 0xff.
 */
struct tring_test_payload {
	__u64 seq;
	__u32 cpu;
	__u32 data_len;
};

static inline __u8 tring_test_byte(__u64 seq, __u32 i)
{
	return (__u8)(seq + i);
}

/* Event id of the stress test's events. */
#define TRING_STRESS_EVENT_ID	4

/* Writer contexts of the stress test, in nesting order. */
enum tring_stress_ctx {
	TRING_STRESS_TASK,	/* a kthread bound to the CPU */
	TRING_STRESS_SOFTIRQ,	/* a softirq hrtimer */
	TRING_STRESS_HARDIRQ,	/* a hardirq hrtimer */
	TRING_STRESS_IPI,	/* smp_call_function_single() from the other CPUs */
	TRING_STRESS_NMI,	/* an NMI the CPU sends itself */
	TRING_STRESS_NR_CTX,
};

/**
 * struct tring_stress_payload - a stress test event
 * @seq: per (cpu, ctx) attempt number from 0; an attempt the buffer
 *	refused leaves a gap.
 * @cpu: CPU that wrote it.
 * @ctx: enum tring_stress_ctx.
 * @data_len: bytes that follow this structure.
 * @check: tring_stress_check() of the fields above.
 *
 * Byte i of the @data_len bytes that follow is (seq + i) & 0xff.
 */
struct tring_stress_payload {
	__u64 seq;
	__u32 cpu;
	__u16 ctx;
	__u16 data_len;
	__u64 check;
};

static inline __u64 tring_stress_check(__u64 seq, __u32 cpu, __u16 ctx,
				       __u16 data_len)
{
	__u64 x = seq * 0x9E3779B97F4A7C15ULL ^
		  ((__u64)cpu << 32 | ctx << 16 | data_len);

	return x ^ (x >> 29);
}

#endif /* _TRING_TEST_H */
