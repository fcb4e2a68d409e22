/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_PRINTK_H
#define _TWIN_LINUX_PRINTK_H

#include <stdio.h>

#define pr_err(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { } while (0)

#endif /* _TWIN_LINUX_PRINTK_H */
