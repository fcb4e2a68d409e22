#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel with an initramfs under QEMU (software emulation, the
# only kind these machines have), wait for it with a hard timeout and
# unpack what the guest sent back.
#
# usage: run-guest.sh KERNEL INITRD OUTDIR TIMEOUT_S [EXTRA_CMDLINE]
#
# OUTDIR gets console.log (ttyS0: kernel and step output), results.b64
# (ttyS1) and results/ unpacked from it, and qemu.log (QEMU's version and
# output). TRING_VM_SMP, TRING_VM_MEM, TRING_VM_ACCEL, TRING_VM_MEMFILE:
# vCPUs, memory, accelerator, a file holding the guest's memory;
# TRING_VM_QEMU_ARGS: more of QEMU's options (a -plugin). The guest is told QEMU's version (tring_qemu=, which its /init
# prints and stores in results/qemu). Exit status: 0 when the guest
# finished and sent its results, 1 otherwise (hang, crash, no results).

set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/testing/vm/lib.sh"
. "$top/tools/testing/vm/boot-watch.sh"

kernel=$1
initrd=$2
out=$3
timeout_s=$4
extra=${5:-}
smp=${TRING_VM_SMP:-2}
mem=${TRING_VM_MEM:-1G}
accel=${TRING_VM_ACCEL:-tcg}

rm -rf "$out"
mkdir -p "$out"

# oops=panic panic=-1: a crashed guest reboots at once, which ends QEMU.
# No PS/2 controller (i8042=off): nothing types, and the kernel's probe
# of the keyboard raced its interrupt under KCSAN (tring.rst, Testing).
qemu=$(qemu_version)
cmdline="console=ttyS0 oops=panic panic=-1 tsc=reliable tring_qemu=$qemu $extra"
echo "QEMU $qemu, -accel $accel -smp $smp -m $mem, $(basename "$kernel")" >"$out/qemu.log"

# TRING_VM_MEMFILE: the guest's RAM in that file, shared, so that what a
# guest leaves in memory is there for the next one (persist-test.sh).
ram=()
[ -z "${TRING_VM_MEMFILE:-}" ] ||
	ram=(-object "memory-backend-file,id=ram,size=$mem,mem-path=$TRING_VM_MEMFILE,share=on"
		-machine memory-backend=ram)
# A boot that hangs before init is tried once more (boot-watch.sh).
# TRING_VM_QEMU_ARGS is split into words on purpose.
# shellcheck disable=SC2086
boot_twice "$out" timeout --kill-after=10 "$timeout_s" \
	qemu-system-x86_64 -accel "$accel" -smp "$smp" -m "$mem" "${ram[@]}" \
	-machine i8042=off -display none -monitor none -no-reboot \
	-serial "file:$out/console.log" -serial "file:$out/results.b64" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	${TRING_VM_QEMU_ARGS:-}
status=$?
echo "$status" >"$out/qemu.status"
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
	echo "guest timed out after ${timeout_s}s" >>"$out/qemu.log"
fi

tr -d "\r" <"$out/results.b64" | sed -n "/^TRING-RESULTS-BEGIN/,/^TRING-RESULTS-END/p" |
	sed '1d;$d' | base64 -d 2>/dev/null | tar -C "$out" -xzf - 2>/dev/null
if [ ! -d "$out/results" ]; then
	echo "guest sent no results (qemu exit $status)" >>"$out/qemu.log"
	exit 1
fi
exit 0
