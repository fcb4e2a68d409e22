#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's smoke run of the tracer race (scripts/bench-race.sh) with
# tiny counts, on Debian 6.1 (the kernel LTTng runs on): one round of the
# 1-CPU syscall storm under every tracer, every trace read back, and the
# buffer alone. No timing verdict: each tracer must run and record.
#
# usage: race-smoke.sh OUTDIR
# TAP on stdout.

set -uo pipefail

case ${1:-} in
-h | --help | "")
	sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit
	;;
esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
out=$1
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi
}

mkdir -p "$out"
TRING_BENCH_KERNELS=6.1 ROUNDS=1 WARMUP=0 WORKLOADS=syscall-1cpu SYSCALLS=2000 ALONE=2000 CHECK=1 EXACT=1 RB_HOST=2 RATES=20000 RATE_MS=200 \
	SECTIONS="race lat gen rate sel hb alone" \
	RACE_TIMEOUT=900 "$top/scripts/bench-race.sh" "$out" "$out/race.json" >"$out/race.txt" 2>"$out/race.err"
ok $? "bench-race.sh runs ($out/race.txt)"
f=$out/race-6.1/results/race.txt
ok "$([ -f "$out/race-6.1/results/done" ]; echo $?)" "the race guest finished"
# RB_HOST=2: each trace counted in the guest and again on the host
# (scripts/race-readback.sh, as make bench counts them): the same counts.
handed=$(grep -c ' readback [0-9]*\.[a-z]* ' "$f.guest" 2>/dev/null)
ok "$([ "${handed:-0}" -ge 20 ] && ! grep -q ' readback ' "$f" && ! grep -q '^readback_mismatch' "$f"; echo $?)" \
	"readback: the host counted the ${handed:-0} traces the guest handed over as the guest did"
ok "$([ ! -e "$out/race-6.1/results/traces" ]; echo $?)" "readback: the traces were removed once counted"
# race ROUND WORKLOAD TRACER ns N cpu_ns N events N lost N trace_events N ...
for t in none tring lttng trace-cmd perf; do
	ok "$(grep -qE "^race 1 syscall-1cpu $t ns [1-9][0-9]* " "$f"; echo $?)" "$t: the workload ran and timed itself"
done
for t in tring lttng trace-cmd perf; do
	ev=$(awk -v t="$t" '$1 == "race" && $2 == 1 && $4 == t { print $10 }' "$f")
	tev=$(awk -v t="$t" '$1 == "race" && $2 == 1 && $4 == t { print $14 }' "$f")
	ok "$([ "${ev:-0}" -gt 4000 ] 2>/dev/null; echo $?)" "$t: recorded the storm's 4000 syscall events at least ($ev)"
	# The recorder's own CPU time: some, and less than the guest's life.
	rc=$(awk -v t="$t" '$1 == "race" && $2 == 1 && $4 == t { for (i = 5; i < NF; i++) if ($i == "rec_cpu_ns") print $(i + 1) }' "$f")
	ok "$([ "${rc:-0}" -gt 0 ] && [ "$rc" -lt 600000000000 ]; echo $?)" "$t: the recorder's CPU time is measured (${rc:-none} ns)"
	# Every tracer's count is its trace's.
	ok "$([ "$ev" = "$tev" ]; echo $?)" "$t: the events counted ($ev) are the events its trace holds ($tev)"
	# The same events everywhere: each of the storm's getppid() calls
	# an entry and an exit event in every tracer's trace, no more.
	read -r calls ge gx <<<"$(awk -v t="$t" '$1 == "race" && $2 == 1 && $4 == t {
		for (i = 5; i < NF; i++) if ($i == "getppid_calls") print $(i + 1), $(i + 3), $(i + 4) }' "$f")"
	ok "$([ "${calls:-0}" -gt 0 ] && [ "$ge" = "$calls" ] && [ "$gx" = "$calls" ]; echo $?)" \
		"$t: the storm's ${calls:-?} getppid() calls are ${ge:-?} entry and ${gx:-?} exit events in its trace"
done
ok "$(grep -qE '^race 1 syscall-1cpu tring .* lost 0 trace_events [0-9]+ trace_lost 0 ' "$f"; echo $?)" "tring lost nothing"
# One tracepoint pair: tring's generic events among the tracers.
for t in none tring-generic tring trace-cmd perf; do
	ok "$(grep -qE "^gen 1 syscall-1cpu $t ns [1-9][0-9]* " "$f"; echo $?)" "generic: $t ran the storm"
