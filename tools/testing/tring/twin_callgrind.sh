#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per event of the write fast path, from callgrind.
# Usage: twin_callgrind.sh <dir holding twin_bench> [events]
#
# Only bench_loop() is counted (--toggle-collect), after a first pass
# over the whole ring so the counted loop is in steady state. From the
# inclusive costs:
#   total     all instructions of the loop, per event
#   clock     twin_clock_ns() (what ktime_get_mono_fast_ns() is here)
#   slow path tring_reserve_slow_v4() + tring_deliver_v2() (opening and closing
#             sub-buffers, once per sub-buffer), amortized, clock excluded
#   fast path total - clock - slow path: the inline reserve, payload copy,
#             commit, and the loop's own few instructions
#   floor     floor_loop(): the same loop storing the timestamp and payload
#             into plain memory; fast path minus the floor's own cost is
#             tring's: reserve + commit, without the loop and the copy

D=$1
N=${2:-1000000}
OUT=$D/callgrind.out
valgrind --tool=callgrind --callgrind-out-file="$OUT" \
	--toggle-collect=bench_loop --toggle-collect=floor_loop \
	"$D/twin_bench" --callgrind "$N" \
	>"$D/callgrind.log" 2>&1 || { cat "$D/callgrind.log"; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$OUT" \
	>"$D/callgrind.txt" 2>&1 || { cat "$D/callgrind.txt"; exit 1; }

# Inclusive Ir of a function: its total line, "Ir (pct) file:func [binary]"
# (the lines without a binary break inlined code down by source file).
ir() {
	awk -v f="$1" '$NF ~ /^\[/ && $(NF - 1) ~ (":" f "$") {
		gsub(",", "", $1); print $1; exit
	}' "$D/callgrind.txt"
}

total=$(ir bench_loop)
floor=$(ir floor_loop)
clock=$(ir twin_clock_ns)
slow=$(ir tring_reserve_slow_v4)
deliver=$(ir tring_deliver_v2)
: "${clock:=0}" "${slow:=0}" "${deliver:=0}" "${floor:=0}"
if [ -z "$total" ]; then
	echo "bench_loop not found in $D/callgrind.txt" >&2
	exit 1
fi
awk -v n="$N" -v t="$total" -v c="$clock" -v s="$slow" -v d="$deliver" \
    -v f="$floor" '
BEGIN {
	# Both loops read the clock once per event.
	c = c / 2
	printf "callgrind, %d events of 8 bytes, 64 KiB sub-buffers:\n", n
	printf "  total       %7.2f instructions/event\n", t / n
	printf "  clock       %7.2f instructions/event (twin_clock_ns)\n", c / n
	printf "  slow path   %7.2f instructions/event amortized " \
	       "(tring_reserve_slow_v4 + tring_deliver_v2, with their clock reads)\n",
	       (s + d) / n
	printf "  fast path   %7.2f instructions/event " \
	       "(reserve + copy + commit, clock excluded)\n",
	       (t - c) / n
	printf "  floor loop  %7.2f instructions/event " \
	       "(loop + store of time and payload, clock excluded)\n",
	       (f - c) / n
	printf "  tring       %7.2f instructions/event " \
	       "(fast path - floor loop: reserve + commit)\n",
	       (t - f) / n
}'
