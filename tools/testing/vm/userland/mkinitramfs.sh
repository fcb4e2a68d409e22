#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the initramfs of the real-userland guest for one installed Debian
# kernel: busybox, this directory's init, and the kernel's own modules
# for virtio 9p, overlayfs and virtio-net (with their dependencies,
# decompressed), taken from the host's /lib/modules/RELEASE. virtio-net
# is for run-guest.sh's optional network (TRING_GUEST_FWD); without a
# NIC it loads and does nothing.
#
# usage: mkinitramfs.sh RELEASE OUT.cpio.gz

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
release=$1
out=$2
MODS="virtio_pci 9pnet_virtio 9p overlay virtio_net"

[ -d "/lib/modules/$release" ] || { echo "no /lib/modules/$release" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,modules}
cp /bin/busybox "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod +x "$stage/init"
: >"$stage/modules.order"
# modprobe --show-depends lists each module after its dependencies
# ("builtin NAME" for the ones built into the kernel).
# shellcheck disable=SC2086
modprobe -S "$release" -a --show-depends $MODS | awk '$1 == "insmod" { print $2 }' |
	awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	case "$ko" in
	*.ko.xz) xz -dc "$ko" >"$stage/modules/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" >"$stage/modules/${name%.zst}"; name=${name%.zst} ;;
	*.ko.gz) gzip -dc "$ko" >"$stage/modules/${name%.gz}"; name=${name%.gz} ;;
	*) cp "$ko" "$stage/modules/" ;;
	esac
	echo "$name" >>"$stage/modules.order"
done
(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
