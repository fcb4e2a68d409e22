/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: reading a short command written to a debugfs file.
 */
#ifndef _TRING_CMD_H
#define _TRING_CMD_H

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/*
 * Copy the @count bytes user space wrote at @ubuf into @s (@n bytes) and
 * NUL-terminate them. Return: 0, -EINVAL if empty or too long, -EFAULT.
 */
static inline int tring_copy_cmd(char *s, size_t n, const char __user *ubuf,
				 size_t count)
{
	if (!count || count >= n)
		return -EINVAL;
	if (copy_from_user(s, ubuf, count))
		return -EFAULT;
	s[count] = '\0';
	return 0;
}

#endif /* _TRING_CMD_H */
