#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per event of the in-kernel writers (tring_bench.ko's
# loop: tring's inline and reserve/commit writers, ftrace's ring buffer,
# relay, and the floor: the clock read and a copy of the payload),
# counted by tring_insn.so on a Debian 6.1 guest: each writer runs on
# CPU 0 at two event counts, the loop between two marks of its own
# (tring_bench_mod.c), and the cost per event is the slope of CPU 0's
# kernel instructions over the counts. Timer interrupts during a loop
# are in its count (their share grows with the loop's length, so a
# little of it is in the slope).
#
# usage: fastpath.sh OUTDIR [IMPL...]   (default: floor tring_inline
#        tring_reserve ftrace_reserve relay)
# Prints "IMPL LEN bytes: instructions_per_event X" lines (payloads of
# 8, 64 and 256 bytes); OUTDIR/insn.log has the marks.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
out=$1
shift
impls=${*:-floor tring_inline tring_reserve ftrace_reserve relay}
sizes="20000 60000"
payloads="8 64 256"
mkdir -p "$out"
make -s -C "$here" O="$B/insn" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
read -r image kdir <<<"$(guest_kernel debian-6.1)"
guest_modules "$kdir" >/dev/null || exit 1
echo "$impls" >"$out/fastpath.impls"
echo "$sizes" >"$out/fastpath.sizes"
echo "$payloads" >"$out/fastpath.payloads"
rm -f "$out/insn.log"
TRING_VM_QEMU_ARGS="-plugin $B/insn/libtring_insn.so,out=$out/insn.log" \
	guest_boot "$image" "$kdir" "$here/plan-fastpath" "$out/guest" 900 \
	"$out/fastpath.impls" "$out/fastpath.sizes" "$out/fastpath.payloads"
[ "$(cat "$out/guest/results/fastpath.rc" 2>/dev/null)" = 0 ] ||
	{ echo "fastpath: the guest's runs failed (see $out/guest)" >&2; exit 1; }
# Marks 2j, 2j+1: run j, in impls x payloads x sizes order; CPU 0's
# kernel count.
awk -v impls="$impls" -v sizes="$sizes" -v payloads="$payloads" '
	BEGIN { ni = split(impls, I, " "); ns = split(sizes, S, " "); np = split(payloads, P, " ") }
	$1 == "mark" { k[$2] = $5 }
	END {
		for (i = 1; i <= ni; i++)
			for (p = 1; p <= np; p++) {
				r1 = (((i - 1) * np + p - 1) * ns) * 2; r2 = r1 + 2
				d1 = k[r1 + 1] - k[r1]; d2 = k[r2 + 1] - k[r2]
				printf "%s %d bytes: instructions_per_event %.2f (%d and %d events: %d and %d kernel instructions on CPU 0)\n",
					I[i], P[p], (d2 - d1) / (S[2] - S[1]), S[1], S[2], d1, d2
			}
	}' "$out/insn.log"
