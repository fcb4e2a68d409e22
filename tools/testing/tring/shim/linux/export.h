/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TWIN_LINUX_EXPORT_H
#define _TWIN_LINUX_EXPORT_H

/* A declaration, so the ';' after it stays valid at file scope. */
#define EXPORT_SYMBOL(sym)	extern typeof(sym) sym
#define EXPORT_SYMBOL_GPL(sym)	extern typeof(sym) sym

#endif /* _TWIN_LINUX_EXPORT_H */
