#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of profile.sh's guest: the userland's mounts, tring.ko and
# tring_test.ko loaded, then the script (results/script.sh) sourced
# with prof_on and prof_off; /proc/kallsyms kept for the names, and the
# guest ends.

R=/results
. $R/env
# shellcheck disable=SC1091
. "$(dirname "$0")/../vm/userland/mounts.sh"
userland_mounts
S=/dev/shm/bin
mkdir -p $S
cp "$TOOLS/tring-record" "$INSNTOOLS/insn_mark" $S/
cp "$MODDIR"/tring.ko "$MODDIR"/tring_test.ko /dev/shm/
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
exec > >(tee $R/guest.log >/dev/console) 2>&1
cd /tmp || exit 1
export PATH=$S:/usr/sbin:/usr/bin:/sbin:/bin
T=/sys/kernel/debug/tring

# The tags of tring_insn_mark.h's TRING_INSN_PROF_ON and _OFF.
prof_on() { insn_mark 0x6e6f7270; }
prof_off() { insn_mark 0x666f7270; }

if insmod /dev/shm/tring.ko && insmod /dev/shm/tring_test.ko; then
	# shellcheck disable=SC1091
	. $R/script.sh
	prof_off
	echo 0 >/proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms >$R/kallsyms
	echo done >$R/done
fi
sync
umount $R
echo b >/proc/sysrq-trigger
