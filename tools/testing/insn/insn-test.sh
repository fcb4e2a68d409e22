#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest-instruction counter (tring_insn.c) on a Debian 6.1 guest:
# insn_loop runs 1 and then 2 million iterations of its two-instruction
# loop between two marks; the second run's user instructions between
# its marks must exceed the first's by exactly 2,000,000, each pair of
# marks on one vCPU; each mark carries its run's iteration count as its
# tag (%rax). Prints TAP.
#
# usage: insn-test.sh OUTDIR

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
. "$top/tools/testing/vm/tap.sh"
out=$1
mkdir -p "$out"
log=$out/insn.log

make -s -C "$here" O="$B/insn" >"$out/build.log" 2>&1
tap_ok $? "insn: the plugin builds against the installed QEMU's plugin header ($(grep -o '[^/]*$' <<<"$("$top/scripts/qemu-plugin-header.sh" 2>/dev/null)"))"
read -r image kdir <<<"$(guest_kernel debian-6.1)"
guest_modules "$kdir" >/dev/null 2>&1
prof=$out/prof.txt
rm -f "$log" "$prof"
TRING_VM_QEMU_ARGS="-plugin $B/insn/libtring_insn.so,out=$log,prof=$prof" \
	guest_boot "$image" "$kdir" "$here/plan-insn" "$out/guest" 300 "$B/insn/insn_loop"
[ "$(cat "$out/guest/results/insn.rc" 2>/dev/null)" = 0 ] && [ "$(grep -c '^mark ' "$log")" = 6 ]
tap_ok $? "insn: the guest ran the three loops, 6 marks ($(grep -c '^mark ' "$log" 2>/dev/null))"
# The user instructions between marks 2N and 2N+1, on the vCPU of both.
delta() {
	awk -v a="$1" -v b="$(($1 + 1))" '$1 == "mark" && $2 == a { v = $3; u = $(6 + 2 * v) }
		$1 == "mark" && $2 == b { if ($3 != v) { print "moved"; exit }
			print $(6 + 2 * v) - u; exit }' "$log"
}
d1=$(delta 0) d2=$(delta 2)
[ "$d1" != moved ] && [ "$d2" != moved ] && [ $((d2 - d1)) = 2000000 ] 2>/dev/null
tap_ok $? "insn: 1 and 2 million iterations: $d1 and $d2 user instructions between the marks, $((d2 - d1)) apart (want 2000000)"
tags=$(awk '$1 == "mark" { printf "%s%s", sep, $4; sep = " " }' "$log")
[ "$tags" = "1000000 1000000 2000000 2000000 $((0x6e6f7270)) $((0x666f7270))" ]
tap_ok $? "insn: each mark carries its run's tag from %rax ($tags)"
# The profile: user blocks (below the kernel's half) by address, their
# runs and instructions summed over their translations.
read -r loop_runs user_insns <<<"$(awk 'length($1) < 16 || $1 ~ /^[0-7]/ {
		u += $2 * $3; if ($2 == 2) r[$1] += $3 }
	END { m = 0; for (a in r) if (r[a] > m) m = r[a]; print m + 0, u + 0 }' "$prof" 2>/dev/null)"
[ "${loop_runs:-0}" = 2999999 ] && [ "${user_insns:-0}" -ge 5999998 ] && [ "$user_insns" -le 6000100 ]
tap_ok $? "insn: profile: the loop's block ran $loop_runs times (want 2999999), $user_insns user instructions in the span (want 5999998 to 6000100)"
tap_end
