#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once per machine) the KCSAN/lockdep debug kernel from Debian's
# linux-source-6.1 tarball and print the path of its build tree.
# The result is cached under build/ keyed by the config fragment and the
# source package version, so it is rebuilt only when either changes.
#
# usage: build-debug-kernel.sh [fragment]    (default: debug.config)
#        build-debug-kernel.sh --extract      (only unpack the source, for
#                                              checkpatch and kernel-doc)
#        build-debug-kernel.sh --path [fragment]  (print where the kernel
#                                              is or will be; build nothing)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
extract_only=0
path_only=0
case ${1:-} in
--extract) extract_only=1; shift ;;
--path) path_only=1; shift ;;
esac
frag=${1:-$here/debug.config}
tarball=/usr/src/linux-source-6.1.tar.xz
build=$top/build

[ -f "$tarball" ] || { echo "no $tarball: run scripts/setup.sh" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
src=$build/linux-source-6.1
key=$( (cat "$frag"; echo "$srcver") | sha256sum | cut -c1-12)
name=$(basename "$frag" .config)
out=$build/kernel-$name-$key
if [ "$path_only" = 1 ]; then
	echo "$out"
	exit 0
fi

if [ "$extract_only" = 0 ] && [ -f "$out/.tring-done" ]; then
	echo "$out"
	exit 0
fi

if [ "$(cat "$src/.tring-version" 2>/dev/null)" != "$srcver" ]; then
	echo "extracting linux-source-6.1 $srcver" >&2
	rm -rf "$src"
	mkdir -p "$build"
	tar -C "$build" -xf "$tarball"
	echo "$srcver" >"$src/.tring-version"
fi
[ "$extract_only" = 0 ] || exit 0

echo "building $name kernel in $out (a few minutes, once)" >&2
rm -rf "$out"
mkdir -p "$out"
make -s -C "$src" O="$out" tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
make -s -C "$src" O="$out" olddefconfig >/dev/null

# Every option asked for must have survived olddefconfig.
missing=0
while read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	if ! grep -qx "$line" "$out/.config"; then
		echo "debug kernel config lacks: $line" >&2
		missing=1
	fi
done <"$frag"
[ "$missing" = 0 ] || exit 1

make -s -C "$src" O="$out" -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; exit 1; }
touch "$out/.tring-done"
echo "$out"
