#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The flight recorder across a crash (persist=): a guest records markers
# and a workload into the default buffer placed in memory reserved with
# memmap=, writes a last marker and crashes the kernel (sysrq c, then
# the panic reboots, which ends QEMU); a second guest on the same memory
# (a shared memory-backend file) loads tring with the same persist=,
# saves instances/last_boot with tring-record, releases it; the host
# reads the saved trace with babeltrace2: the last marker and every one
# before it, in order. Then the same with a warm "reboot -f".
#
# usage: persist-test.sh KERNEL OUTDIR [PART...]
#   KERNEL  6.1, 6.12 (Debian's) or kasan-6.1 (lib.sh's guest_kernel)
#   PART    crash (sysrq c, then read back), reboot (reboot -f, then read
#           back; then a live recording in the region, and a second load
#           offering it), damaged (the region damaged six ways),
#           cpus (written on 4 vCPUs, read on 2), reserve_mem (6.12: the
#           region from reserve_mem=), bench (the
#           write cost with and without persist=, printed); default:
#           crash reboot damaged, and reserve_mem on 6.12.
# TAP on stdout.

set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
series=$1
out=$2
# 16 MiB at 768 MiB, inside the guests' 1 GiB.
region=0x30000000:16M
cmdline='memmap=16M$0x30000000'
markers=300
. "$top/tools/testing/vm/tap.sh"
ok() { tap_ok "$1" "- $2"; }

case $series in
6.*) k=$(guest_kernel "debian-$series") || exit 1 ;;
*) k=$(guest_kernel "$series") || exit 1 ;;
esac
shift 2
parts=${*:-crash reboot damaged $([ "$series" = 6.12 ] && echo reserve_mem)}
read -r image kdir <<<"$k"
guest_modules "$kdir" >/dev/null || exit 1
make -C "$top" -s tools selftests >/dev/null || exit 1
moddir=$(guest_moddir "$kdir")
rm -rf "$out"
mkdir -p "$out"
accel=tcg
[ "$series" = 6.12 ] && accel=tcg,thread=single
# Each guest's budget: a boot here takes 10 to 60 s (KASAN, beside
# another lane's debug guest); a hung one fails after this long.
budget=240
[ "$series" = kasan-6.1 ] && budget=480

# plan_crash HOW: load with persist=$region, markers and a workload, the
# last marker, then HOW ("echo c > /proc/sysrq-trigger" or "reboot -f").
plan_crash() {
	cat <<EOF
run_step load insmod /lib/tring/tring.ko persist=$region
run_step record sh -c '
	T=/sys/kernel/debug/tring
	echo 1 > \$T/events/enable
	i=1
	while [ \$i -le $markers ]; do
		echo "persist marker \$i" > \$T/trace_marker
		i=\$((i + 1))
	done
	/tests/workload.sh >/dev/null 2>&1
	# An event enabled just before the crash: described in the region
	# before its first record, so nothing after it is lost.
	echo kmem:kmalloc > \$T/events/generic_events &&
		echo 1 > \$T/events/kmem/kmalloc/enable
	echo "persist last marker" > \$T/trace_marker
	echo TRING-PERSIST-MARKED'
sync
$1
EOF
}

plan_read() {
	cat <<EOF
run_step refuse sh -c 'for r in 0x20000000:16M 0xfee00000:4K 0xfffc0000:256K 0x2ff00000:2M; do
		! insmod /lib/tring/tring.ko persist=\$r || exit 1
		dmesg | grep -q "persist=\$r: not memory reserved with memmap" || exit 1
	done'
run_step load insmod /lib/tring/tring.ko persist=$region
run_step kept sh -c 'dmesg | grep -E "tring: (last boot|persist)"'
run_step save tring-record -q --instance last_boot -o /results/last_boot
run_step frozen /tests/tring_flush_frozen /sys/kernel/debug/tring/instances/last_boot/per_cpu/cpu0/stream
run_step release sh -c '
	L=/sys/kernel/debug/tring/instances/last_boot
	exec 3<\$L/per_cpu/cpu0/stream
	! rmmod tring 2>/dev/null || exit 1
	echo 1 > \$L/release
	i=0
	while test -e \$L && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
	! test -e \$L || exit 1
	exec 3<&-'
run_step live sh -c '
	T=/sys/kernel/debug/tring
	tring-record -q -o /results/live &
	rec=\$!
	# Recording once its metadata is made (its SIGINT handler is in place).
	while [ ! -f /results/live/kernel/metadata ]; do
		kill -0 \$rec || exit 1
		sleep 0.1
	done
	echo 1 > \$T/events/enable
	echo "persist live marker" > \$T/trace_marker
	echo 0 > \$T/events/enable
	kill -INT \$rec
	wait \$rec'
run_step reload sh -c 'rmmod tring && insmod /lib/tring/tring.ko persist=$region &&
	tring-record -q --instance last_boot -o /results/reload'
run_step unload rmmod tring
EOF
}

