#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, part 2: the whole pipeline (tracepoint probe, buffer,
# recorder writing to tmpfs) of tring against LTTng, trace-cmd and perf,
# side by side in one guest run per Debian kernel (6.1, 6.12), on the
# host's own Debian userland (tools/testing/vm/userland/run-guest.sh and
# bench-race.sh). Nothing is installed on the host: the guest loads the
# modules this tree built and runs its tring-record.
#
# usage: bench-race.sh OUTDIR [JSONFILE]
# Prints the tables; appends one JSON object per kernel to JSONFILE.
# Environment: TRING_BENCH_KERNELS (default "6.1 6.12"); ROUNDS, WARMUP, RATE_ROUNDS, BUFKB,
# SUBBUFKB, SYSCALLS, PINGPONG, HB_GROUPS, HB_LOOPS, FORKS, ALONE, CHECK,
# EXACT, RB_HOST (1, the default: every trace is counted here, natively,
# once the guest is done: scripts/race-readback.sh; 0: in the guest;
# 2: both, checked), SECTIONS (all parts; the race alone when WORKLOADS is set),
# TRACERS, WORKLOADS, GEN_TRACERS, RATES, RATE_MS, RATE_BUFKB, TRING_OPTS, TRING_WRAP (see
# tools/testing/vm/userland/bench-race.sh); RACE_TIMEOUT (s, default 3600);
# RACE_FULL=1 runs every part on every kernel (by default kernels other
# than 6.1 run the race's syscall and ping-pong storms and the latency);
# RACE_REPRINT=1 prints the tables of the results already in OUTDIR
# without booting a guest; INSN=0 runs QEMU without the instruction
# counter (tools/testing/insn; by default every run's guest instructions
# are counted and the cost table gives them beside the times);
# RACE_NET, the rate part's network to the relay on the host: tap (the
# default: a tap device, the host kernel's stack, falling back to user
# where the host cannot make one) or user (QEMU's user-mode network).

set -uo pipefail

case ${1:-} in
-h | --help | "")
	sed -n '3,29p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
out=$1
json=${2:-}
kernels=${TRING_BENCH_KERNELS:-6.1 6.12}
say() { echo "bench: $*" >&2; }
json_rows=()
# What the caller narrowed, kept: each kernel's run starts from it.
sections0=${SECTIONS:-}
RB_HOST=${RB_HOST:-1}
workloads0=${WORKLOADS:-}

make -C "$top" -s tools >/dev/null
make -C "$top/tools/testing/bench" -s >/dev/null
# The instruction counter (tools/testing/insn): QEMU counts every vCPU's
# instructions, and the storm marks each run's start and end.
insn=${INSN:-1}
mkdir -p "$out"
if [ "$insn" = 1 ] && ! make -C "$top/tools/testing/insn" -s O="$B/insn" >"$out/insn-build.log" 2>&1; then
	say "the instruction counter did not build ($out/insn-build.log): times only"
	insn=0
fi

# median, ci95: the shared statistics
. "$top/scripts/stats.sh"

# col FILE WORKLOAD TRACER KEY: the values of KEY, one per round (round
# 0, the warm-up, left out)
col() {
	awk -v w="$2" -v t="$3" -v k="$4" '$1 == "race" && $2 != "0" && $3 == w && $4 == t {
		for (i = 5; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

# nsev FILE WORKLOAD TRACER: per round, the tracer's cost per event of
# the workload, in ns: (time traced - the same round's untraced time) /
# the workload's events. One count for every tracer of the round: the
# smallest event count among the round's lossless traces (the
# workload's own events and the least of any recorder's activity:
# trace-cmd and perf also record their readers' many system calls, and
# dividing by those would make a noisier recorder look cheaper). Rounds
# where the tracer lost events (a dropped event costs less than a
# recorded one) or perf was throttled are left out, printed "x".
nsev() {
	awk -v w="$2" -v t="$3" '
		$1 == "throttle" && $2 == "race" && $4 == w && $5 > 0 { thr[$3] = 1 }
		$1 == "race" && $2 != "0" && $2 != "-" && $3 == w {
			for (i = 5; i < NF; i++) {
				if ($i == "ns") ns[$4, $2] = $(i + 1)
				if ($i == "events") ev[$4, $2] = $(i + 1)
				if ($i == "lost" || $i == "trace_lost") if ($(i + 1) + 0 > 0) bad[$4, $2] = 1
			}
			rounds[$2] = 1; tr[$4] = 1 }
		END { for (r in rounds) {
			wl = 0
			for (u in tr) if (u != "none" && ev[u, r] > 0 && !bad[u, r] && (wl == 0 || ev[u, r] < wl)) wl = ev[u, r]
			if (ns["none", r] <= 0 || ev[t, r] <= 0 || wl == 0) continue
			if (bad[t, r] || (t == "perf" && thr[r])) { print "x"; continue }
			printf "%.1f\n", (ns[t, r] - ns["none", r]) / wl } }' "$1"
}

# slow FILE WORKLOAD TRACER: the tracer's slowdown over the baseline (%)
# per round, each against the same round's untraced run
slow() {
	awk -v w="$2" -v t="$3" '$1 == "race" && $2 != "0" && $3 == w {
		for (i = 5; i < NF; i++) if ($i == "ns") ns[$4, $2] = $(i + 1)
		rounds[$2] = 1 }
		END { for (r in rounds) if (ns["none", r] > 0 && ns[t, r] > 0)
			printf "%s %.1f\n", r, (ns[t, r] / ns["none", r] - 1) * 100 }' "$1" | sort -n
}

# bytes_per_event FILE TRACER WORKLOAD: the least-squares slope of the
# output size over the event count, over the workload's runs (NumPy);
# "-" when the counts do not vary enough (under 10% apart) to fit one.
bytes_per_event() {
	awk -v w="$3" -v t="$2" '$1 == "race" && $2 != "0" && $3 == w && $4 == t {
			for (i = 5; i < NF; i++) { if ($i == "events") x = $(i + 1); if ($i == "bytes") y = $(i + 1) }
			if (x > 0) print x, y }' "$1" |	# x 0: its trace could not be read
		/usr/bin/python3 "$top/scripts/race-stats.py" slope
}

