/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: kernel and uapi integer types. This file shadows the
 * system's <linux/types.h>, so it also provides the __u32/__u64 family
 * that include/uapi/linux/tring.h uses, with the kernel's definitions
 * (__u64 is unsigned long long on every architecture).
 */
#ifndef _TWIN_LINUX_TYPES_H
#define _TWIN_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef unsigned char		__u8;
typedef signed char		__s8;
typedef unsigned short		__u16;
typedef signed short		__s16;
typedef unsigned int		__u32;
typedef signed int		__s32;
typedef unsigned long long	__u64;
typedef signed long long	__s64;

typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;

typedef __u8	u8;
typedef __s8	s8;
typedef __u16	u16;
typedef __s16	s16;
typedef __u32	u32;
typedef __s32	s32;
typedef __u64	u64;
typedef __s64	s64;

typedef unsigned int gfp_t;

struct hlist_node {
	struct hlist_node *next, **pprev;
};
typedef unsigned long pgprot_t;

#endif /* _TWIN_LINUX_TYPES_H */