# boot NAME PLANTEXT: one guest on the shared memory.
boot() {
	printf '%s\n' "$2" >"$out/plan-$1"
	"$top/tools/testing/vm/mkinitramfs.sh" "$out/$1.cpio.gz" "$out/plan-$1" \
		"$moddir" "$top/build/tools/tring-record" \
		"$top/tools/testing/vm/workload.sh" \
		"$top/build/selftests/tring_flush_frozen" >/dev/null || return 1
	TRING_VM_ACCEL=$accel TRING_VM_MEMFILE=$out/ram \
		"$top/tools/testing/vm/run-guest.sh" "$image" "$out/$1.cpio.gz" \
		"$out/$1" "$budget" "$cmdline" || [ "${1%-before}" != "$1" ]
	# The crash asked for is a splat; any other is not.
	case $2 in *sysrq-trigger*) return 0 ;; esac
	SPLAT_SYSTEM_MAP=$kdir/System.map "$top/tools/testing/vm/splat.sh" \
		"$out/$1/console.log" >"$out/$1/splats.txt"
	ok $? "$1: no kernel splat"
}

# round HOW LABEL: crash or reboot, then read back and check.
round() {
	local how=$1 label=$2 d tr last order s

	rm -f "$out/ram"
	boot "$label-before" "$(plan_crash "$how")"
	ok "$(grep -q 'tring: last boot: no trace kept: no tring region' "$out/$label-before/console.log"; echo $?)" \
		"$label: a load over fresh memory says nothing was kept, and records"
	ok "$(grep -q TRING-PERSIST-MARKED "$out/$label-before/console.log"; echo $?)" \
		"$label: the first boot recorded its markers and went down"
	boot "$label-after" "$(plan_read)"
	d=$out/$label-after/results
	for s in refuse load kept save frozen release live reload unload; do
		ok "$([ "$(cat "$d/$s.rc" 2>/dev/null)" = 0 ]; echo $?)" "$label: guest step $s"
	done
	sed 's/^/# /' "$d/kept.out" 2>/dev/null
	tr=$out/$label.txt
	babeltrace2 "$d/last_boot" >"$tr" 2>"$out/$label.bt.err"
	ok $? "$label: babeltrace2 reads the saved trace"
	last=$(grep -c 'persist last marker' "$tr")
	ok "$([ "$last" = 1 ]; echo $?)" "$label: the last marker is there ($last)"
	# Markers in order, ending at the last one written before it.
	order=$(grep -o 'persist marker [0-9]*' "$tr" | awk '{ print $3 }' |
		awk -v m="$markers" 'NR > 1 && $1 != p + 1 { bad = 1 } { p = $1; n++ }
			END { print (bad || p != m) ? "bad" : n }')
	ok "$([ "$order" != bad ] && [ "${order:-0}" -gt 0 ]; echo $?)" \
		"$label: markers in order up to $markers ($order of them kept)"
	ok "$(grep -q 'sched_switch' "$tr"; echo $?)" "$label: the workload's events are there"
	ok "$(grep -q ' kmalloc: ' "$tr"; echo $?)" \
		"$label: a generic event enabled just before the crash is read back"
	ok "$(babeltrace2 "$d/live" 2>/dev/null | grep -c 'persist live marker' | grep -qx 1; echo $?)" \
		"$label: tring-record reads the buffer in the region (mapped pages of the region)"
	ok "$(babeltrace2 "$d/reload" 2>/dev/null | grep -c 'persist live marker' | grep -qx 1; echo $?)" \
		"$label: loaded again in the same boot, tring offers what the first load recorded"
	echo "# $label: the last lines kept:"
	tail -n 3 "$tr" | cut -c1-160 | sed 's/^/#   /'
	rm -f "$out/ram"
}

# plan_damaged: load over a region persist-corrupt.py damaged: tring
# loads, says what it kept; whatever it offers reads.
plan_damaged() {
	cat <<EOF
run_step load insmod /lib/tring/tring.ko persist=$region
run_step kept sh -c 'dmesg | grep -E "tring: (last boot|persist)"'
run_step save sh -c '! test -e /sys/kernel/debug/tring/instances/last_boot ||
	tring-record -q --instance last_boot -o /results/last_boot'
run_step unload rmmod tring
EOF
}

# damaged: one crash, then the region damaged each way (DAMAGED_KINDS:
# some of them) before a load.
damaged() {
	local kind d s off=$((${region%%:*})) expect

	rm -f "$out/ram"
	boot damage-before "$(plan_crash "echo c > /proc/sysrq-trigger")"
	dd if="$out/ram" of="$out/region" bs=1M skip=$((off >> 20)) count=16 status=none
	for kind in ${DAMAGED_KINDS:-header version geometry metadata slots records}; do
		dd if="$out/region" of="$out/ram" bs=1M seek=$((off >> 20)) conv=notrunc status=none
		/usr/bin/python3 "$top/tools/testing/vm/persist-corrupt.py" "$out/ram" "$off" "$kind" 1
		boot "damaged-$kind" "$(plan_damaged)"
		d=$out/damaged-$kind/results
		for s in load kept save unload; do
			ok "$([ "$(cat "$d/$s.rc" 2>/dev/null)" = 0 ]; echo $?)" "damaged $kind: guest step $s"
		done
		case $kind in
		header) expect="no trace kept: header checksum mismatch" ;;
		version) expect="no trace kept: another layout version" ;;
		geometry) expect="no trace kept" ;;
		metadata) expect="no trace kept: no valid metadata" ;;
		*) expect="last boot: CPU 1: " ;;
		esac
		ok "$(grep -q "$expect" "$d/kept.out"; echo $?)" "damaged $kind: \"$expect\""
		sed 's/^/# /' "$d/kept.out" 2>/dev/null
		if [ -d "$d/last_boot" ]; then
			babeltrace2 "$d/last_boot" >/dev/null 2>"$out/damaged-$kind.bt.err"
			ok $? "damaged $kind: what was offered reads"
		fi
	done
	rm -f "$out/ram" "$out/region"
}

