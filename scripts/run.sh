#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot a guest kernel, load tring, enable its events, record a
# small real workload with tring-record, copy the trace out and show it.
#
# TRING_RUN_KERNEL=6.12 picks Debian's 6.12 kernel instead of 6.1.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
series=${TRING_RUN_KERNEL:-6.1}

say() { echo "run: $*"; }

say "setting up (Debian packages)"
"$top/scripts/setup.sh"

read -r image kdir <<<"$(guest_kernel "$series")"
[ -n "$image" ] || exit 1
release=${image#/boot/vmlinuz-}

say "building tring for $release and tring-record"
guest_modules "$kdir" >/dev/null
make -C "$top" -s tools >/dev/null

stamp=$(date +%Y%m%d-%H%M%S)
work=$B/run/guest-$stamp
trace=$B/run/trace-$stamp
mkdir -p "$B/run"

say "booting Debian $release under QEMU $(qemu_version) (software emulation, 2 CPUs)"
rc=0
guest_boot "$image" "$kdir" "$VM/plan-run" "$work" 300 \
	"$B/tools/tring-record" "$VM/workload.sh" || rc=$?
if [ "$rc" = 1 ] || [ ! -f "$work/results/trace/kernel/metadata" ]; then
	echo "run: the guest did not bring a trace back; console log:" >&2
	tail -n 40 "$work/console.log" >&2
	exit 1
fi
if [ "$rc" = 2 ]; then
	echo "run: the guest kernel reported a problem:" >&2
	cat "$work/splats.txt" >&2
	exit 1
fi
mv "$work/results/trace" "$trace"
ln -sfn "$(basename "$trace")" "$B/run/latest"
babeltrace2 "$trace" >"$B/run/trace-$stamp.txt" 2>"$B/run/trace-$stamp.err"

summary=$trace/.tring-record.summary
echo
echo "Recorded on: Linux $(cat "$work/results/kernel"), $(cat "$work/results/nproc") CPUs, clocksource $(cat "$work/results/clocksource")"
echo
echo "Events per type (babeltrace2):"
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /:$/ && $(i + 1) == "{") { print substr($i, 1, length($i) - 1); break } }' \
	"$B/run/trace-$stamp.txt" | sort | uniq -c | sort -rn |
	awk '{ printf "  %-22s %8d\n", $2, $1 }'
echo
echo "Per CPU (tring-record):"
printf '  %-4s %10s %12s %10s\n' cpu events bytes lost
for cpu in $(sed -n 's/^cpu\([0-9]*\)\.events=.*/\1/p' "$summary"); do
	printf '  %-4s %10s %12s %10s\n' "$cpu" \
		"$(sed -n "s/^cpu$cpu\.events=//p" "$summary")" \
		"$(sed -n "s/^cpu$cpu\.bytes=//p" "$summary")" \
		"$(sed -n "s/^cpu$cpu\.lost=//p" "$summary")"
done
echo
echo "Markers written by the workload:"
grep ' marker: ' "$B/run/trace-$stamp.txt" | sed 's/^/  /'
echo
echo "First lines of babeltrace2's output:"
head -n 12 "$B/run/trace-$stamp.txt" | cut -c1-160 | sed 's/^/  /'
[ -s "$B/run/trace-$stamp.err" ] && { echo; sed 's/^/  /' "$B/run/trace-$stamp.err"; }
echo
echo "The trace (CTF 1.8) is in $trace/kernel (an LTTng session's layout)"
echo "(also $B/run/latest). Read it with:"
echo "  babeltrace2 $trace"
echo "or open $trace/kernel in Trace Compass. Full text: $B/run/trace-$stamp.txt"
