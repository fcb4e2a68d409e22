/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_CACHE_H
#define _TWIN_LINUX_CACHE_H

#define L1_CACHE_BYTES		64
#define SMP_CACHE_BYTES		L1_CACHE_BYTES
#define ____cacheline_aligned	__attribute__((__aligned__(SMP_CACHE_BYTES)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned

#endif /* _TWIN_LINUX_CACHE_H */