done
ev=$(awk '$1 == "gen" && $4 == "tring-generic" { print $10 }' "$f")
tev=$(awk '$1 == "gen" && $4 == "tring-generic" { print $14 }' "$f")
ok "$([ "${ev:-0}" -gt 4000 ] 2>/dev/null; echo $?)" "generic: tring recorded the storm's 4000 raw_syscalls events at least ($ev)"
ok "$([ "$ev" = "$tev" ]; echo $?)" "generic: the events tring counted ($ev) are the events its trace holds ($tev)"
ok "$(grep -q '^tring-generic ' "$out/race.txt"; echo $?)" "generic: the table has the generic events' row"
# The highest rate with no loss: every tracer ran the paced source.
for t in tring tring-net lttng trace-cmd perf; do
	ok "$(grep -qE "^rate 1 paced-20000 $t ns [1-9][0-9]* cpu_ns [0-9]+ calls [1-9][0-9]* events [1-9]" "$f"; echo $?)" "rate: $t recorded the paced source"
done
# To the relay on the host: through a tap device where the host can make
# one, else QEMU's user-mode network (bench-race.sh's RACE_NET).
hnet=$(sed -n 's/^HOST_NET=//p' "$out/race-6.1/results/env" 2>/dev/null)
ok "$(grep -qE "^rate 1 paced-20000 tring-host ns [1-9][0-9]* cpu_ns [0-9]+ calls [1-9][0-9]* events [1-9]" "$f"; echo $?)" \
	"rate: tring-host streamed the paced source to the host's relay (network: ${hnet:-none})"
ok "$(grep -q '^no loss to ' "$out/race.txt"; echo $?)" "rate: the table has the no-loss row"
# Streamed to the relay: every event the local run would have, none lost.
nev=$(awk '$1 == "rate" && $2 == 1 && $4 == "tring-net" { print $12 }' "$f")
ntev=$(awk '$1 == "rate" && $2 == 1 && $4 == "tring-net" { print $16 }' "$f")
ok "$([ "${nev:-0}" -gt 0 ] && [ "$nev" = "$ntev" ]; echo $?)" "rate: streamed to lttng-relayd, the relay's trace holds the events tring counted ($nev, $ntev)"
# Choosing what is recorded: every tracer three ways; hackbench beside a storm.
for t in none tring tring-track tring-filter lttng lttng-track lttng-filter trace-cmd trace-cmd-track trace-cmd-filter; do
	ok "$(grep -qE "^sel 1 syscall-1cpu $t ns [1-9][0-9]* " "$f"; echo $?)" "choose: $t ran the storm"
done
ev=$(awk '$1 == "sel" && $4 == "tring" { print $10 }' "$f")
evt=$(awk '$1 == "sel" && $4 == "tring-track" { print $10 }' "$f")
evf=$(awk '$1 == "sel" && $4 == "tring-filter" { print $10 }' "$f")
ok "$([ "${ev:-0}" -ge 4000 ] && [ "${evt:-1}" -lt 1000 ] && [ "${evf:-1}" -lt 1000 ]; echo $?)" \
	"choose: tring recorded the storm's 4000 events ($ev), none tracked or filtered away (the statedump only: ${evt:-none}, ${evf:-none})"
for t in none tring-all tring-storm; do
	ok "$(grep -qE "^hb 1 hackbench $t ns [1-9][0-9]* " "$f"; echo $?)" "busy machine: hackbench timed with $t"
done
ok "$(grep -q '^slowdown with -p over slowdown with all: ' "$out/race.txt"; echo $?)" "busy machine: the table has the ratio"
# -p names the process making the storm's calls: its calls are recorded
# (two events each, at full speed through hackbench's run); and no storm
# outlives its run.
evs=$(awk '$1 == "hb" && $4 == "tring-storm" { for (i = 5; i < NF; i++) if ($i == "events") print $(i + 1) }' "$f")
ok "$([ "${evs:-0}" -ge 10000 ] 2>/dev/null; echo $?)" "busy machine: -p recorded the storm's calls (${evs:-none} events)"
ok "$(grep -qx 'info hb_storms_left 0' "$f"; echo $?)" "busy machine: no storm left running after the part ($(sed -n 's/^info hb_storms_left //p' "$f"))"
for wr in tring_inline_reader0 tring_inline_reader1 tring_reserve_reader0 tring_fill_recorded; do
	ok "$(grep -qE "^alone 1 $wr payload [1-9][0-9]* events [1-9][0-9]* ns [1-9]" "$f"; echo $?)" "the buffer alone: $wr measured"
done
# The ring buffers alone, same layer: LTTng's library and tring's.
for impl in tring_inline lttng_rb; do
	for p in 8 64 256; do
		ok "$(grep -qE "^ring 1 $impl $p ns_per_event [1-9]" "$f"; echo $?)" "the ring buffers alone: $impl, $p bytes"
	done
