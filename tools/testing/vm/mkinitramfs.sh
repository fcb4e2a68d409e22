#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a gzip'ed cpio initramfs for a tring test guest.
#
# usage: mkinitramfs.sh OUT.cpio.gz PLAN [MODULE_DIR] [FILE...]
#   PLAN        shell fragment the guest's /init sources (its steps)
#   MODULE_DIR  directory whose *.ko go to /lib/tring
#   FILE        programs and data for /tests (static binaries, scripts)
# TRING_VM_EXTRA_KO: the kernel's own modules for /lib/extra (see lib.sh)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$1
plan=$2
moddir=${3:-}
shift $(( $# < 3 ? $# : 3 ))

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,dev,proc,sys,tmp,lib/tring,tests,results}
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$here/guest-init" "$stage/init"
cp "$plan" "$stage/plan"
chmod +x "$stage/init"
mknod "$stage/dev/console" c 5 1
if [ -n "$moddir" ]; then
	cp "$moddir"/*.ko "$stage/lib/tring/"
fi
for f in "$@"; do
	cp -a "$f" "$stage/tests/"
done
# Modules of the kernel's own the tests load (TRING_VM_EXTRA_KO), to
# /lib/extra, decompressed (busybox's insmod takes a plain .ko).
for f in ${TRING_VM_EXTRA_KO:-}; do
	mkdir -p "$stage/lib/extra"
	case $f in
	*.xz) xz -dc "$f" >"$stage/lib/extra/$(basename "$f" .xz)" ;;
	*.zst) zstd -qdc "$f" >"$stage/lib/extra/$(basename "$f" .zst)" ;;
	*) cp "$f" "$stage/lib/extra/" ;;
	esac
done
(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
