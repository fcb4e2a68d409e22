#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, from Debian's own packages, everything tring's build, tests,
# "make run" and "make bench" need on a Debian 12 (bookworm) machine.
# Idempotent: when everything is present it only checks and returns.
# "setup.sh --kernel" installs only what the debug kernels' build needs.
#
# The 6.12 kernel comes from bookworm-backports. The mirror for that suite
# is never written here: it is read from the apt sources the machine
# already has (the URI serving "bookworm"). QEMU comes from there too.

set -euo pipefail

SUITE=bookworm
BPO=${SUITE}-backports
BPO_LIST=/etc/apt/sources.list.d/tring-${BPO}.sources

PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev xz-utils rsync
	kmod cpio busybox-static
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	linux-kbuild-6.1 sparse babeltrace2 valgrind
	python3-lttnganalyses python3-numpy python3-matplotlib
	kernelshark libkshark-dev libbabeltrace2-dev pkg-config libjson-c-dev
	libtracecmd-dev libtracefs-dev libtraceevent-dev
	xvfb xauth x11-utils x11-apps netpbm python3-bt2 chromium-headless-shell
	libglib2.0-dev
)

# What a debug kernel's build needs (tools/testing/vm/build-debug-kernel.sh):
# "setup.sh --kernel" installs these alone, so that make check can build
# the debug kernels while the rest installs.
KPKGS=(build-essential bc bison flex libelf-dev libssl-dev xz-utils linux-source-6.1)

log() { echo "setup: $*" >&2; }

need_root() {
	if [ "$(id -u)" != 0 ]; then
		log "must run as root (it installs Debian packages)"
		exit 1
	fi
}

# Print the URI(s) of the main archive serving $SUITE, from deb822 files
# and from one-line sources.list entries.
archive_uris() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$SUITE" '
			function flush() {
				if (uris != "" && has && main) print uris
				uris = ""; has = 0; main = 0
			}
			/^[[:space:]]*$/ { flush(); next }
			/^URIs:/ { uris = $0; sub(/^URIs:[[:space:]]*/, "", uris) }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
			/^Components:/ { for (i = 2; i <= NF; i++) if ($i == "main") main = 1 }
			END { flush() }
		' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$SUITE" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) == suite) print $i
			}
		' "$f"
	done
}

add_backports() {
	local uris
	[ -f "$BPO_LIST" ] && return 0
	if grep -rqs "^[^#]*${BPO}" /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	uris=$(archive_uris | tr ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' ')
	if [ -z "$uris" ]; then
		log "no apt source serves '$SUITE'; cannot derive the $BPO mirror"
		exit 1
	fi
	log "adding $BPO from the existing sources: $uris"
	cat >"$BPO_LIST" <<SRC
Types: deb
URIs: $uris
Suites: $BPO
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	APT_UPDATED=0
}

APT_UPDATED=0
apt_update() {
	if [ "$APT_UPDATED" = 0 ]; then
		apt-get update -qq
		APT_UPDATED=1
	fi
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || echo "$p"
	done
}

# The versioned 6.12 image and headers packages the backports
# meta-packages point at; installed by name so 6.1 stays installed too.
bpo_kernel_pkgs() {
	local img
	img=$(apt-cache show "linux-image-amd64/$BPO" 2>/dev/null ||
		apt-cache show -o APT::Default-Release="$BPO" linux-image-amd64)
	img=$(echo "$img" | awk '/^Depends:/ { print; exit }' |
		grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -n 1)
	[ -n "$img" ] || return 1
	echo "$img" "${img/linux-image-/linux-headers-}"
}

bpo_installed() {
	ls -d /usr/src/linux-headers-6.1[2-9]*-amd64 >/dev/null 2>&1 &&
		ls /boot/vmlinuz-6.1[2-9]*-amd64 >/dev/null 2>&1
}

# QEMU from $BPO (10.x): bookworm's 7.2 wedges a vCPU on code another
# vCPU patches under multi-threaded TCG (tracepoint toggling). Installs
# it, or upgrades a 7.2 already installed.
qemu_from_backports() {
	local v
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
	[ -n "$v" ] && dpkg --compare-versions "$v" ge 1:8 && return 0
	apt_update
	log "installing qemu-system-x86 from $BPO (installed: ${v:-none})"
	apt-get install -y -qq --no-install-recommends -t "$BPO" \
		qemu-system-x86 >/dev/null
}

# --- peers (issue 10): LTTng, trace-cmd, perf, rt-tests, and dkms ----------
# The tracers tring is compared with, from Debian's packages, for the guests
# with a real userland (tools/testing/vm/userland/), and dkms for "make
# install". A peer that cannot be installed is reported, never fatal.
#
# linux-perf is one package per suite; the one from bookworm-backports
# (6.12) is used: perf runs on older kernels, so it serves both guests,
# and installing the 6.12 kernel with -t bookworm-backports pulls it in.
#
# lttng-modules-dkms 2.13.9 is the only lttng-modules Debian has: it does
# not support 6.12, and it builds for Debian's current 6.1 kernels only
# with our patch (scripts/peers/lttng-modules-hrtimer-was-armed.patch).
# Its package's own build for every kernel would fail and fail apt, so
# it is installed with DKMS autoinstall off, then built here for 6.1;
# /etc/dkms/lttng-modules.conf restricts it to 6.1 so that later kernel
# installs skip it instead of failing.
PEER_PKGS=(dkms lttng-tools trace-cmd rt-tests)
LTTNG_SERIES='^6\.1\.'
LTTNG_PATCH=$(cd "$(dirname "$0")" && pwd)/peers/lttng-modules-hrtimer-was-armed.patch

