/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring-report: reports on a recorded trace (report.c), with the
 * symbols of report_sym.c.
 */
#ifndef _TRING_REPORT_H
#define _TRING_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Frames of one stack the report keeps: the kernel's largest depth + 1. */
#define RP_MAX_FRAMES	129
/* A stack cut short ends with this entry (TRING_CTX_TRUNCATED). */
#define RP_TRUNCATED	UINT64_MAX
/* A frame's name, as printed. */
#define RP_NAME		320

/**
 * struct rp_syms - what names the addresses of one trace
 * @dir: the trace's directory (DIR/kallsyms, DIR/maps).
 * @binaries: where to look for a binary the maps name by a path this
 *	machine does not have (by its base name), or NULL.
 * @kaddr: the kernel's text symbols' addresses, sorted...
 * @kname: ...and their names' offsets in @knames.
 * @knames: the names, NUL-separated.
 * @nk: symbols.
 */
struct rp_syms {
	const char *dir;
	const char *binaries;
	uint64_t *kaddr;
	uint32_t *kname;
	char *knames;
	size_t nk;
};

int rp_syms_load(struct rp_syms *s);
void rp_syms_free(struct rp_syms *s);
void rp_kernel_name(const struct rp_syms *s, uint64_t addr, bool off,
		    char *out, size_t size);
void rp_user_name(const struct rp_syms *s, pid_t pid, uint64_t addr, bool off,
		  char *out, size_t size);

#endif /* _TRING_REPORT_H */
