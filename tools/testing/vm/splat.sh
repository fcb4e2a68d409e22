#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel splats found in guest logs; exit 1 if there is any.
# A splat fails a test run even when every test passed.
#
# usage: splat.sh LOG...

# Reports of WARN/BUG, oopses, lockdep, KCSAN/KASAN/UBSAN, sleeping in
# atomic context, lockups and RCU stalls all start with one of these.
splat='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG|'
splat+='UBSAN:|KASAN:|KCSAN:|INFO: |scheduling while atomic|soft lockup|'
splat+='hard LOCKUP|rcu_.*stall|Call Trace:|unable to handle'

# Not a splat: the NMI code's note (KERN_INFO) that a handler ran longer
# than 1 ms. Under software emulation the first run of any code path is
# slow (QEMU translates it), and the stress test's self-NMIs run every
# NMI handler the kernel has, its own backtrace handler included.
benign='INFO: NMI handler \([a-z_0-9]+( \[[a-z_0-9]+\])?\) took too long to run: [0-9.]+ msecs$'

found=$(cat "$@" 2>/dev/null | tr -d '\r' | grep -aE "$splat" | grep -avE "$benign")
if [ -n "$found" ]; then
	echo "$found"
	exit 1
fi
exit 0
