/* SPDX-License-Identifier: GPL-2.0 */
/* tring twin shim: cpu_to_node(), one node (defined with the CPUs). */
#ifndef _TWIN_LINUX_TOPOLOGY_H
#define _TWIN_LINUX_TOPOLOGY_H

#include <linux/smp.h>

#endif
