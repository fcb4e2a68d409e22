#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install and run tring as users do (make check's "userland" part):
#
#  1. on the host, "make install": tring through DKMS for every kernel
#     with headers, tring-record and its man page under PREFIX;
#  2. for each Debian kernel (6.1, 6.12), a guest with the host's own
#     Debian userland (run-guest.sh) runs guest-tests.sh: modprobe tring,
#     the installed tring-record, babeltrace2, streaming to lttng-relayd
#     (relay-tests.sh), then LTTng (6.1 only), trace-cmd and perf on the
#     same workload. The guests run at the same time, each also
#     streaming live to one lttng-relayd on the host's 127.0.0.1, whose
#     sessions the host's babeltrace2 must list at once;
#  3. on the host, "make uninstall", which must leave no file behind.
#
# DKMS changes the host for real: the install is undone at the end, also
# when a test fails or the run is interrupted. A tring already installed
# (by hand, or by a run killed before it could undo) is uninstalled first.
#
# usage: test-userland.sh OUTDIR
# Prints TAP lines and "N passed, N failed"; exit 1 on any failure.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
out=$1
PREFIX=${PREFIX:-/usr/local}
TIMEOUT=${TRING_USERLAND_TIMEOUT:-600}
n=0
pass=0
fail=0
skipped=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}
t() {
	local d=$1
	shift
	"$@"
	ok $? "$d"
}
# logged LOG CMD...: CMD with its output in LOG
logged() {
	local log=$1
	shift
	"$@" >"$log" 2>&1
}
finish() {
	echo "1..$n"
	echo "# $pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
	exit
}

# Every path under the places "make install" writes to, to compare.
snapshot() {
	find /usr/src /var/lib/dkms /lib/modules /etc/dkms "$PREFIX" \
		-xdev 2>/dev/null | sort
}

# Kernels with headers: the ones make install builds for.
kernels() {
	local d
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done
}

rm -rf "$out"
mkdir -p "$out"

# --- 1. make install -------------------------------------------------------------
# A tring already installed (by hand, or left by a run that was killed
# before its undo) is removed first, so the test starts from nothing and
# can check that its own install and uninstall leave nothing behind.
if [ -d /var/lib/dkms/tring ] || [ -e "$PREFIX/bin/tring-record" ]; then
	echo "# found an installed tring ($(ls /var/lib/dkms/tring 2>/dev/null | tr '\n' ' ')$PREFIX/bin/tring-record: $([ -e "$PREFIX/bin/tring-record" ] && echo yes || echo no)): removing it first"
	t "a tring installed before the test is removed (make uninstall)" \
		logged "$out/uninstall-before.log" make -C "$top" -s uninstall PREFIX="$PREFIX"
	if [ -d /var/lib/dkms/tring ] || [ -e "$PREFIX/bin/tring-record" ]; then
		ok 1 "no tring is left installed before the test"
		finish
	fi
fi
snapshot >"$out/before.txt"
installed=0
undo() {
	[ "$installed" = 1 ] && make -C "$top" -s uninstall PREFIX="$PREFIX" >>"$out/uninstall.log" 2>&1
	installed=0
}
trap undo EXIT
trap 'undo; exit 130' INT TERM HUP

s=$(date +%s)
installed=1
t "make install (DKMS for every kernel with headers, tools under $PREFIX)" \
	logged "$out/install.log" make -C "$top" -s install PREFIX="$PREFIX"
echo "# make install took $(( $(date +%s) - s )) s; installed:"
snapshot >"$out/installed.txt"
comm -13 "$out/before.txt" "$out/installed.txt" | tee "$out/new-files.txt" |
	grep -vE '^/usr/src/tring-[^/]+/.+|^/var/lib/dkms/tring/.+/.+' | sed 's/^/#   /'
for k in $(kernels); do
	t "DKMS installed tring.ko for $k in updates/dkms" \
		bash -c "ls /lib/modules/$k/updates/dkms/tring.ko* >/dev/null"
done
t "tring-record installed in $PREFIX/bin" test -x "$PREFIX/bin/tring-record"
t "tring-report installed in $PREFIX/bin, its --help names stacks" \
	bash -c "'$PREFIX/bin/tring-report' --help | grep -q 'tring-report stacks DIR'"
# Registered by KernelShark's library (exit 2 if not), then the file
# does not open (exit 1): check-traces.sh opens real recordings with it.
t "KernelShark's plugin installed in $PREFIX/lib/tring, libkshark registers it" \
	bash -c "'$top/build/kernelshark/test_ks' '$PREFIX/lib/tring/tring-ks.so' /nonexistent 2>/dev/null; [ \$? = 1 ]"
t "tring-report html finds its program in $PREFIX/lib/tring" \
	bash -c "'$PREFIX/bin/tring-report' html --help | grep -q 'usage: tring-report html'"
t "man page tring-record(1) installed and formats" \
	bash -c "man -l '$PREFIX/share/man/man1/tring-record.1' 2>&1 | grep -q -- '--output DIR'"

