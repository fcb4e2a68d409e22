#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The experiment behind 6.12's single-threaded guests (tring.rst,
# Testing): boot a Debian kernel RUNS times on multi-threaded TCG (one
# host thread per vCPU), with no tring module, and switch ftrace's own
# events on and off under load (tools/testing/vm/plan-ftrace-toggle);
# report each run's kernel splats. Not part of make check.
#
# usage: toggle-experiment.sh [KERNEL [RUNS [ACCEL]]]
#   KERNEL  debian-6.12 (default) or debian-6.1; RUNS 3; ACCEL tcg

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
k=${1:-debian-6.12}
runs=${2:-3}
accel=${3:-tcg}
read -r image kdir <<<"$(guest_kernel "$k")" || exit 1
splats=0
for r in $(seq 1 "$runs"); do
	out=$B/toggle-experiment/$k-$accel-$r
	rm -rf "$out"
	mkdir -p "$out"
	TRING_VM_ACCEL=$accel guest_boot "$image" "$kdir" \
		"$top/tools/testing/vm/plan-ftrace-toggle" "$out" 900
	rc=$?
	echo "run $r ($k, -accel $accel): guest_boot $rc (0 clean, 1 did not finish, 2 splat): $(grep '^#' "$out/results/ftrace_toggle.out" 2>/dev/null)"
	[ "$rc" = 0 ] || splats=$((splats + 1))
	grep -m3 -E 'Oops|BUG|WARNING' "$out/console.log" | sed 's/^/    /'
done
echo "$splats of $runs runs with a splat or no end"
