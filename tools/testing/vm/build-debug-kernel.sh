#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once per machine) a debug kernel from Debian's linux-source-6.1
# tarball and print the path of its build tree.
#
# The source and the kernels are kept in a cache outside the clone
# ($TRING_KCACHE, by default /var/cache/tring), so that every clone on
# the machine (CI's fresh one included) finds them built. A kernel is
# keyed by its config fragment, the source package's version and the
# compiler's version: a change of any of them builds a new one. Where
# the cache cannot be written, everything goes to the clone's build/ as
# before. An flock on the cache serialises builds from several clones.
#
# usage: build-debug-kernel.sh [fragment]    (default: debug.config)
#        build-debug-kernel.sh --extract      (only unpack the source, for
#                                              checkpatch and kernel-doc)
#        build-debug-kernel.sh --path [fragment]  (print where the kernel
#                                              is or will be; build nothing)
#        build-debug-kernel.sh --src          (print where the source is
#                                              or will be unpacked)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
mode=build
case ${1:-} in
--extract) mode=extract; shift ;;
--path) mode=path; shift ;;
--src) mode=src; shift ;;
esac
frag=${1:-$here/debug.config}
tarball=/usr/src/linux-source-6.1.tar.xz

# cache_dir: the shared cache if it can be written, else build/.
cache_dir() {
	local c=${TRING_KCACHE:-/var/cache/tring}

	if mkdir -p "$c" 2>/dev/null && [ -w "$c" ]; then
		echo "$c"
	else
		echo "$top/build"
	fi
}
build=$(cache_dir)
src=$build/linux-source-6.1
if [ "$mode" = src ]; then
	echo "$src"
	exit 0
fi

[ -f "$tarball" ] || { echo "no $tarball: run scripts/setup.sh" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (cat "$frag"; echo "$srcver"; gcc --version | head -n 1) |
	sha256sum | cut -c1-12)
name=$(basename "$frag" .config)
out=$build/kernel-$name-$key
if [ "$mode" = path ]; then
	echo "$out"
	exit 0
fi

if [ "$mode" = build ] && [ -f "$out/.tring-done" ]; then
	echo "$out"
	exit 0
fi

if [ "$mode" = extract ] &&
	[ "$(cat "$src/.tring-version" 2>/dev/null)" = "$srcver" ]; then
	exit 0
fi
mkdir -p "$build"
exec 9>"$build/.tring-lock"
flock 9
if [ "$(cat "$src/.tring-version" 2>/dev/null)" != "$srcver" ]; then
	echo "extracting linux-source-6.1 $srcver into $build" >&2
	rm -rf "$src"
	tar -C "$build" -xf "$tarball"
	echo "$srcver" >"$src/.tring-version"
fi
[ "$mode" = build ] || exit 0
# Another clone may have built it while this one waited for the lock.
if [ -f "$out/.tring-done" ]; then
	echo "$out"
	exit 0
fi

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
