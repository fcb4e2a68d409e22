# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# How the tracer race counts a trace's events: sourced by the race's
# guest (race-recorders.sh, counting in the guest) and by the host
# (scripts/race-readback.sh, counting the traces the guest handed over,
# natively, once the guest is done). The same commands on both sides:
# the guest runs the host's Debian userland. Each prints "EVENTS LOST":
# the events the trace holds and the losses it records. RC_TMP: where
# their scratch files go (default /tmp).

# count_ctf DIR: a CTF trace (tring's, LTTng's) as babeltrace2 reads it;
# tring's padding and no-op records are not events; its losses are the
# discarded-events notices.
count_ctf() {
	local n err=${RC_TMP:-/tmp}/bt.err
	n=$(babeltrace2 "$1" 2>"$err" | grep -cvE ' tring_padding: | tring_nop: ')
	echo "$n $(sed -n 's/.*discarded \([0-9]*\) events.*/\1/p' "$err" | awk '{ s += $1 } END { print s + 0 }')"
}

# count_tc FILE: trace-cmd's trace.dat as trace-cmd report prints it;
# losses: its "EVENTS DROPPED" and "LOST EVENTS" markers.
count_tc() {
	local txt=${RC_TMP:-/tmp}/tc.txt
	trace-cmd report -i "$1" >"$txt" 2>/dev/null
	echo "$(grep -cE '^ +.+\[[0-9]+\] ' "$txt")" \
		"$(sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\].*/\1/p; s/.*LOST \([0-9]*\) EVENTS.*/\1/p' "$txt" |
			awk '{ s += $1 } END { print s + 0 }')"
	rm -f "$txt"
}

# count_perf FILE [GETPPID]: perf.data's samples, a line each of perf
# script (20 times as fast as perf report -D under emulation), counted
# as they are printed (a ping-pong round's output would fill the guest's
# tmpfs); losses: its PERF_RECORD_LOST records' counts. GETPPID: a file
# that gets the storm's getppid() samples (the smoke run's exact count).
count_perf() {
	perf script --ns --show-lost-events -F comm,tid,time,event -i "$1" 2>/dev/null |
		awk -v g="${2:-/dev/null}" '
			/ PERF_RECORD_LOST / { for (i = 1; i <= NF; i++) if ($i == "lost") l += $(i + 1); next }
			{ n++ } $1 == "storm" && /_getppid/ { print >g }
			END { print n + 0, l + 0 }'
}

# perf_stats FILE: "THROTTLED SAMPLES LOST_RECORDS" from perf report's
# statistics: THROTTLE records (the kernel stopped sampling an event for
# the rest of a tick, kernel.perf_event_max_sample_rate; what it did not
# sample is not counted as lost), samples, and LOST and LOST_SAMPLES
# records; the first block is the aggregate (per-event blocks repeat the
# counts after it).
perf_stats() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		$2 != "events:" { next }
		$1 == "THROTTLE" && t == "" { t = $3 }
		$1 == "SAMPLE" && s == "" { s = $3 }
		$1 ~ /^LOST(_SAMPLES)?$/ && !seen[$1]++ { l += $3 }
		END { print t + 0, s + 0, l + 0 }'
}
