/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: no kprobes here, only their annotations. */
#ifndef _TWIN_LINUX_KPROBES_H
#define _TWIN_LINUX_KPROBES_H

#include <linux/compiler.h>

#define nokprobe_inline	__always_inline
#define NOKPROBE_SYMBOL(fname)	extern int __twin_nokprobe_##fname

#endif /* _TWIN_LINUX_KPROBES_H */