# cpus: a region written by a 4-vCPU boot, read by a 2-vCPU one: CPUs 0
# and 1 are kept, 2 and 3 named as left out (their ids are beyond this
# boot's), and nothing touches per-CPU data of CPUs the boot lacks.
cpus() {
	local d=$out/cpus-after/results c

	rm -f "$out/ram"
	TRING_VM_SMP=4 boot cpus-before "$(plan_crash "echo c > /proc/sysrq-trigger")"
	ok "$(grep -q TRING-PERSIST-MARKED "$out/cpus-before/console.log"; echo $?)" \
		"cpus: a 4-vCPU boot recorded its markers and went down"
	boot cpus-after "$(plan_damaged)"
	for s in load kept save unload; do
		ok "$([ "$(cat "$d/$s.rc" 2>/dev/null)" = 0 ]; echo $?)" "cpus: 2-vCPU guest step $s"
	done
	sed 's/^/# /' "$d/kept.out" 2>/dev/null
	for c in 2 3; do
		ok "$(grep -q "last boot: CPU $c's [0-9]* events left out: this boot has no CPU $c" \
			"$d/kept.out"; echo $?)" "cpus: CPU $c's events named as left out"
	done
	for c in 0 1; do
		ok "$(grep -q "last boot: CPU $c: [0-9]* sub-buffers" "$d/kept.out"; echo $?)" \
			"cpus: CPU $c's events kept"
	done
	# The markers' CPU is the scheduler's choice: only the reading is checked.
	babeltrace2 "$d/last_boot" >"$out/cpus.txt" 2>&1
	ok "$(grep -q 'cpu_id = [01][ ,}]' "$out/cpus.txt"; echo $?)" \
		"cpus: the trace kept reads, with events of CPUs 0 and 1"
	rm -f "$out/ram"
}

# The write path's cost, persist= against the same buffer in pages of its
# own (overwrite mode, 64 sub-buffers of 64 KiB): bench/fill's 64-byte
# events on CPU 0, rounds alternating which goes first. Printed, not
# judged (emulated timings).
plan_bench() {
	cat <<EOF
run_step bench sh -c '
	B=/sys/kernel/debug/tring/bench
	for r in 1 2 3 4 5 6; do
		for mode in persist plain; do
			[ \$((r % 2)) = 1 ] || mode=\$([ \$mode = persist ] && echo plain || echo persist)
			if [ \$mode = persist ]; then
				insmod /lib/tring/tring.ko persist=$region || exit 1
			else
				insmod /lib/tring/tring.ko overwrite=1 subbuf_count=64 || exit 1
			fi
			insmod /lib/tring/tring_bench.ko || exit 1
			echo "tring 200000 0" > \$B/fill || exit 1
			echo "fill \$r \$mode \$(cat \$B/fill)"
			rmmod tring_bench tring || exit 1
		done
	done'
EOF
}

bench() {
	local d

	rm -f "$out/ram"
	boot bench "$(plan_bench)"
	d=$out/bench/results
	ok "$([ "$(cat "$d/bench.rc" 2>/dev/null)" = 0 ]; echo $?)" "bench: the write benchmark ran"
	for m in persist plain; do
		printf '# %s: ns per 64-byte event, rounds:' "$m"
		awk -v m="$m" '$1 == "fill" && $3 == m { printf " %.1f", $9 / $5 }' "$d/bench.out"
		awk -v m="$m" '$1 == "fill" && $3 == m { print $9 / $5 }' "$d/bench.out" |
			sort -n | awk '{ a[NR] = $1 } END { printf "; median %.1f\n", (a[int((NR + 1) / 2)] + a[int(NR / 2) + 1]) / 2 }'
	done
	rm -f "$out/ram"
}

echo "TAP version 13"
for p in $parts; do
	case $p in
	bench) bench ;;
	crash) round "echo c > /proc/sysrq-trigger" crash ;;
	reboot) round "reboot -f" reboot ;;
	damaged) damaged ;;
	cpus) cpus ;;
	reserve_mem)
		# reserve_mem= (6.12): memblock places it, the same place each
		# boot without KASLR.
		region=reserve_mem:tring cmdline="reserve_mem=16M:4096:tring nokaslr" \
			round "echo c > /proc/sysrq-trigger" reserve_mem
		;;
	*) echo "unknown part $p" >&2; exit 2 ;;
	esac
done
tap_end
