#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a guest's instructions go: boots a Debian kernel with the host's
# userland (tools/testing/vm/userland/run-guest.sh) and the profiling
# instruction counter (tring_insn.so prof=), loads tring.ko and
# tring_test.ko, and runs SCRIPT in it (sourced by bash, with
# /sys/kernel/debug/tring as $T, tring-record on the PATH and the
# functions prof_on and prof_off, which mark the span to profile); then
# prints the functions that ran the most instructions in that span,
# every vCPU together (profile.py).
#
# usage: profile.sh OUTDIR SCRIPT [SERIES]   (SERIES: 6.1, the default,
#        or 6.12; TOP=N lines, default 40)
# OUTDIR gets the guest's console.log, results/ (kallsyms, the profile,
# the script's own output in guest.log) and profile.txt.

set -uo pipefail
case ${1:-} in
-h | --help | "")
	sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit
	;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
out=$(realpath -m "$1")
script=$2
series=${3:-6.1}

read -r image kdir <<<"$(guest_kernel "$series")" || exit 1
[ -n "${image:-}" ] || { echo "profile: no Debian $series kernel" >&2; exit 1; }
release=${image#/boot/vmlinuz-}
insn_ok "$release" || { echo "profile: $release runs on one host thread, where QEMU's instruction counter crashes (tools/testing/vm/lib.sh, insn_ok)" >&2; exit 1; }
guest_modules "$kdir" >/dev/null || { echo "profile: the modules do not build" >&2; exit 1; }
make -C "$top" -s tools >/dev/null || exit 1
make -C "$here" -s O="$B/insn" >/dev/null || exit 1
rm -rf "$out"
mkdir -p "$out/results"
{
	echo "MODDIR=$(guest_moddir "$kdir")"
	echo "TOOLS=$B/tools"
	echo "INSNTOOLS=$B/insn"
} >"$out/results/env"
# The guest's /tmp is its own: the script goes with the results.
cp "$script" "$out/results/script.sh"
TRING_VM_QEMU_ARGS="-plugin $B/insn/libtring_insn.so,out=$out/results/insn.txt,prof=$out/results/prof.txt" \
	"$top/tools/testing/vm/userland/run-guest.sh" "$release" "$out" \
	"${PROFILE_TIMEOUT:-1200}" "$here/profile-guest.sh"
[ -f "$out/results/done" ] || { echo "profile: the guest did not finish: $out/console.log" >&2; exit 1; }
/usr/bin/python3 "$here/profile.py" --top "${TOP:-40}" "$out/results/kallsyms" \
	"$out/results/prof.txt" | tee "$out/profile.txt"