done
ok "$(grep -qE '^256 +[0-9.]+ \[' "$out/race.txt"; echo $?)" "the ring buffers' table has its rows"
ok "$(grep -q '^syscall-1cpu  *tring ' "$out/race.txt"; echo $?)" "the table has tring's row"
# WARMUP=0: round 1 first, and the table says so.
ok "$(! grep -q '^race 0 ' "$f" && grep -q 'no warm-up round (WARMUP=0)' "$out/race.txt"; echo $?)" \
	"no warm-up round ran (WARMUP=0), and the table says so"
for t in none tring lttng trace-cmd perf; do
	ok "$(grep -qE "^lat 1 syscall-lat $t ns [1-9][0-9]* cpu_ns [0-9]+ p50 [1-9][0-9]* p99 [1-9][0-9]* p999 [1-9]" "$f"; echo $?)" "latency: timed under $t"
done
ok "$(grep -qE '^race 1 syscall-1cpu tring .* rec_rss_kb [1-9][0-9]* ' "$f"; echo $?)" "memory: tring-record's resident size"
ok "$(grep -q 'id="rounds-tring"' "$out/race-6.1.svg" && grep -q 'id="rounds-perf"' "$out/race-6.1.svg"; echo $?)" "the chart has tring's and perf's rounds"
ok "$(grep -qE '^info perf_rate_start 100000000 \(perf_cpu_time_max_percent 0\)' "$f"; echo $?)" "perf ran unthrottled"
ok "$(grep -q '^guest: threads ' "$out/race.txt"; echo $?)" "the table says how the guest ran"
ok "$(python3 -m json.tool "$out/race.json" >/dev/null; echo $?)" "the JSON parses"
# Every recorder at one priority (nice 0), as the table says.
for t in tring lttng trace-cmd perf; do
	ni=$(awk -v t="$t" '$1 == "race" && $4 == t { for (i = 5; i < NF; i++) if ($i == "rec_nice") print $(i + 1) }' "$f")
	ok "$([ "$ni" = 0 ]; echo $?)" "$t: the recorder ran at nice 0 (${ni:-none})"
done
# The instruction counter: each run's two marks, its tag on its line,
# and every tracer's instructions per event in the table and the JSON
# (a number: with these tiny counts its value is noise; insn-test.sh
# checks the counts themselves).
m=$out/race-6.1/results/insn.txt
runs=$(grep -c ' mark [1-9][0-9]*$' "$f")
pairs=$(awk '$1 == "mark" { n[$4]++ } END { for (t in n) if (n[t] == 2) p++; print p + 0 }' "$m" 2>/dev/null)
ok "$([ "$runs" -gt 30 ] && [ "$pairs" = "$runs" ]; echo $?)" "insn: every one of the $runs runs has its two marks ($pairs)"
ok "$(/usr/bin/python3 -c 'import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["race"]
        if r.get("workload") == "syscall-1cpu" and r.get("tracer") in ("tring", "lttng", "trace-cmd", "perf")]
sys.exit(len(rows) != 4 or not all(isinstance(r["instructions_per_event"], float) for r in rows))' "$out/race.json"; echo $?)" \
	"insn: the JSON's race rows carry every tracer's instructions_per_event"
ok "$(grep -qE '^syscall-1cpu +tring +[-0-9.]+ .*\| +-?[0-9][0-9.]* ' "$out/race.txt"; echo $?)" "insn: the cost table has tring's instructions per event"
# A cost below zero, as emulation's noise gives: the same results
# reprinted with tring faster than untraced, round 1 copied as rounds 2
# and 3 (an interval needs three); the JSON must parse, the bound a
# number below 0.
neg=$out/negative
rm -rf "$neg"
mkdir -p "$neg"
cp -r "$out/race-6.1" "$neg/"
awk '$1 == "race" && $2 == 1 && $3 == "syscall-1cpu" && $4 == "tring" { $6 = 1000 }
	{ print } $1 == "race" && $2 == 1 { $2 = 2; print; $2 = 3; print }' \
	"$f" >"$neg/race-6.1/results/race.txt"
RACE_REPRINT=1 TRING_BENCH_KERNELS=6.1 "$top/scripts/bench-race.sh" "$neg" "$neg/race.json" >"$neg/race.out" 2>&1
ok "$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["race"]
ci = [r["ns_per_event_ci95"] for r in rows
      if r.get("workload") == "syscall-1cpu" and r.get("tracer") == "tring"][0]
sys.exit(not ci[0] < 0)' "$neg/race.json"; echo $?)" "a negative cost: the JSON parses, its bound a number below 0"
echo "1..$n"
[ "$fail" = 0 ]
