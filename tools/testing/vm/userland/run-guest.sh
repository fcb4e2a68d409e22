#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot an installed Debian kernel under QEMU (software emulation) with the
# host's own root filesystem as its userland: shared read-only over virtio
# 9p, with a tmpfs overlay for writes (see init), and OUTDIR/results
# shared read-write at /results. PROGRAM, a path in the host's
# filesystem, runs as the guest's PID 1 and ends the guest; a file
# OUTDIR/results/env, if the caller wrote one, is for it to read.
#
# usage: run-guest.sh RELEASE OUTDIR TIMEOUT_S PROGRAM
#        run-guest.sh --accel RELEASE   (print the QEMU accelerator it
#                                        would take for that kernel)
#
# OUTDIR gets console.log (ttyS0) and qemu.log; results/ is what the guest
# wrote. Exit status: QEMU's (124 on timeout, 125 when both boots hung
# before init: ../boot-watch.sh). TRING_VM_SMP (2) and
# TRING_USERLAND_MEM (1G) size the guest; TRING_VM_ACCEL overrides the
# QEMU accelerator; TRING_VM_QEMU_ARGS adds QEMU options (the instruction
# counter's -plugin: tools/testing/insn), split into words.
#
# TRING_GUEST_FWD="PORT:HOSTPORT ..." gives the guest a network that
# reaches the host's loopback only: a virtio NIC on QEMU's user-mode
# network with restrict=on (nothing routed to the host or outside, no
# DNS), where a TCP connection to 10.0.2.100:PORT is forwarded to
# 127.0.0.1:HOSTPORT on the host (one guestfwd per pair). The guest sets
# itself up with guest-net.sh (10.0.2.15/24, static). Each guest
# connection gets its own host connection: QEMU runs busybox nc for it,
# connected to 127.0.0.1:HOSTPORT (a forward to a socket chardev would
# share one host connection among all the guest's connections, which
# breaks lttng-relayd). With nothing listening on the host, a guest's
# connection is accepted, then closed at once. TRING_GUEST_NAT=1
# instead: the same NIC on QEMU's user-mode network without restrict,
# where the guest reaches the host's 127.0.0.1 at 10.0.2.2 through
# QEMU's own sockets (no process per connection: the faster path, for
# the benchmark's streaming); the guest has no default route, so only
# that subnet answers. TRING_GUEST_TAP=NAME: the same NIC on the host's
# tap device NAME (lib.sh's host_tap_up, which gives the host 10.0.2.2
# there), with the virtio header, so that the guest's TCP has the
# offloads of a real NIC and the host kernel's stack answers (no QEMU
# sockets between). None of them set (the default): no network device.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# 6.12 on one host thread: see "-accel tcg,thread=single" in check.sh.
accel_of() {
	case $1 in
	6.1[2-9]* | 6.[2-9]* | [7-9].*) echo "${TRING_VM_ACCEL:-tcg,thread=single}" ;;
	*) echo "${TRING_VM_ACCEL:-tcg}" ;;
	esac
}
if [ "${1:-}" = --accel ]; then
	accel_of "$2"
	exit 0
fi
. "$here/../boot-watch.sh"
release=$1
out=$2
timeout_s=$3
prog=$4
smp=${TRING_VM_SMP:-2}
mem=${TRING_USERLAND_MEM:-1G}
accel=$(accel_of "$release")

net=(-nic none)
if [ -n "${TRING_GUEST_FWD:-}" ]; then
	netdev=user,id=net0,restrict=on,net=10.0.2.0/24
	for pair in $TRING_GUEST_FWD; do
		[[ $pair =~ ^[0-9]+:[0-9]+$ ]] ||
			{ echo "run-guest: TRING_GUEST_FWD: not PORT:HOSTPORT: $pair" >&2; exit 1; }
		netdev+=",guestfwd=tcp:10.0.2.100:${pair%%:*}-cmd:sh -c \"exec busybox nc 127.0.0.1 ${pair#*:} 2>/dev/null\""
	done
	# shellcheck disable=SC2054 # commas within QEMU's options
	net=(-netdev "$netdev" -device virtio-net-pci,netdev=net0)
elif [ -n "${TRING_GUEST_TAP:-}" ]; then
	# shellcheck disable=SC2054
	net=(-netdev "tap,id=net0,ifname=$TRING_GUEST_TAP,script=no,downscript=no,vnet_hdr=on"
		-device virtio-net-pci,netdev=net0)
elif [ "${TRING_GUEST_NAT:-0}" = 1 ]; then
	# shellcheck disable=SC2054
	net=(-netdev user,id=net0,net=10.0.2.0/24 -device virtio-net-pci,netdev=net0)
fi

image=/boot/vmlinuz-$release
[ -r "$image" ] || { echo "run-guest: no $image" >&2; exit 1; }
mkdir -p "$out/results"
rm -f "$out/console.log" "$out/qemu.log"
"$here/mkinitramfs.sh" "$release" "$out/initrd.cpio.gz" || exit 1

# no_timer_check: on a loaded host, the emulated timer can miss the
# kernel's boot-time IO-APIC timer check, which then panics.
cmdline="console=ttyS0 oops=panic panic=-1 tsc=reliable no_timer_check tring.init=$prog"
# Under TCG the guest's TSC runs at the host's rate, but on a loaded host
# the guest calibrates it wrong (seen: 116 MHz for 2793), and with
# tsc=reliable its clock then runs that much fast: give it the host's
# rate when the host's kernel log says it.
khz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: \(Refined TSC clocksource calibration\|Detected\) \([0-9.]*\) MHz.*/\2/p' |
	tail -n 1 | awk '{ printf "%d", $1 * 1000 }')
[ -z "$khz" ] || cmdline+=" tsc_early_khz=$khz"
# A boot that hangs before init is tried once more (boot-watch.sh).
: >"$out/qemu.log"
# TRING_VM_QEMU_ARGS is split into words on purpose.
# shellcheck disable=SC2086
boot_twice "$out" timeout --kill-after=10 "$timeout_s" \
	qemu-system-x86_64 -accel "$accel" -smp "$smp" -m "$mem" \
	-display none -monitor none -no-reboot \
	-serial "file:$out/console.log" \
	-kernel "$image" -initrd "$out/initrd.cpio.gz" -append "$cmdline" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=results,path="$out/results",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=results,mount_tag=results \
	"${net[@]}" ${TRING_VM_QEMU_ARGS:-}
status=$?
[ "$status" != 124 ] && [ "$status" != 137 ] ||
	echo "guest timed out after ${timeout_s}s" >>"$out/qemu.log"
exit "$status"
