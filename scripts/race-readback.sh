#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tracer race's traces counted on the host, natively, once the guest
# is done (scripts/bench-race.sh calls this): under emulation reading a
# trace back took longer than recording it (babeltrace2 on tring's
# 300,000 events about 10 s a run, perf script 15 to 40 s). The guest
# (RB_HOST, race-recorders.sh's trace_count) copied each trace to
# RESULTS/traces/ID (ID: the run's number and the trace's kind, ctf, tc
# or perf) and wrote "readback ID" on the run's line (and on perf's
# throttle line), its counts "host". This counts every trace with the
# guest's own commands (race-count.sh; the guest runs this machine's
# userland), puts the counts in their places in RESULTS/race.txt (the
# guest's lines kept in race.txt.guest) and removes the traces
# (KEEP_TRACES=1 keeps them). Where the guest counted too (RB_HOST=2,
# make check's smoke run), the two counts must agree: each run where they
# do not is a line "readback_mismatch ID ..." in race.txt and on stderr,
# and the exit status is 1.
#
# usage: race-readback.sh RESULTS

set -uo pipefail

case ${1:-} in
-h | --help | "")
	sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
res=$1
f=$res/race.txt
traces=$res/traces
[ -d "$traces" ] || exit 0
[ -f "$f" ] || { echo "race-readback: no $f" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count_one PATH: "ID EVENTS LOST [THROTTLED]", each trace in a scratch
# directory of its own (two run at once), called through xargs.
# shellcheck disable=SC2317
count_one() {
	local id=${1##*/}
	RC_TMP=$(mktemp -d -p "$tmp")
	export RC_TMP
	case $id in
	*.ctf) echo "$id $(count_ctf "$1")" ;;
	*.tc) echo "$id $(count_tc "$1")" ;;
	*.perf) echo "$id $(count_perf "$1") $(perf_stats "$1" | cut -d' ' -f1)" ;;
	esac
}
# shellcheck disable=SC1091
. "$top/tools/testing/vm/userland/race-count.sh"
export -f count_one count_ctf count_tc count_perf perf_stats
export tmp

find "$traces" -mindepth 1 -maxdepth 1 -print0 |
	xargs -0 -r -n 1 -P "$(nproc)" bash -c 'count_one "$1"' _ >"$tmp/counts"

cp "$f" "$f.guest"
# Each line with "readback ID": its "host" fields get the host's counts
# (trace_events and events: the events; trace_lost and lost: the
# losses; a throttle line's count: perf's THROTTLE records); numbers
# the guest wrote are checked against them. "readback ID" is dropped.
awk -v mm="$tmp/mismatch" '
	FILENAME == ARGV[1] { ev[$1] = $2; lo[$1] = $3; th[$1] = $4; next }
	{
		id = ""
		for (i = 1; i < NF; i++) if ($i == "readback") id = $(i + 1)
		if (id == "") { print; next }
		if (!(id in ev)) { ev[id] = 0; lo[id] = 0; th[id] = 0 }
		line = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "readback") { i++; continue }
			v = $i
			k = i > 1 ? $(i - 1) : ""
			if ($1 == "throttle" && i == 5) v = chk(id, "throttle", v, th[id])
			else if (k == "trace_events" || k == "events") v = chk(id, k, v, ev[id])
			else if (k == "trace_lost" || k == "lost") v = chk(id, k, v, lo[id])
			line = line (i > 1 ? " " : "") v
		}
		print line
	}
	# chk ID KEY GUEST HOST: the host count where the guest left it;
	# a guest count that differs is reported. "events" and "lost" are
	# the recorder'\''s own where the trace was not read back: only
	# their "host" placeholders are filled.
	function chk(id, k, g, h) {
		if (g == "host") return h
		if ((k == "trace_events" || k == "trace_lost" || k == "throttle") && g != h)
			print "readback_mismatch " id " " k " guest " g " host " h >mm
		return g
	}' "$tmp/counts" "$f.guest" >"$f"
rc=0
if [ -s "$tmp/mismatch" ]; then
	cat "$tmp/mismatch" >>"$f"
	sed 's/^/race-readback: /' "$tmp/mismatch" >&2
	rc=1
fi
[ "${KEEP_TRACES:-0}" = 1 ] || rm -rf "$traces"
exit $rc