# chart FILE SVG TITLE: per workload and tracer, each round's ns/ev
# (dots), the median (a red bar) and the interval (a grey line: 95% bootstrap, or the range under 7 rounds)
# (Matplotlib).
chart() {
	local f=$1 w t v
	for w in $(awk '$1 == "race" { print $3 }' "$f" | awk '!s[$0]++'); do
		for t in tring lttng trace-cmd perf; do
			v=$(nsev "$f" "$w" "$t" | grep -v x | tr '\n' ' ')
			[ -n "$v" ] || continue
			echo "$w|$t|$v|$(echo "$v" | tr ' ' '\n' | grep . | median)|$(echo "$v" | tr ' ' '\n' | grep . | ci95)"
		done
	done | /usr/bin/python3 "$top/scripts/race-stats.py" chart "$2" "$3"
}

# cost_table: each run's cost per event in time and in guest
# instructions (scripts/race_cost.py), beside each other; its rows to
# $dir/cost.json for the JSON.
cost_table() {
	local marks=$dir/results/insn.txt
	echo
	if [ -s "$marks" ]; then
		echo "Cost per event, time and instructions. insn: the guest's instructions QEMU executed (its TCG plugin,"
		echo "tools/testing/insn, counting every vCPU's kernel and user instructions) between the storm's two"
		echo "marks, exact up to how the vCPUs interleave; ns: the storm's own clock over the same span."
	else
		marks=
		echo "Cost per event in time (no instruction counts: INSN=0, or the counter did not build)."
	fi
	/usr/bin/python3 "$top/scripts/race_cost.py" --explain
	/usr/bin/python3 "$top/scripts/race_cost.py" "$f" ${marks:+"$marks"} --json "$dir/cost.json"
}

# ring_table: the ring buffers alone, same layer (the "ring" rows of $f)
ring_table() {
	grep -q '^ring [0-9]' "$f" || { grep '^ring - ' "$f" | sed 's/^ring - - \([^ ]*\) unsupported /\1: not run: /'; return 0; }
	echo
	echo "The ring buffers alone, same layer: LTTng's ring-buffer library (lttng-modules $(inf lttng | awk '{ print $3 }'),"
	echo "a minimal client, kernel/trace/tring_bench_lttng.c, with LTTng's kernel-channel settings) against"
	echo "trace_write_inline(): the same record (4-byte header, the payload), the same clock, the same loop"
	echo "in a kthread on CPU 0 ($(inf alone) events, median of 5 repetitions), overwrite mode, 1 MiB"
	echo "per CPU in 64-KiB sub-buffers, no reader. ns/event: median of rounds [interval: 95% bootstrap with 7 rounds or more, else the range];"
	echo "tring/lttng: the ratio within each round, median [interval]. Target: at most 0.7."
	printf '%-8s %22s %22s %22s\n' payload 'tring ns/event' 'lttng_rb ns/event' 'tring/lttng'
	local p tv lv rv
	for p in 8 64 256; do
		tv=$(awk -v p=$p '$1 == "ring" && $3 == "tring_inline" && $4 == p { print $6 }' "$f")
		lv=$(awk -v p=$p '$1 == "ring" && $3 == "lttng_rb" && $4 == p { print $6 }' "$f")
		rv=$(awk -v p=$p '$1 == "ring" && $4 == p { v[$3, $2] = $6; r[$2] = 1 }
			END { for (i in r) if (v["lttng_rb", i] > 0 && v["tring_inline", i] != "") printf "%.3f\n", v["tring_inline", i] / v["lttng_rb", i] }' "$f")
		printf '%-8s %22s %22s %22s\n' $p \
			"$(echo "$tv" | median) [$(echo "$tv" | ci95 | tr ' ' ,)]" \
			"$(echo "$lv" | median) [$(echo "$lv" | ci95 | tr ' ' ,)]" \
			"$(echo "$rv" | median | awk '{ printf "%.2f", $1 }') [$(echo "$rv" | ci95 2 | tr ' ' ,)]"
		[ -z "$json" ] || json_rows+=("$(jrow ring_alone:n="$p" tring_ns:n="$(echo "$tv" | median)" \
			lttng_rb_ns:n="$(echo "$lv" | median)" ratio:n="$(echo "$rv" | median)")")
	done
}

# The rate part streams to an lttng-relayd on the host too (tring-host),
# writing to tmpfs as the guest's tracers do: on 10.0.2.2:HRP, the host's
# end of a tap device (RACE_NET=tap), or on 127.0.0.1:HRP, which QEMU's
# user-mode network takes the guest's 10.0.2.2 to (RACE_NET=user).
HRP=${RACE_RELAY_PORT:-16342}
relay_dir=/dev/shm/tring-bench-relay.$$
RACE_NET=${RACE_NET:-tap}
tap_dev=tring-bench$$
tap_dev=${tap_dev:0:15}
# rate_runs: whether this kernel's guest runs the rate part (its
# defaults: every part, or the race alone when WORKLOADS is set).
rate_runs() {
	case " $SECTIONS " in
	*" rate "*) return 0 ;;
	"  ") [ -z "$WORKLOADS" ] ;;
	*) return 1 ;;
	esac
}

