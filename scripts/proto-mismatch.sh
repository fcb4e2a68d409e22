#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tracepoint whose prototype changed must leave its event out, not
# break the build. Builds tring (with -Werror, as always) against KDIR's
# headers twice, into build/proto-mismatch/:
#   plain    the headers as they are: no event left out;
#   changed  the same headers but for a copy of trace/events/timer.h in
#            which hrtimer_expire_entry gained an argument (as
#            hrtimer_start gained `bool was_armed` in a 6.1 stable
#            update), put first on the include path: the build succeeds,
#            the compiler names exactly that event as left out, and the
#            module has exactly that event's left-out marker.
#
# usage: proto-mismatch.sh KDIR      exit 0 when both hold
#
# PROTO_PLAIN_LOG=LOG PROTO_PLAIN_KO=TRING_KO: the plain build is one
# already made against KDIR (make check's modules for its guests): its
# log and its tring.ko are checked instead of building again.

set -u
kdir=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/proto-mismatch
event=hrtimer_expire_entry
fail=0

check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		fail=1
	fi
}

# build NAME [NOSTDINC_FLAGS]: the modules, log in $out/NAME.log
build() {
	rm -rf "$out/$1"
	make -C "$top" -s B="$out/$1" KDIR="$kdir" \
		${2:+KBUILD_EXTRA="NOSTDINC_FLAGS='$2'"} modules >"$out/$1.log" 2>&1
}

# log NAME, ko NAME: a build's log and its tring.ko
log() {
	if [ "$1" = plain ] && [ -n "${PROTO_PLAIN_LOG:-}" ]; then
		echo "$PROTO_PLAIN_LOG"
	else
		echo "$out/$1.log"
	fi
}
ko() {
	if [ "$1" = plain ] && [ -n "${PROTO_PLAIN_KO:-}" ]; then
		echo "$PROTO_PLAIN_KO"
	else
		echo "$out/$1"/mod/*/tring.ko
	fi
}

# left_out NAME: events the compiler said were left out, one a line
left_out() {
	sed -n "s/.*tring: tracepoint .* event \([a-z_0-9]*\) left out.*/\1/p" \
		"$(log "$1")" | sort -u
}

# markers NAME: the left-out markers in the built module
markers() {
	nm "$(ko "$1")" | sed -n 's/.* tring_left_out_//p' | sort -u
}

mkdir -p "$out/include/trace/events"
# The header: in the tree, its source link, or the tree its Makefile includes.
timer=
for d in "$kdir" "$kdir/source" \
	"$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile")"; do
	[ -f "$d/include/trace/events/timer.h" ] &&
		timer=$d/include/trace/events/timer.h && break
done
check "found the kernel's trace/events/timer.h ($timer)" test -f "$timer"
awk -v ev="$event" '
	$0 ~ "^TRACE_EVENT\\(" ev "," { in_ev = 1 }
	in_ev && /TP_PROTO\(/ { sub(/\),?$/, ", bool was_armed),") }
	in_ev && /TP_ARGS\(/ { sub(/\),?$/, ", was_armed),"); in_ev = 0 }
	{ print }' "$timer" >"$out/include/trace/events/timer.h"
check "the copy changes $event's prototype and nothing else" \
	test "$(diff "$timer" "$out/include/trace/events/timer.h" |
		grep -c '^>.*was_armed')" = 2

if [ -n "${PROTO_PLAIN_KO:-}" ]; then
	check "plain headers: the build succeeds ($PROTO_PLAIN_KO)" \
		test -f "$PROTO_PLAIN_KO" -a -f "$PROTO_PLAIN_LOG"
else
	check "plain headers: the build succeeds" build plain
fi
check "plain headers: no event left out" test -z "$(left_out plain)"
check "plain headers: no left-out marker in tring.ko" test -z "$(markers plain)"

check "changed $event: the build succeeds" \
	build changed "-nostdinc -I$out/include"
check "changed $event: the compiler says exactly $event is left out" \
	test "$(left_out changed)" = "$event"
check "changed $event: tring.ko marks exactly $event left out" \
	test "$(markers changed)" = "$event"
[ "$fail" = 0 ] || tail -n 20 "$out"/*.log
exit $fail
