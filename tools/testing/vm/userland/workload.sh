#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The short workload every tracer records in the real-userland guest:
# hackbench (rt-tests: 2 groups of 10 sender and 10 receiver processes
# over sockets, 20 messages each) and a syscall storm (dd copying one
# byte at a time: 2 syscalls per byte).

hackbench -g 2 -f 10 -l 20 >/dev/null
dd if=/dev/zero of=/dev/null bs=1 count="${STORM:-20000}" 2>/dev/null