# host_net_up: for a guest that runs the rate part, the relay on the host
# and the guest's way to it (RACE_NET); sets nat or tap for run-guest.sh
# and writes HOST_RELAY and HOST_NET to the guest's env. host_net_down
# undoes it.
host_net_up() {
	local addr=127.0.0.1

	nat=0 tap=
	rate_runs || return 0
	if [ "$RACE_NET" = tap ] && host_tap_up "$tap_dev" 10.0.2.2/24; then
		tap=$tap_dev addr=10.0.2.2
	elif [ "$RACE_NET" = tap ]; then
		say "no tap device here (root and /dev/net/tun needed): the relay on the host through QEMU's user-mode network"
	fi
	if ! host_relayd_up "$relay_dir" "$HRP" "$dir/host-relayd.log" "$addr"; then
		[ -z "$tap" ] || host_tap_down "$tap"
		tap=
		return 0
	fi
	[ -n "$tap" ] || nat=1
	{
		echo "HOST_RELAY=\"10.0.2.2:$HRP:$((HRP + 1))\""
		echo "HOST_NET=$([ -n "$tap" ] && echo tap || echo user)"
	} >>"$dir/results/env"
}

host_net_down() {
	[ "$nat" = 1 ] || [ -n "$tap" ] || return 0
	host_relayd_down "$HRP" "$([ -n "$tap" ] && echo 10.0.2.2 || echo 127.0.0.1)"
	[ -z "$tap" ] || host_tap_down "$tap"
	rm -rf "$relay_dir"
	nat=0 tap=
}
nat=0 tap=
trap host_net_down EXIT

