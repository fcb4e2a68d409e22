# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the real-userland guests' PID 1 programs (guest-tests.sh,
# bench-race.sh, bench-probes.sh, tools/testing/insn/profile-guest.sh):
# userland_mounts mounts what every one of them needs first.

userland_mounts() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	ln -sfn /proc/self/fd /dev/fd
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
}