# --- 2. the guests ------------------------------------------------------------------
# Both at once, each also streaming live to one lttng-relayd on the host
# ("many machines"): 127.0.0.1 only, reached from a guest at 10.0.2.100
# through QEMU's user-mode network (run-guest.sh's TRING_GUEST_FWD).
HP=${TRING_HOST_RELAY_PORT:-15342}
relay_dir=$out/host-relay
host_relay_up() { host_relayd_up "$relay_dir" "$HP" "$out/host-relayd.log"; }
host_relay_down() { host_relayd_down "$HP"; }
guest_start() {
	local name=$1 release=$2 dir=$out/guest-$1
	mkdir -p "$dir/results"
	{
		echo "PREFIX=$PREFIX"
		echo "RELAY_HOST=5342"
		echo "PEERS=$((nguests - 1))"
	} >"$dir/results/env"
	date +%s >"$dir/start"
	TRING_GUEST_FWD="5342:$HP 5343:$((HP + 1)) 5344:$((HP + 2))" \
		"$here/run-guest.sh" "$release" "$dir" "$TIMEOUT" "$here/guest-tests.sh" &
}
guest_report() {
	local name=$1 release=$2 dir=$out/guest-$1 line
	echo "# $name: guest ran $(( $(stat -c %Y "$dir/console.log") - $(cat "$dir/start") )) s wall time (booted $release with the host's userland over 9p)"
	if [ ! -f "$dir/results/done" ]; then
		ok 1 "$name: guest finished its tests ($(tail -n 1 "$dir/qemu.log" 2>/dev/null); $dir/console.log)"
		tail -n 20 "$dir/console.log" | sed 's/^/#   /'
	fi
	while IFS= read -r line; do
		case "$line" in
		"ok - "*"# SKIP"*)
			n=$((n + 1))
			skipped=$((skipped + 1))
			echo "ok $n - $name: ${line#ok - }"
			;;
		"ok - "*) ok 0 "$name: ${line#ok - }" ;;
		"not ok - "*) ok 1 "$name: ${line#not ok - }" ;;
		"#"*) echo "# $name: ${line#\# }" ;;
		esac
	done < <(cat "$dir/results/tap" 2>/dev/null)
	t "$name: no kernel splat" "$top/tools/testing/vm/splat.sh" "$dir/console.log"
}
# What the host's babeltrace2 lists live, every 2 s while guests run;
# the first time it lists every guest's session at once goes to
# $out/all-listed, and into each guest's /results (the guests wait for
# it before they stop streaming).
watch_sessions() {
	local want=$1 g
	while :; do
		babeltrace2 -i lttng-live "net://127.0.0.1:$((HP + 2))" >"$out/listing" 2>&1
		if [ "$(grep -c '/fleet ' "$out/listing")" -ge "$want" ] && [ ! -s "$out/all-listed" ]; then
			cp "$out/listing" "$out/all-listed"
			for g in "${names[@]}"; do
				cp "$out/listing" "$out/guest-$g/results/all-listed"
			done
		fi
		sleep 2
	done
}
newest() { ls -d $1 2>/dev/null | sort -V | tail -n 1; }
names=() releases=()
for series in 6.1 6.12; do
	image=$(newest "/boot/vmlinuz-$series.*")
	if [ -z "$image" ]; then
		ok 1 "a Debian $series kernel is installed (scripts/setup.sh)"
		continue
	fi
	names+=("debian-$series")
	releases+=("${image#/boot/vmlinuz-}")
done
nguests=${#names[@]}
t "host: lttng-relayd for the guests starts on 127.0.0.1:$HP" host_relay_up
: >"$out/all-listed"
watch_sessions "$nguests" &
watcher=$!
pids=()
for i in "${!names[@]}"; do
	guest_start "${names[$i]}" "${releases[$i]}"
	pids+=($!)
done
wait "${pids[@]}"
kill $watcher 2>/dev/null
wait $watcher 2>/dev/null
for i in "${!names[@]}"; do
	guest_report "${names[$i]}" "${releases[$i]}"
done
sed 's/^/#   host babeltrace2: /' "$out/all-listed"
t "host: babeltrace2 lists the $nguests guests' sessions live at once" \
	test "$(grep -c '/fleet ' "$out/all-listed")" -ge "$nguests"
for i in "${!names[@]}"; do
	g=guest-${names[$i]#debian-}
	tr=$(ls -d "$relay_dir/$g/fleet-"*/kernel 2>/dev/null | head -n 1)
	t "host: the relay's trace from $g reads in babeltrace2 ($tr)" \
		bash -c "test -n '$tr' && babeltrace2 '$tr' >'$out/fleet-$g.txt' 2>'$out/fleet-$g.err' && grep -q ' sched_switch: ' '$out/fleet-$g.txt'"
done
host_relay_down

# --- 3. make uninstall --------------------------------------------------------------
installed=0
t "make uninstall" logged "$out/uninstall.log" make -C "$top" -s uninstall PREFIX="$PREFIX"
snapshot >"$out/after.txt"
left=$(comm -13 "$out/before.txt" "$out/after.txt")
[ -z "$left" ] || echo "$left" | head -n 20 | sed 's/^/#   left: /'
t "make uninstall leaves no file behind ($(grep -c . "$out/new-files.txt") were installed)" \
	test -z "$left"
gone=$(comm -23 "$out/before.txt" "$out/after.txt")
[ -z "$gone" ] || echo "$gone" | head -n 20 | sed 's/^/#   removed: /'
t "make uninstall removes nothing that was there before" test -z "$gone"
for k in $(kernels); do
	t "modprobe finds no tring for $k after uninstall" \
		bash -c "! modinfo -k '$k' tring >/dev/null 2>&1"
done
finish