# host_relay_row FILE LOCAL HOST: tring-host's drain over tring's (to
# tmpfs) per offered rate, paired by round, and their no-loss rates.
host_relay_row() {
	local rate r line=
	for rate in $(awk '$1 == "rate" { print $3 }' "$1" | awk '!s[$0]++'); do
		r=$(awk -v rate="$rate" '$1 == "rate" && $3 == rate && ($4 == "tring" || $4 == "tring-host") {
				ns = 0; ev = 0
				for (i = 5; i < NF; i += 2) if ($i == "ns") ns = $(i + 1); else if ($i == "events") ev = $(i + 1)
				if (ns > 0) v[$2, $4] = ev / ns; rd[$2] = 1 }
			END { for (k in rd) if (v[k, "tring"] > 0 && (k, "tring-host") in v) printf "%.2f\n", v[k, "tring-host"] / v[k, "tring"] }' "$1" | median)
		line="$line; at ${rate#paced-}/s ${r:--}"
	done
	echo "tring-host over tring, events/s paired by round (target at least 0.80)${line}; no loss to:" \
		"$(awk -v a="$2" -v b="$3" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')"
	[ -z "$json" ] || json_rows+=("$(jrow host_relay=tring-host/tring rates="${line#; }" \
		no_loss_to_ratio:n="$(awk -v a="$2" -v b="$3" 'BEGIN { if (a > 0) printf "%.3f", b / a }')")")
}

for series in $kernels; do
	k=$(guest_kernel "$series") || { say "no Debian $series kernel"; continue; }
	read -r image kdir <<<"$k"
	release=${image#/boot/vmlinuz-}
	guest_modules "$kdir" >/dev/null
	dir=$out/race-$series
	f=$dir/results/race.txt
	if [ "${RACE_REPRINT:-0}" = 1 ]; then
		[ -f "$f" ] || continue
	else
	rm -rf "$dir"
	mkdir -p "$dir/results"
	# Kernels other than 6.1 (no LTTng there) run the targets' workloads
	# and the latency only, unless the caller chose or RACE_FULL=1: the
	# other parts run on 6.1, where every peer runs.
	SECTIONS=$sections0 WORKLOADS=$workloads0
	if [ "$series" != 6.1 ] && [ -z "$sections0$workloads0" ] && [ "${RACE_FULL:-0}" != 1 ]; then
		SECTIONS="race lat" WORKLOADS="syscall-1cpu syscall-all pingpong"
	fi
	{
		echo "MODDIR=$(guest_moddir "$kdir")"
		echo "TOOLS=$B/tools"
		echo "BENCHTOOLS=$B/bench-tools"
		for v in ROUNDS WARMUP RATE_ROUNDS BUFKB SUBBUFKB SYSCALLS PINGPONG HB_GROUPS HB_LOOPS FORKS ALONE CHECK EXACT RB_HOST SECTIONS TRACERS WORKLOADS GEN_TRACERS RATES RATE_MS RATE_BUFKB TRING_OPTS TRING_WRAP; do
			[ -z "${!v:-}" ] || echo "$v=\"${!v}\""
		done
	} >"$dir/results/env"
	say "Debian $release: the tracer race (minutes)"
	{
		echo "qemu $(qemu-system-x86_64 --version | head -n 1)"
		case $series in
		6.1) echo "threads one host thread per vCPU (-accel tcg, MTTCG)" ;;
		*) echo "threads one host thread for all vCPUs, taking turns (-accel tcg,thread=single)" ;;
		esac
		echo "host $(nproc) CPUs; load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$dir/host.info"
	qargs=
	if [ "$insn" = 1 ] && ! insn_ok "$release"; then
		say "$release runs on one host thread, where QEMU's instruction counter crashes (tools/testing/vm/lib.sh, insn_ok): times only"
	elif [ "$insn" = 1 ]; then
		qargs="-plugin $B/insn/libtring_insn.so,out=$dir/results/insn.txt"
	fi
	host_net_up
	TRING_GUEST_NAT=$nat TRING_GUEST_TAP=$tap TRING_VM_QEMU_ARGS=$qargs \
		"$top/tools/testing/vm/userland/run-guest.sh" "$release" "$dir" \
		"${RACE_TIMEOUT:-3600}" "$top/tools/testing/vm/userland/bench-race.sh" || true
	host_net_down
	echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir/host.info"
	# The traces the guest handed over, counted here (RB_HOST).
	t0=$(date +%s)
	"$top/scripts/race-readback.sh" "$dir/results" ||
		say "the $series race's counts here and in the guest differ: readback_mismatch in $f"
	[ ! -f "$f.guest" ] || echo "traces counted on the host in $(($(date +%s) - t0)) s (RB_HOST=$RB_HOST)" >>"$dir/host.info"
	fi
	if [ ! -f "$dir/results/done" ]; then
		say "the $series race guest did not finish: $dir/console.log, $dir/results/guest.log"
		[ -s "$f" ] || continue
	fi
	"$top/tools/testing/vm/splat.sh" "$dir/console.log" >/dev/null 2>&1 ||
		say "the $series guest kernel reported a problem: $dir/console.log"
	inf() { sed -n "s/^info $1 //p" "$f"; }
	rounds=$(awk '$1 == "race" && $2 != "-" && $2 != "0" { print $2 }' "$f" | sort -u | grep -c . || true)

	echo
	echo "== Tracer race: Linux $(inf kernel), $(inf cpus) vCPUs, clocksource $(inf clocksource), QEMU TCG (emulated) =="
	# How the guest ran: its timings compare within this table only.
	sed 's/^/guest: /' "$dir/host.info" 2>/dev/null || true
	[ -z "$(inf memory)" ] || echo "guest: memory $(inf memory)"
	echo "Sizes: the race's rounds take the workloads at 1, 1.5 and 2 times their size in turn."
	sed -n 's/^SECTIONS="\(.*\)"$/Parts run on this kernel: \1 (RACE_FULL=1: all)/p' "$dir/results/env"
	echo "tring $(inf tring); LTTng $(inf lttng | grep . || echo 'not run'); trace-cmd $(inf trace-cmd); perf $(inf perf)"
	grep '^race - - ' "$f" | sed 's/^race - - \([^ ]*\) unsupported /\1: not run: /' || true
	echo "Per-CPU buffer $(inf bufkb) KiB, sub-buffers of $(inf subbufkb) KiB where the tracer has them"
	echo "(tring -b/-s, LTTng --subbuf-size/--num-subbuf, trace-cmd -b, perf -m pages); output on tmpfs."
	if grep -q '^race 0 ' "$f"; then
		echo "$rounds interleaved rounds after a warm-up round at a tenth of the sizes (left out: each tracer on the first"
		echo "workload, the others untraced), each round's tracer order rotated."
	else
		echo "$rounds interleaved rounds, no warm-up round (WARMUP=0), each round's tracer order rotated."
	fi
	echo "ns/ev: the tracer's cost per event of the workload, (time traced - the same round's untraced time) /"
	echo "the workload's events, one count for every tracer of a round: the smallest among the round's lossless"
	echo "traces (trace-cmd and perf also record their own readers' system calls: their 'events' are larger)."
	echo "Median of the rounds, [interval: with 7 rounds or more the 95% bootstrap interval of the median, with"
	echo "fewer the range, min-max]; rounds where the tracer lost events or"
	echo "perf was throttled are left out (n: rounds used). /tring: ns/ev over tring's, only where tring's"
	echo "interval is above 0. slow%: median slowdown. Events: in each trace, counted from it, every round."
	echo "lost: as the tracer reports it / as its trace shows it. B/ev: see below. rec ms: the recorder's own"
	echo "CPU time (LTTng: consumerd). Every recorder at nice 0 (tring-record --nice 0; its default is -10)."
	echo "Same clock (monotonic) everywhere; no tracer filters (trace-cmd"
	echo "--no-filter, perf without --exclude-perf: each records its recorder's own system calls, as tring"
	echo "and LTTng do); perf unthrottled and started only once it acknowledged enabling its events."
	printf '%-13s %-9s %9s %7s %9s %17s %2s %6s %9s %12s %6s %7s\n' workload tracer ms 'slow%' ns/ev 'interval' n /tring events lost B/ev 'rec ms'
	for w in $(awk '$1 == "race" { print $3 }' "$f" | awk '!s[$0]++'); do
		tne=$(nsev "$f" "$w" tring | grep -v x | median)
		tlo=$(nsev "$f" "$w" tring | grep -v x | ci95 | cut -d' ' -f1)
		for t in $(awk -v w="$w" '$1 == "race" && $3 == w && $5 == "ns" { print $4 }' "$f" | awk '!s[$0]++' |
			sort -t: -k1,1 | awk '{ o = index("none tring lttng trace-cmd perf", $1); print o, $1 }' | sort -n | cut -d' ' -f2); do
			ms=$(col "$f" "$w" "$t" ns | median | awk '{ printf "%.1f", $1 / 1e6 }')
			sl=$(slow "$f" "$w" "$t" | awk '{ print $2 }' | median)
			ne=$(nsev "$f" "$w" "$t" | grep -v x | median)
			ci=$(nsev "$f" "$w" "$t" | grep -v x | ci95)
			nu=$(nsev "$f" "$w" "$t" | grep -vc x)
			rel=$(awk -v a="${ne:-}" -v b="${tne:-0}" -v lo="${tlo:--}" 'BEGIN {
				if (lo != "-" && lo > 0 && b > 0 && a != "") printf "%.2f", a / b; else print "-" }')
			# A trace that could not be read counts no event: left out.
			ev=$(col "$f" "$w" "$t" events | grep -vx 0 | median)
			lr=$(col "$f" "$w" "$t" lost | tr '\n' ',' | sed 's/,$//')
			lt=$(col "$f" "$w" "$t" trace_lost | grep -v '^-$' | tr '\n' ',' | sed 's/,$//')
			bpe=$(bytes_per_event "$f" "$t" "$w")
			rc=$(col "$f" "$w" "$t" rec_cpu_ns | median | awk '{ printf "%.0f", $1 / 1e6 }')
			if [ "$t" = none ]; then
				sl=0 ne="" ci="- -" nu="" rel="" lr="" bpe=""
			fi
			printf '%-13s %-9s %9s %7s %9s %17s %2s %6s %9s %12s %6s %7s\n' "$w" "$t" "$ms" "${sl:--}" "${ne:--}" \
				"[$(echo "$ci" | tr ' ' ',')]" "${nu:--}" "${rel:--}" "${ev:--}" "${lr:--}/${lt:--}" "${bpe:--}" "$rc"
			# Say so where no round's trace could be counted.
			[ "$t" = none ] || [ -n "$ev" ] || echo "  ^ $t: no round's trace of $w could be read back; written:" \
				"$(col "$f" "$w" "$t" bytes | awk '{ printf "%s%.0f", (NR > 1 ? "," : ""), $1 / 1048576 }') MiB per round;" \
				"left out"
			[ -z "$json" ] || json_rows+=("$(jrow workload="$w" tracer="$t" ms:n="${ms:-}" \
				slowdown_pct:n="${sl:-}" ns_per_event:n="${ne:-}" ns_per_event_ci95:nl="$ci" \
				rounds_used:n="${nu:-}" over_tring:n="${rel:-}" events:n="${ev:-}" \
				lost_reported:nl="$lr" lost_in_trace:nl="$lt" bytes_per_event:n="${bpe:-}" \
				recorder_cpu_ms:n="${rc:-}")")
		done
	done
	echo "B/ev: bytes written per event, the slope of each tracer's output size over its event count,"
	echo "fitted over every run of the workload (the intercept, fixed metadata and headers, left out);"
	echo "every tracer uncompressed (trace-cmd file version 6). The same events everywhere: the sched and"
	echo "irq events above and every per-system-call event (ftrace's syscalls:sys_enter_*/sys_exit_*;"
	echo "getppid's entry carries no argument). What still differs: ftrace's entry and exit events carry"
	echo "the call's number, tring's exit event its number and return value, LTTng's the return value"
	echo "alone; a path argument (open, execve: the fork/exec row) is a copied string in tring and LTTng,"
	echo "a pointer in ftrace's events. A getppid() call is 4 + 16 bytes in tring (entry: the 4-byte header,"
	echo "9 id bits; exit: header, 32-bit number, 64-bit return value; records 4-byte aligned) against"
	echo "6 + 14 in LTTng (16-bit id and 32-bit time, unaligned; its exit event's id names the call, so it"
	echo "carries the return value alone)."
	cost_table

	if grep -q '^lat [0-9]' "$f"; then
		echo
		echo "The latency the traced process sees: $(inf syscalls) getppid() calls on CPU 0, each timed alone"
		echo "(CLOCK_MONOTONIC around it), while each tracer records the race's events; percentiles of one"
		echo "call's time in ns, medians of rounds (emulated: compare within the table)."
		printf '%-10s %8s %8s %8s\n' tracer p50 p99 p99.9
		for t in none tring lttng trace-cmd perf; do
			grep -qE "^lat [0-9]+ syscall-lat $t ns " "$f" || continue
			lp() { awk -v t="$t" -v k="$1" '$1 == "lat" && $4 == t { for (i = 5; i < NF; i++) if ($i == k) print $(i + 1) }' "$f" | median; }
			printf '%-10s %8s %8s %8s\n' $t "$(lp p50)" "$(lp p99)" "$(lp p999)"
			[ -z "$json" ] || json_rows+=("$(jrow latency="$t" p50_ns:n="$(lp p50)" \
				p99_ns:n="$(lp p99)" p999_ns:n="$(lp p999)")")
		done
	fi

	if grep -q ' rec_rss_kb [1-9]' "$f"; then
		echo
		echo "Memory, KiB, medians of the race's runs. Buffers: $(inf bufkb) KiB per CPU in every tracer ($(( $(inf bufkb) * $(inf cpus) )) KiB on"
		echo "$(inf cpus) CPUs). kernel: what the kernel's own memory (/proc/meminfo: neither free, nor page cache and"
		echo "tmpfs, nor user-space anonymous memory) grew by from just before the tracer started to just before the"
		echo "workload: LTTng's and perf's buffers are allocated then; tring's default buffer and ftrace's exist"
		echo "before and are only resized to that size, so theirs counts what the resizing and the session took"
		echo "(the 'none' row: the method's noise). recorder: its resident size when recording ends (smaps_rollup;"
		echo "LTTng: consumerd)."
		printf '  %-10s %10s %10s\n' tracer kernel recorder
		for t in none tring lttng trace-cmd perf; do
			km=$(col "$f" syscall-1cpu "$t" kmem_kb | median)
			[ -n "$km" ] || km=$(awk -v t="$t" '$1 == "race" && $2 != "0" && $4 == t { for (i = 5; i < NF; i++) if ($i == "kmem_kb") print $(i + 1) }' "$f" | median)
			m=$(awk -v t="$t" '$1 == "race" && $2 != "0" && $4 == t { for (i = 5; i < NF; i++) if ($i == "rec_rss_kb") print $(i + 1) }' "$f" | median)
			[ -n "$m$km" ] || continue
			printf '  %-10s %10s %10s\n' $t "${km:--}" "$([ "$t" = none ] && echo - || echo "${m:--}")"
			[ -z "$json" ] || json_rows+=("$(jrow memory="$t" kernel_kib:n="${km:-}" \
				recorder_rss_kib:n="$([ "$t" = none ] || echo "${m:-}")")")
		done
	fi
	chart "$f" "$out/race-$series.svg" "Tracer race, Linux $(inf kernel), $(inf cpus) vCPUs (QEMU TCG)" 2>/dev/null &&
		echo "Chart: $out/race-$series.svg (per-round ns/ev, median and interval)."

	# kslow KIND WORKLOAD TRACER: slowdown (%) per round over the round's none
	kslow() {
		awk -v k="$1" -v w="$2" -v t="$3" '$1 == k && $3 == w && $2 != "-" {
			for (i = 5; i < NF; i++) if ($i == "ns") ns[$4, $2] = $(i + 1)
			rounds[$2] = 1 }
			END { for (r in rounds) if (ns["none", r] > 0 && ns[t, r] > 0)
				printf "%s %.1f\n", r, (ns[t, r] / ns["none", r] - 1) * 100 }' "$f" | sort -n
	}
	# kcol KIND WORKLOAD TRACER KEY: the values of KEY, one per round
	kcol() {
		awk -v k="$1" -v w="$2" -v t="$3" -v key="$4" '$1 == k && $3 == w && $4 == t {
			for (i = 5; i < NF; i++) if ($i == key) print $(i + 1) }' "$f"
	}
	if grep -q '^gen [0-9]' "$f"; then
		echo
		echo "One tracepoint pair, raw_syscalls sys_enter/sys_exit, hit by the 1-CPU syscall storm: tring's"
		echo "generic events (the kernel's own, through perf), tring's hand-written syscall events, trace-cmd"
		echo "and perf record. ns/ev: workload time over the same round's untraced run, per event of the"
		echo "workload (one count for every tracer of a round, the smallest; trace-cmd and perf also record"
		echo "their readers' calls); medians of rounds; /generic: ns/ev over tring-generic's."
		printf '%-14s %9s %7s %9s %9s %9s %8s\n' tracer ms 'slow%' events lost ns/ev /generic
		# gen_ns TRACER: per round, ns per event over the untraced run
		gen_ns() {
			# One count for every tracer of a round, as in the race.
			awk -v t="$1" '$1 == "gen" && $2 != "-" {
				for (i = 5; i < NF; i++) { if ($i == "ns") ns[$4, $2] = $(i + 1); if ($i == "events") ev[$4, $2] = $(i + 1) }
				rounds[$2] = 1; tr[$4] = 1 }
				END { for (r in rounds) {
					wl = 0
					for (u in tr) if (u != "none" && ev[u, r] > 0 && (wl == 0 || ev[u, r] < wl)) wl = ev[u, r]
					if (ns["none", r] > 0 && ev[t, r] > 0 && wl > 0)
						printf "%.1f\n", (ns[t, r] - ns["none", r]) / wl } }' "$f" | median
		}
		gg=$(gen_ns tring-generic)
		for t in none tring-generic tring trace-cmd perf; do
			grep -qE "^gen [0-9]+ syscall-1cpu $t ns " "$f" || continue
			ms=$(kcol gen syscall-1cpu $t ns | median | awk '{ printf "%.1f", $1 / 1e6 }')
			sl=$(kslow gen syscall-1cpu $t | awk '{ print $2 }' | median)
			ne=$([ $t = none ] || gen_ns $t)
			rel=$(awk -v a="${ne:-0}" -v b="${gg:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
			printf '%-14s %9s %7s %9s %9s %9s %8s\n' $t "$ms" "${sl:--}" "$(kcol gen syscall-1cpu $t events | median)" \
				"$(kcol gen syscall-1cpu $t lost | tr '\n' ',' | sed 's/,$//')" "${ne:--}" "$rel"
			[ -z "$json" ] || json_rows+=("$(jrow generic="$t" ms:n="${ms:-}" \
				slowdown_pct:n="${sl:-}" ns_per_event:n="${ne:-}")")
		done
		grep '^gen - ' "$f" | sed 's/^gen - - \([^ ]*\) unsupported /\1: not run: /' || true
	fi

	if grep -q '^sel [0-9]' "$f"; then
		calls=$(inf syscalls)
		echo
		echo "Choosing what is recorded: the 1-CPU syscall storm (${calls:-?} getppid calls, an entry and an exit"
		echo "event each) recorded, or left out by tracking only PID 1 (tring-record -p 1, lttng track -k --pid 1,"
		echo "trace-cmd -P 1), or by a filter every event fails (common_pid == 1; LTTng \$ctx.tid == 1). ns/ev: the"
		echo "storm's time over the same round's untraced run, per event it causes, recorded or not; medians of"
		echo "rounds; x rec: over the same tracer's recorded events. Events: tring's sys_getppid and exit_syscall,"
		echo "LTTng's getppid system call, trace-cmd's syscalls:sys_enter_getppid and sys_exit_getppid."
		printf '%-18s %9s %9s %9s %7s\n' tracer ms events ns/ev 'x rec'
		# sel_ns TRACER: per round, ns per event caused over the untraced run
		sel_ns() {
			awk -v t="$1" -v n="${calls:-0}" '$1 == "sel" && $2 != "-" {
				for (i = 5; i < NF; i++) if ($i == "ns") ns[$4, $2] = $(i + 1)
				rounds[$2] = 1 }
				END { for (r in rounds) if (n > 0 && ns["none", r] > 0 && ns[t, r] > 0)
					printf "%.1f\n", (ns[t, r] - ns["none", r]) / (2 * n) }' "$f" | median
		}
		for t in none tring tring-track tring-filter lttng lttng-track lttng-filter \
			 trace-cmd trace-cmd-track trace-cmd-filter; do
			grep -qE "^sel [0-9]+ syscall-1cpu $t ns " "$f" || continue
			ms=$(kcol sel syscall-1cpu $t ns | median | awk '{ printf "%.1f", $1 / 1e6 }')
			ne=$([ $t = none ] || sel_ns $t)
			case $t in
			*-track | *-filter) base=${t%-*} ;;
			*) base=$t ;;
			esac
			rec=$([ $t = none ] || sel_ns "$base")
			rel=$(awk -v a="${ne:-0}" -v b="${rec:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
			printf '%-18s %9s %9s %9s %7s\n' $t "$ms" "$(kcol sel syscall-1cpu $t events | median)" "${ne:--}" "$rel"
			[ -z "$json" ] || json_rows+=("$(jrow choose="$t" ms:n="${ms:-}" \
				ns_per_event:n="${ne:-}" over_recorded:n="$rel")")
		done
	fi

	if grep -q '^hb [0-9]' "$f"; then
		echo
		echo "One process traced on a busy machine: hackbench (untraced) beside a getppid storm on CPU 0;"
		echo "tring records every event of the race, or the storm's only (-p): hackbench's slowdown over the"
		echo "same round's untraced run, medians of rounds. Target: with -p at most 0.25x the slowdown of all."
		printf '%-18s %9s %7s\n' mode ms 'slow%'
		for t in none tring-all tring-storm; do
			grep -qE "^hb [0-9]+ hackbench $t ns " "$f" || continue
			printf '%-18s %9s %7s\n' $t "$(kcol hb hackbench $t ns | median | awk '{ printf "%.1f", $1 / 1e6 }')" \
				"$([ $t = none ] && echo - || kslow hb hackbench $t | awk '{ print $2 }' | median)"
		done
		hs=$(kslow hb hackbench tring-storm | awk '{ print $2 }' | median)
		ha=$(kslow hb hackbench tring-all | awk '{ print $2 }' | median)
		# No ratio of a slowdown within noise of zero (or below it).
		hr=$(awk -v a="${hs:-0}" -v b="${ha:-0}" 'BEGIN {
			if (b <= 0) print "-"
			else if (a <= 0) printf "0 (no slowdown measured with -p: %s%%)", a
			else printf "%.2fx", a / b }')
		echo "slowdown with -p over slowdown with all: ${hr}"
		[ -z "$json" ] || json_rows+=("$(jrow busy_machine=hackbench \
			slowdown_all_pct:n="${ha:-}" slowdown_track_pct:n="${hs:-}")")
	fi

	if grep -q '^rate [0-9]' "$f"; then
		echo
		echo "The highest event rate with no loss: getppid() paced at a rate on CPU 0 for $(inf ratems) ms, a syscall"
		echo "entry and exit event per call, $(inf ratebufkb) KiB per CPU in every tracer (sub-buffers of $(inf subbufkb) KiB"
		echo "where it has them). Per offered rate (calls/s, 0: as fast as the traced loop goes) and tracer:"
		echo "events recorded per second (median of $(awk '$1 == "rate" { print $2 }' "$f" | sort -u | grep -c .) rounds; trace-cmd's and perf's include their readers' own"
		echo "system calls) / events lost (as reported, every round). No loss to: the source's events per"
		echo "second (two a call) at the highest rate at which no round lost any."
		if grep -q '^rate [0-9]* [^ ]* tring-net ' "$f"; then
			echo "tring-net: tring-record streaming the same buffer to lttng-relayd ($(inf relayd)) instead"
			echo "of writing it to tmpfs (tring); the relay writes to tmpfs."
		fi
		if grep -q '^rate [0-9]* [^ ]* tring-host ' "$f"; then
			echo "tring-host: the same, to lttng-relayd on the host ($(inf hostrelay | sed 's/ on the host.*//')), another machine as"
			case $(sed -n 's/^HOST_NET=//p' "$dir/results/env") in
			tap) echo "deployments run it: the guest's virtio NIC on a tap device of the host (with its offloads), the host kernel's TCP." ;;
			*) echo "deployments run it: the guest's virtio NIC, QEMU's user-mode network (10.0.2.2, the host's 127.0.0.1)." ;;
			esac
		fi
		rtr=$(awk '$1 == "rate" { print $4 }' "$f" | awk '!s[$0]++')
		printf '%-10s' calls/s
		for t in $rtr; do printf ' %22s' "$t"; done
		echo
		for rate in $(awk '$1 == "rate" { print $3 }' "$f" | awk '!s[$0]++'); do
			printf '%-10s' "${rate#paced-}"
			for t in $rtr; do
				eps=$(paste <(kcol rate "$rate" "$t" events) <(kcol rate "$rate" "$t" ns) |
					awk '$2 > 0 { printf "%.0f\n", $1 / ($2 / 1e9) }' | median)
				printf ' %22s' "${eps:--}/$(kcol rate "$rate" "$t" lost | tr '\n' ',' | sed 's/,$//')"
			done
			echo
		done
		printf '%-10s' 'no loss to'
		unset nl
		declare -A nl=()
		for t in $rtr; do
			# the highest events/s (median) of a rate at which no round lost any
			# the source's event rate (2 a call), not the trace's:
			# trace-cmd and perf also record their readers' calls
			best=$(for rate in $(awk '$1 == "rate" { print $3 }' "$f" | awk '!s[$0]++'); do
				! kcol rate "$rate" "$t" lost | grep -qv '^0$' || continue
				! kcol rate "$rate" "$t" trace_lost | grep -qvE '^(0|-)$' || continue
				paste <(kcol rate "$rate" "$t" calls) <(kcol rate "$rate" "$t" ns) |
					awk '$2 > 0 { printf "%.0f\n", 2 * $1 / ($2 / 1e9) }' | median
			done | sort -g | tail -n 1)
			printf ' %22s' "${best:-none} ev/s"
			nl[$t]=${best:-0}
			[ -z "$json" ] || json_rows+=("$(jrow no_loss_to="$t" events_per_s:n="${best:-}")")
		done
		echo
		[ -z "${nl[tring-host]:-}" ] || host_relay_row "$f" "${nl[tring]:-0}" "${nl[tring-host]}"
	fi

	if grep -q '^throttle ' "$f"; then
		echo
		echo "perf's THROTTLE records: the kernel stopped sampling an event for the rest of a tick"
		echo "(kernel.perf_event_max_sample_rate: $(inf perf_rate_start) at the start, $(inf perf_rate_end) at the end); what"
		echo "it did not sample is not reported lost. Per run, every round:"
		while read -r kind run counts; do
			printf '  %-5s %-18s %s\n' "$kind" "$run" "$counts"
			[ -z "$json" ] || json_rows+=("$(jrow perf_throttle="$kind $run" records:nl="$counts")")
		done < <(awk '$1 == "throttle" { k = $2 " " $4; if (!(k in v)) { o[++n] = k; v[k] = $5 } else v[k] = v[k] "," $5 }
			END { for (i = 1; i <= n; i++) print o[i], v[o[i]] }' "$f")
	fi

	if grep -q '^alone [0-9]' "$f"; then
		echo
		echo "tring's write path alone: ns/event (the writing's time over the events written), median of"
		echo "rounds: tring_bench's loops with no reader and with a draining kthread, and bench/fill into the"
		echo "default buffer with tring-record running. LTTng's counterpart: the ring buffers' table below."
		printf '%-26s %8s %10s %10s\n' writer payload events ns/event
		for wr in $(awk '$1 == "alone" && $2 != "-" { print $3 }' "$f" | awk '!s[$0]++'); do
			ns=$(awk -v wr="$wr" '$1 == "alone" && $3 == wr && $7 > 0 { print $9 / $7 }' "$f" | median)
			pl=$(awk -v wr="$wr" '$1 == "alone" && $3 == wr { print $5; exit }' "$f")
			n=$(awk -v wr="$wr" '$1 == "alone" && $3 == wr { print $7; exit }' "$f")
			printf '%-26s %8s %10s %10.1f\n' "$wr" "$pl" "$n" "$ns"
			[ -z "$json" ] || json_rows+=("$(jrow alone="$wr" payload:n="$pl" \
				events:n="$n" ns_per_event:n="$ns")")
		done
		grep '^alone - ' "$f" | sed 's/^alone - \([^ ]*\) unsupported /\1: not run: /' || true
		echo "(The fill row's events were written into the default buffer; lost: $(awk '$1 == "alone" && $3 == "tring_fill_recorded" {
			for (i = 10; i < NF; i++) if ($i == "lost") print $(i + 1) }' "$f" | tr '\n' ',' | sed 's/,$//') per round, reported by"
		echo "tring-record; a round that lost events wrote less than a recorded event costs.)"
	fi
	ring_table

	if [ -n "$json" ]; then
		printf '%s\n' "${json_rows[@]}" >"$dir/rows.jsonl"
		/usr/bin/python3 "$top/scripts/race_cost.py" --merge "$dir/rows.jsonl" "$dir/cost.json" \
			kernel="$(inf kernel)" cpus="$(inf cpus)" clocksource="$(inf clocksource)" \
			bufkb="$(inf bufkb)" subbufkb="$(inf subbufkb)" rounds="$rounds" \
			lttng="$(inf lttng)" trace-cmd="$(inf trace-cmd)" perf="$(inf perf)" \
			instruction_counter="$([ -s "$dir/results/insn.txt" ] && echo yes || echo no)" >>"$json"
	fi
	json_rows=()
done
