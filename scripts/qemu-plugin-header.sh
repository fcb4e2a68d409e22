#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The directory holding qemu-plugin.h, the plugin API header of the QEMU
# installed here (Debian ships it in QEMU's source only): Debian's
# source of that version, fetched once with apt-get source through a
# private apt configuration whose deb-src lines are read from the
# machine's own apt sources (no mirror is written here, nothing of the
# system's apt setup changes), and only the header kept, in the cache
# beside the debug kernels ($TRING_KCACHE, else /var/cache/tring; the
# clone's build/ if that cannot be written).
#
# usage: qemu-plugin-header.sh     (prints the directory)

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	{ echo "qemu-plugin-header: qemu-system-x86 is not installed" >&2; exit 1; }
upstream=${ver#*:}
upstream=${upstream%%+*}
upstream=${upstream%%-*}
cache=${TRING_KCACHE:-/var/cache/tring}
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$top/build
dir=$cache/qemu-plugin-$upstream
if [ -f "$dir/qemu-plugin.h" ]; then
	echo "$dir"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# deb-src for every suite and URI the machine's deb sources name.
{
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^[[:space:]]*$/ { if (u && s) print u "|" s; u = s = "" }
			/^URIs:/ { u = $2 } /^Suites:/ { $1 = ""; s = $0 }
			END { if (u && s) print u "|" s }' "$f"
	done
	# (A missing sources.list is not an error.)
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i "|" $(i + 1) }' ||
		true
} | sort -u | while IFS='|' read -r uri suites; do
	for s in $suites; do
		echo "deb-src $uri $s main"
	done
done >"$work/sources.list"
[ -s "$work/sources.list" ] || { echo "qemu-plugin-header: no apt source to fetch from" >&2; exit 1; }
mkdir -p "$work/lists/partial"
apt_o=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
apt-get "${apt_o[@]}" update >"$work/apt.log" 2>&1 || true
# The .dsc of a backport may be missing from a mirror; the upstream
# tarball, which holds the header, is all that is needed.
(cd "$work" && apt-get "${apt_o[@]}" source --download-only "qemu=$ver" >>"$work/apt.log" 2>&1) || true
tarball=$(ls "$work"/qemu_"$upstream"*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { tail -n 5 "$work/apt.log" >&2; echo "qemu-plugin-header: QEMU $ver's source not found" >&2; exit 1; }
tar -C "$work" -xf "$tarball" --wildcards '*/include/qemu/qemu-plugin.h'
mkdir -p "$dir"
cp "$work"/*/include/qemu/qemu-plugin.h "$dir/"
echo "$dir"
