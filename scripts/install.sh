#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall.
#
#   install    the module sources to /usr/src/tring-<version> and, through
#              DKMS, tring.ko (with tring_test.ko and tring_bench.ko) for
#              every installed kernel with headers, into
#              /lib/modules/<kernel>/updates/dkms/ (then "modprobe tring");
#              tring-record to PREFIX/bin and its man page, generated from
#              its --help, to PREFIX/share/man/man1; tring-report html's
#              program and KernelShark's input plugin (where it was built)
#              to PREFIX/lib/tring/.
#   uninstall  removes all of it: DKMS's builds for every kernel, the
#              sources, the tools, the man page, the plugin.
#
# PREFIX defaults to /usr/local. With DESTDIR (staging, packaging) the
# files go under DESTDIR and DKMS is not run: run "dkms install
# tring/<version>" on the target. Needs root and the Debian package dkms
# (scripts/setup.sh installs it). The tools must be built ("make tools").
#
# usage: install.sh install|uninstall

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
NAME=tring
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
SRC=$DESTDIR/usr/src/$NAME-$VERSION
BIN=$DESTDIR$PREFIX/bin
MAN1=$DESTDIR$PREFIX/share/man/man1
# KernelShark's input plugin (built where libkshark-dev is installed).
LIBDIR=$DESTDIR$PREFIX/lib/tring
KS_PLUGIN=tring-ks.so
TOOLS=(tring-record)
# Tools whose --help is their documentation (no man page).
HELP_TOOLS=(tring-report)
# What DKMS builds from: dkms.conf, Kbuild and the module sources.
SOURCES=(dkms.conf Kbuild include kernel/trace)

say() { echo "install: $*" >&2; }
die() { say "$*"; exit 1; }

# Kernels with headers: DKMS can build for them.
kernels() {
	local d
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done
}

need_dkms() {
	[ "$(id -u)" = 0 ] || die "must run as root (DKMS installs into /lib/modules)"
	command -v dkms >/dev/null ||
		die "dkms is not installed: apt-get install dkms (scripts/setup.sh does)"
}

# Every version of tring DKMS knows (normally one): the directories in
# its tree (the kernel-* entries there are symlinks into them).
dkms_versions() {
	find /var/lib/dkms/$NAME -mindepth 1 -maxdepth 1 -type d \
		! -name original_module -printf '%f\n' 2>/dev/null || true
}

do_uninstall() {
	local v t
	if [ -z "$DESTDIR" ] && command -v dkms >/dev/null; then
		for v in $(dkms_versions); do
			say "dkms remove $NAME/$v --all"
			dkms remove -m $NAME -v "$v" --all >"$B/dkms.log" 2>&1 ||
				{ cat "$B/dkms.log" >&2; die "dkms remove $NAME/$v failed"; }
			rm -f "$B/dkms.log"
		done
		rmdir /var/lib/dkms/$NAME 2>/dev/null || true
	fi
	rm -rf "$DESTDIR/usr/src/$NAME"-[0-9]*
	for t in "${TOOLS[@]}"; do
		rm -f "$BIN/$t" "$MAN1/$t.1"
	done
	for t in "${HELP_TOOLS[@]}"; do
		rm -f "$BIN/$t"
	done
	rm -f "$LIBDIR/$KS_PLUGIN" "$LIBDIR/tring-report-html"
	rmdir "$LIBDIR" 2>/dev/null || true
	# Only when empty: these may have existed before the install.
	rmdir "$MAN1" 2>/dev/null || true
}

do_install() {
	local k t built=0 failed=()
	for t in "${TOOLS[@]}" "${HELP_TOOLS[@]}"; do
		[ -x "$B/tools/$t" ] || die "$B/tools/$t is missing: run make tools"
	done
	[ -n "$DESTDIR" ] || need_dkms
	# A second install replaces the first (same version, newer sources).
	do_uninstall

	say "sources to $SRC"
	mkdir -p "$SRC"
	(cd "$top" && tar -cf - "${SOURCES[@]}") | tar -C "$SRC" -xf -
	install -d "$BIN" "$MAN1"
	for t in "${TOOLS[@]}"; do
		install -m 0755 "$B/tools/$t" "$BIN/$t"
		install -m 0644 "$B/tools/$t.1" "$MAN1/$t.1"
		say "$BIN/$t, $MAN1/$t.1"
	done
	for t in "${HELP_TOOLS[@]}"; do
		install -m 0755 "$B/tools/$t" "$BIN/$t"
		say "$BIN/$t"
	done
	# "tring-report html" runs it (python3-bt2, python3-matplotlib).
	install -D -m 0755 "$top/tools/tring/tring-report-html" "$LIBDIR/tring-report-html"
	say "$LIBDIR/tring-report-html (tring-report html DIR)"
	if [ -f "$B/kernelshark/$KS_PLUGIN" ]; then
		install -D -m 0644 "$B/kernelshark/$KS_PLUGIN" "$LIBDIR/$KS_PLUGIN"
		say "$LIBDIR/$KS_PLUGIN: kernelshark -p $PREFIX/lib/tring/$KS_PLUGIN DIR/kernel/metadata"
	else
		say "KernelShark's plugin not built (libkshark-dev, libbabeltrace2-dev): not installed"
	fi
	if [ -n "$DESTDIR" ]; then
		say "DESTDIR set: DKMS not run; on the target: dkms install $NAME/$VERSION"
		return 0
	fi

	dkms add -m $NAME -v "$VERSION" >/dev/null || die "dkms add $NAME/$VERSION failed"
	for k in $(kernels); do
		say "dkms build + install $NAME/$VERSION for $k"
		# DKMS's own chatter (and readelf's warnings on 6.12) only on failure.
		if dkms build -m $NAME -v "$VERSION" -k "$k" >"$B/dkms.log" 2>&1 &&
			dkms install -m $NAME -v "$VERSION" -k "$k" >>"$B/dkms.log" 2>&1; then
			built=$((built + 1))
		else
			failed+=("$k")
			cat "$B/dkms.log" >&2
			say "FAILED for $k: see /var/lib/dkms/$NAME/$VERSION/build/make.log"
		fi
	done
	rm -f "$B/dkms.log"
	[ "$built" -gt 0 ] || die "no kernel with headers to build for (install linux-headers-<version>)"
	dkms status -m $NAME -v "$VERSION" >&2
	[ "${#failed[@]}" = 0 ] || die "DKMS build failed for: ${failed[*]}"
	say "done: modprobe tring; tring-record -o DIR"
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall; say "removed" ;;
*) die "usage: $0 install|uninstall" ;;
esac
