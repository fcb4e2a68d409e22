/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin: what twin_probe.c takes from twin_probe_check.c. */
#ifndef _TWIN_PROBE_H
#define _TWIN_PROBE_H

#include <stddef.h>

#include "tring_probe.h"

/*
 * @d as "KIND GROUP/EVENT TARGET [max=N] rec=HEAD/FIXED: NAME=TYPE@OFFSET[OPS]
 * ...", into @buf of @size bytes (cut to fit).
 */
void describe(char *buf, size_t size, const struct tring_probe_def *d);

/* What every definition must hold: NULL, or what is wrong with @d. */
const char *def_check(const struct tring_probe_def *d);

#endif /* _TWIN_PROBE_H */
