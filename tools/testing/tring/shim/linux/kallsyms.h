/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin shim: sprint_symbol(), which a test program defines. Its
 * buffer's size is smaller than the kernel's (666 bytes on 6.1 and 6.12),
 * so that records of a few hundred bytes reach both of the evaluator's
 * ways: straight into the record, and through its stack buffer.
 */
#ifndef _TWIN_LINUX_KALLSYMS_H
#define _TWIN_LINUX_KALLSYMS_H

#define KSYM_SYMBOL_LEN	96

/* "symbol+0xoff/0xsize [module]" of @address, at most KSYM_SYMBOL_LEN. */
int sprint_symbol(char *buffer, unsigned long address);

#endif /* _TWIN_LINUX_KALLSYMS_H */