peer_lttng_modules() {
	local v src k hdr flag=/etc/dkms/no-autoinstall made=0
	if [ -n "$(missing_pkgs lttng-modules-dkms)" ]; then
		apt_update
		[ -e "$flag" ] || { touch "$flag"; made=1; }
		log "installing lttng-modules-dkms (DKMS autoinstall off)"
		apt-get install -y -qq --no-install-recommends lttng-modules-dkms >/dev/null
		local rc=$?
		[ "$made" = 0 ] || rm -f "$flag"
		[ "$rc" = 0 ] || { log "peer missing: LTTng: apt-get install lttng-modules-dkms failed"; return 1; }
	fi
	printf '%s\n' '# Written by tring scripts/setup.sh: lttng-modules 2.13 builds for 6.1 only.' \
		"BUILD_EXCLUSIVE_KERNEL='$LTTNG_SERIES'" >/etc/dkms/lttng-modules.conf
	v=$(dpkg-query -W -f='${Version}' lttng-modules-dkms | sed 's/-[^-]*$//')
	src=/usr/src/lttng-modules-$v
	[ -d "/var/lib/dkms/lttng-modules/$v" ] || dkms add -m lttng-modules -v "$v" >/dev/null ||
		{ log "peer missing: LTTng: dkms add lttng-modules/$v failed"; return 1; }
	for k in $(ls /lib/modules); do
		[ -e "/lib/modules/$k/build/Makefile" ] || continue
		if ! [[ $k =~ $LTTNG_SERIES ]]; then
			log "LTTng: lttng-modules $v does not support Linux $k (Debian has no newer): LTTng runs on the 6.1 guests only"
			continue
		fi
		dkms status -m lttng-modules -v "$v" -k "$k" | grep -q ': installed' && continue
		hdr=/lib/modules/$k/source/include/trace/events/timer.h
		if grep -A2 'TRACE_EVENT(hrtimer_start' "$hdr" 2>/dev/null | grep -q 'bool was_armed' &&
			! grep -q was_armed "$src/include/instrumentation/events/timer.h"; then
			log "LTTng: applying tring's patch $(basename "$LTTNG_PATCH") to $src"
			patch -s -p1 -d "$src" <"$LTTNG_PATCH" ||
				{ log "peer missing: LTTng: our patch does not apply to $src"; return 1; }
		fi
		log "LTTng: dkms build + install lttng-modules/$v for $k (about 2 minutes)"
		if ! dkms build -m lttng-modules -v "$v" -k "$k" >/dev/null ||
			! dkms install -m lttng-modules -v "$v" -k "$k" >/dev/null; then
			log "peer missing: LTTng on $k: dkms build of lttng-modules/$v failed (/var/lib/dkms/lttng-modules/$v/build/make.log)"
			return 1
		fi
	done
}

peers() {
	local miss rc=0
	miss=$(missing_pkgs "${PEER_PKGS[@]}")
	if [ -n "$miss" ]; then
		apt_update
		log "installing peers:" $miss
		apt-get install -y -qq --no-install-recommends $miss >/dev/null ||
			{ log "peers missing: apt-get install $miss failed"; rc=1; }
	fi
	if [ -n "$(missing_pkgs linux-perf)" ]; then
		apt_update
		log "installing linux-perf from $BPO"
		apt-get install -y -qq --no-install-recommends -t "$BPO" linux-perf >/dev/null ||
			{ log "peer missing: perf: apt-get install -t $BPO linux-perf failed"; rc=1; }
	fi
	peer_lttng_modules || rc=1
	return $rc
}
# --- end of peers -------------------------------------------------------------

# install_kernel_deps: KPKGS alone (--kernel).
install_kernel_deps() {
	local miss

	miss=$(missing_pkgs "${KPKGS[@]}")
	[ -n "$miss" ] || return 0
	apt_update
	log "installing first, for the debug kernels:" $miss
	apt-get install -y -qq --no-install-recommends $miss >/dev/null
}

main() {
	local miss bpo
	need_root
	export DEBIAN_FRONTEND=noninteractive
	if [ "${1:-}" = --kernel ]; then
		install_kernel_deps
		return
	fi
	add_backports
	miss=$(missing_pkgs "${PKGS[@]}")
	if [ -n "$miss" ]; then
		apt_update
		log "installing:" $miss
		apt-get install -y -qq --no-install-recommends $miss >/dev/null
	fi
	if ! bpo_installed; then
		apt_update
		bpo=$(bpo_kernel_pkgs) || { log "no 6.12 kernel in $BPO"; exit 1; }
		log "installing from $BPO:" $bpo
		apt-get install -y -qq --no-install-recommends -t "$BPO" $bpo >/dev/null
	fi
	qemu_from_backports
	peers || log "some peers are missing (above): their smoke tests will fail"
	log "ok"
}

main "$@"
