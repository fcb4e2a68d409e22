#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of make bench's tracer race (run-guest.sh: the host's Debian
# userland over 9p): the tree's own modules (insmod, nothing installed)
# and tring-record against no tracer, LTTng (when lttng-modules loads),
# trace-cmd and perf, recording the same events into the same per-CPU
# buffer size, to tmpfs, while fixed-work workloads (storm, hackbench)
# time themselves. Rounds interleave the tracers, each round starting the
# rotation one tracer later. Then the buffer alone: LTTng's ring-buffer
# library against tring's, and tring's writers with and without a reader.
#
# /results/env (written by scripts/bench.sh) sets MODDIR, TOOLS,
# BENCHTOOLS (host paths, visible here through the 9p root), ROUNDS,
# WARMUP (1, the default: the race's round 0 warms up, at a tenth of the
# sizes, each tracer on the first workload and the others untraced;
# 0: none, for the
# smoke run, whose figures nobody reads), RATE_ROUNDS,
# BUFKB, SUBBUFKB, the workloads' sizes (SYSCALLS, PINGPONG, HB_GROUPS,
# HB_LOOPS, FORKS), ALONE (events of the buffer-alone test), CHECK
# (1, the default: read every trace back, every round, and count the
# events there; 0: the first round's only, for quick experiments),
# RB_HOST (1: the traces are counted on the host once the guest is done,
# natively, scripts/race-readback.sh; 2: here and there, the host checks
# the counts agree, for the smoke run; 0, the default: here only; the
# smoke run's exact count, EXACT=1, needs 0 or 2),
# TRING_OPTS (more tring-record options, for experiments), TRING_WRAP
# (a command the race's tring-record runs under, e.g. setsid), and may
# narrow TRACERS and WORKLOADS (the smoke run) and SECTIONS (which parts
# run: race lat gen rate sel hb alone; all by default, the race alone
# when WORKLOADS is given).
# Result lines go to /results/race.txt:
#
#   info KEY VALUE...
#   race ROUND WORKLOAD TRACER ns N cpu_ns N events N lost N trace_events N|-
#	trace_lost N|- bytes N rec_rss_kb N rec_cpu_ns N rec_nice N|- kmem_kb N
#	[getppid_calls N getppid_events ENTRIES EXITS] (EXACT=1) [readback ID]
#	(RB_HOST: the trace to count on the host; its counts "host") mark TAG
#	(TAG: the storm's marks for the instruction counter, which the
#	host's QEMU may run: tools/testing/insn; every kind's runs end so)
#   race - - TRACER unsupported REASON...
#   lat ROUND syscall-lat TRACER ns N cpu_ns N p50 N p99 N p999 N events N ...
#	(the traced system call's own latency, each call timed)
#   gen ROUND syscall-1cpu TRACER ns N cpu_ns N events N lost N ...
#	(one tracepoint pair: tring's generic event among the tracers)
#   rate ROUND paced-RATE TRACER ns N cpu_ns N calls N events N lost N ...
#	(the highest rate with no loss)
#   sel ROUND syscall-1cpu TRACER[-track|-filter] ns N cpu_ns N events N ...
#	(recorded, or left out by tracking or by a filter)
#   hb ROUND hackbench none|tring-all|tring-storm ns N cpu_ns N ...
#	(hackbench beside a syscall storm: all recorded, or the storm only)
#   alone ROUND WRITER payload N events N ns N [recorded N] [bufkb N] [lost N]
#   ring ROUND tring_inline|lttng_rb PAYLOAD ns_per_event N
#	(the ring buffers alone, same layer)
#
# Then it reboots (QEMU exits); /results/done says it finished.

# The workloads' arguments (wl_args) are split into words on purpose.
# shellcheck disable=SC2046
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
R=/results
# shellcheck disable=SC1091
. $R/env
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
# The rate part: two rounds (of every tracer at every rate) keep make
# bench within its time; a rate counts as lossless only if both are.
RATE_ROUNDS=${RATE_ROUNDS:-$((ROUNDS < 2 ? ROUNDS : 2))}
BUFKB=${BUFKB:-2048}
SUBBUFKB=${SUBBUFKB:-64}
SYSCALLS=${SYSCALLS:-100000}
# Two processes on CPU 0 (storm pingpong): 20,000 round trips, 1.6 s
# untraced on 6.1 (MTTCG; 2.3 to 7.2 s for 30,000 across two CPUs). What
# it still swings with the host, its interval says.
PINGPONG=${PINGPONG:-20000}
HB_GROUPS=${HB_GROUPS:-2}
HB_LOOPS=${HB_LOOPS:-50}
FORKS=${FORKS:-200}
if [ -n "${WORKLOADS:-}" ]; then
	SECTIONS=${SECTIONS:-race}
else
	SECTIONS=${SECTIONS:-race lat gen rate sel hb alone}
fi
# section NAME: whether that part runs
section() { echo " $SECTIONS " | grep -q " $1 "; }
ALONE=${ALONE:-100000}
# Every tracer's events are counted from its trace, every round (but
# the warm-up; see one()).
CHECK=${CHECK:-1}
# The exact getppid() count reads the trace here.
[ "${EXACT:-0}" != 1 ] || [ "${RB_HOST:-0}" != 1 ] || RB_HOST=2

# shellcheck disable=SC1091
. "$(dirname "$0")/mounts.sh"
# The recorders, run_TRACER and their helpers: sourced before /tmp (where
# a CI clone's scripts may lie) is hidden.
# shellcheck disable=SC1091
. "$(dirname "$0")/race-recorders.sh"
# shellcheck disable=SC1091
. "$(dirname "$0")/race-count.sh"
userland_mounts
# The tools may lie under /tmp (a CI clone), which the tmpfs hides.
S=/dev/shm/bin
mkdir -p $S
cp "$TOOLS/tring-record" "$BENCHTOOLS/storm" $S/
mkdir -p /dev/shm/mod
cp "$MODDIR"/tring.ko "$MODDIR"/tring_bench.ko /dev/shm/mod/
# LTTng's ring buffer in tring_bench, where it was built (the Makefile).
cp "$MODDIR"/tring_bench_lttng.ko /dev/shm/mod/ 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
exec > >(tee $R/guest.log >/dev/console) 2>&1
cd /tmp || exit 1
export PATH=$S:$PATH

OUT=$R/race.txt
O=/tmp/out
T=/sys/kernel/debug/tring
K=$(uname -r)
NCPU=$(nproc)
: >$OUT

info() { echo "info $*" >>$OUT; }
# up WHAT: a progress line with the guest's uptime
up() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
up "userland up"
info kernel "$K"
info cpus "$NCPU"
info clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
info bufkb "$BUFKB"
info memory "$(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo), tmpfs $(df -m /tmp | awk 'NR == 2 { print $2 }') MiB"
info syscalls "$SYSCALLS"
info subbufkb "$SUBBUFKB"
info alone "$ALONE"

insmod /dev/shm/mod/tring.ko || { info error "insmod tring.ko failed"; reboot -f; }
insmod /dev/shm/mod/tring_bench.ko
# The kernel's events, offered as tring's generic events (tring.rst).
cat /sys/kernel/tracing/available_events >/sys/kernel/debug/tring/events/generic_events
info tring "$(cat /sys/module/tring/version 2>/dev/null || echo tree) (this tree, insmod)"
info trace-cmd "$(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }') (Debian, unpatched)"
info perf "$(perf --version | awk '{ print $3 }') (Debian, unpatched)"
# perf's sampling unthrottled: a tracepoint event is a sample, and the
# kernel otherwise stops sampling for the rest of a tick above
# perf_event_max_sample_rate / HZ (at 200,000 calls/s on 6.1 perf kept
# half). The rate first: it cannot be written once the check is off.
echo 100000000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
info perf_rate_start "$(cat /proc/sys/kernel/perf_event_max_sample_rate) (perf_cpu_time_max_percent $(cat /proc/sys/kernel/perf_cpu_time_max_percent))"

# The events, in each tracer's own form.
TRING_EVENTS="sched/sched_switch sched/sched_wakeup sched/sched_process_fork
sched/sched_process_exec sched/sched_process_exit irq/irq_handler_entry
irq/irq_handler_exit irq/softirq_entry irq/softirq_exit
syscalls/syscall_entry syscalls/exit_syscall"
RACE_TRING_EVENTS=$TRING_EVENTS
LTTNG_EVENTS=sched_switch,sched_wakeup,sched_process_fork,sched_process_exec,sched_process_exit,irq_handler_entry,irq_handler_exit,irq_softirq_entry,irq_softirq_exit
# ftrace's per-system-call events (syscalls:sys_enter_NAME with the
# call's arguments, sys_exit_NAME with its return value), as tring's and
# LTTng's are: every one of them. They differ in one thing: a path
# argument is a pointer in ftrace's, a copied string in the others'.
FT_EVENTS="sched:sched_switch sched:sched_wakeup sched:sched_process_fork
sched:sched_process_exec sched:sched_process_exit irq:irq_handler_entry
irq:irq_handler_exit irq:softirq_entry irq:softirq_exit syscalls:*"

# LTTng: Debian's lttng-modules, built by DKMS for 6.1 only.
TRACERS=${TRACERS:-none tring lttng trace-cmd perf}
if ! echo "$TRACERS" | grep -qw lttng; then
	:
elif modprobe lttng-tracer 2>/tmp/lttng.err && lttng-sessiond --daemonize 2>>/tmp/lttng.err; then
	info lttng "$(lttng --version | grep -o '[0-9][0-9.]*' | head -n 1) modules $(modinfo -F version lttng-tracer)" \
		"(Debian, lttng-modules patched by scripts/peers/)"
else
	TRACERS=$(echo $TRACERS | sed 's/lttng//')
	echo "race - - lttng unsupported lttng-modules $(modinfo -F version lttng-tracer 2>/dev/null || echo 2.13.9)" \
		"does not build for Linux $K" >>$OUT
fi

up "tracers: $TRACERS"

# The workloads: name and storm arguments.
WORKLOADS=${WORKLOADS:-syscall-1cpu syscall-all pingpong hackbench forkexec}
# HALVES: the race's sizes in halves (2: as given; the race's rounds
# take 2, 3 and 4 in turn, so that time and bytes can be fitted over
# several sizes). DIV: the warm-up round's sizes are a tenth (it only
# has to load each tracer's binaries and make the emulator translate
# their code; its figures are left out).
HALVES=2 DIV=1
sz() { echo $(($1 * HALVES / 2 / DIV)); }
wl_args() {
	case $1 in
	syscall-1cpu) echo "syscall $(sz $SYSCALLS)" ;;
	syscall-all) echo "syscall $(sz $SYSCALLS) all" ;;
	pingpong) echo "pingpong $(sz $PINGPONG)" ;;
	hackbench) echo "run hackbench -g $HB_GROUPS -l $(sz $HB_LOOPS)" ;;
	forkexec) echo "forkexec $(sz $FORKS)" ;;
	syscall-lat) echo "latency $SYSCALLS" ;;
	paced-*) echo "paced ${1#paced-} $RATE_MS" ;;
	esac
}

# The tracers of TRACERS rotated to start at the Nth.
rotated() {
	local n=$1 i=0 first="" rest="" t cnt
	cnt=$(echo $TRACERS | wc -w)
	for t in $TRACERS; do
		if [ $((i % cnt)) -lt $((n % cnt)) ]; then rest="$rest $t"; else first="$first $t"; fi
		i=$((i + 1))
	done
	echo $first $rest
}

# getppid_count TRACER: "ENTRIES EXITS", the getppid() calls' events in
# the trace just recorded in $O (110: getppid's number on x86-64)
getppid_count() {
	case $1 in
	tring) babeltrace2 $O 2>/dev/null |
		awk '/ sys_getppid: / { e++ } / exit_syscall: .*[{ ]id = 110,/ { x++ } END { print e + 0, x + 0 }' ;;
	lttng) babeltrace2 $O 2>/dev/null |
		awk '/ syscall_entry_getppid: / { e++ } / syscall_exit_getppid: / { x++ } END { print e + 0, x + 0 }' ;;
	# The storm's own (comm storm): trace-cmd and perf record for a while
	# before and after it, as they start and stop, and bash calls
	# getppid() too. tring's and LTTng's windows hold the storm alone.
	trace-cmd) trace-cmd report -i $O/trace.dat 2>/dev/null |
		awk '$1 ~ /^storm-/ && / sys_enter_getppid: / { e++ } $1 ~ /^storm-/ && / sys_exit_getppid: / { x++ }
			END { print e + 0, x + 0 }' ;;
	# perf: the storm process that made the calls (the tid with the
	# most), each sample once: smoke runs found 3 to 9 more "storm"
	# getppid events in perf script's output than the storm's child
	# made (never on the host), in the child's own tid; a sample seen
	# twice has the same tid, time (ns) and event.
	perf) awk 'seen[$0]++ || $1 != "storm" { next }
			/sys_enter_getppid/ { e[$2]++ } /sys_exit_getppid/ { x[$2]++ }
			END { for (t in e) if (m == "" || e[t] > e[m]) m = t; print e[m] + 0, x[m] + 0 }' /tmp/perf.script ;;
	*) echo "- -" ;;
	esac
}

mark_seq=0
# one KIND ROUND WORKLOAD TRACER: one run, one result line. EXACT=1 (the
# smoke run): the 1-CPU storm's getppid() events are also counted in the
# trace, against the calls it made. RB: whether the trace is read back
# (CHECK, or the first round); never for the warm-up round (left out of
# every figure) nor for the latency and busy-machine runs (whose figures
# count no events): under emulation reading back takes longer than
# recording.
one() {
	RB=$CHECK
	[ "$2" = 1 ] && RB=1
	case $1/$2 in
	*/0 | lat/* | hb/*) RB=0 ;;
	esac
	res= rss=0 rnice=- rb_id=
	up "$1 $2 $3 $4"
	sync
	k0=$(kmem) k1=
	# The run's tag for the instruction counter (storm's STORM_MARK;
	# the host's QEMU writes every vCPU's counts at its marks).
	mark_seq=$((mark_seq + 1))
	STORM_MARK=$mark_seq "run_${4//-/_}" "$3" "$2"
	[ "$2" = 1 ] && cp /tmp/tc.log /tmp/perf.log /tmp/lttng.stop $R/ 2>/dev/null
	if [ -z "$res" ]; then
		echo "$1 $2 $3 $4 FAILED" >>$OUT
		return
	fi
	# storm's "mark TAG" last on the line: the fields before it keep
	# their places.
	local exact= mark=
	case $res in
	*" mark "*) mark=" mark ${res##* mark }" res=${res% mark *} ;;
	esac
	if [ "${EXACT:-0}" = 1 ] && [ "$RB" = 1 ] && [ "$3" = syscall-1cpu ] && [ "$4" != none ]; then
		exact=" getppid_calls $(sz $SYSCALLS) getppid_events $(getppid_count "$4")"
	fi
	# readback ID: the trace went to the host to be counted (trace_count).
	local rb=${rb_id:+ readback $rb_id}
	echo "$1 $2 $3 $4 $res events ${events:-0} lost ${lost:-0} trace_events $tev trace_lost $tlost bytes $bytes rec_rss_kb ${rss:-0} rec_cpu_ns $rcpu rec_nice ${rnice:--} kmem_kb $((${k1:-$k0} - k0))$exact$rb$mark" >>$OUT
	[ "$4" != perf ] || echo "throttle $1 $2 $3 ${throttled:-0}$rb" >>$OUT
	rm -rf $O
}

# Round 0 warms up (the first run of each tracer pays for cold
# translations under emulation) and is left out of every figure: each
# tracer once, on the first workload, and each later workload untraced
# (its own paths; a tracer's start, perf's above all, costs far more
# than a warm-up's storm).
for r in $(section race && seq $((WARMUP ? 0 : 1)) "$ROUNDS"); do
	HALVES=$((2 + r % 3)) DIV=$((r ? 1 : 10))
	for w in $WORKLOADS; do
		for t in $(rotated "$r"); do
			[ "$r" != 0 ] || [ "$w" = "${WORKLOADS%% *}" ] || [ "$t" = none ] ||
				continue
			one race "$r" "$w" "$t"
		done
	done
done
HALVES=2 DIV=1

# --- The latency the traced process sees ---------------------------------------
# SYSCALLS getppid() calls on CPU 0, each timed alone, under each tracer
# recording the race's events: the percentiles of one call's time.
up "latency: $TRACERS"
for r in $(section lat && seq "$ROUNDS"); do
	for t in $(rotated "$r"); do
		one lat "$r" syscall-lat "$t"
	done
done

# --- One tracepoint pair, five ways: what a generic event costs ---------------
# raw_syscalls/sys_enter and sys_exit, hit by the syscall storm on one
# CPU: as tring's generic events (kernel/trace/tring_generic.c, through
# perf), as tring's hand-written syscall events (its own probes on the
# same tracepoints), in trace-cmd and in perf record; interleaved rounds.
#   gen ROUND syscall-1cpu TRACER ns N cpu_ns N events N lost N ...
GEN_TRACERS=${GEN_TRACERS:-none tring-generic tring trace-cmd perf}
if [ ! -f $T/events/raw_syscalls/sys_enter/enable ]; then
	echo "gen - - tring-generic unsupported no generic raw_syscalls/sys_enter" >>$OUT
	GEN_TRACERS=$(echo $GEN_TRACERS | sed 's/tring-generic//')
fi
up "generic events: $GEN_TRACERS"
RACE_TRACERS=$TRACERS
for r in $(section gen && seq "$ROUNDS"); do
	TRACERS=$GEN_TRACERS
	for t in $(rotated "$r"); do
		case $t in
		tring-generic) TRING_EVENTS="raw_syscalls/sys_enter raw_syscalls/sys_exit" ;;
		*) TRING_EVENTS="syscalls/syscall_entry syscalls/exit_syscall" ;;
		esac
		FT_EVENTS="raw_syscalls:sys_enter raw_syscalls:sys_exit"
		one gen "$r" syscall-1cpu "$t"
	done
done
TRACERS=$RACE_TRACERS

# --- The highest event rate with no loss --------------------------------------
# One source for every tracer: getppid() paced at RATE calls a second on
# CPU 0 for RATE_MS ms (storm paced; 0: as fast as it goes), each call a
# syscall entry and an exit event (every tracer's per-system-call
# events), into RATE_BUFKB KiB per CPU; one
# run per rate and tracer, rounds interleaved.
RATES=${RATES:-200000 0}
RATE_MS=${RATE_MS:-1000}
RATE_BUFKB=${RATE_BUFKB:-1024}
info ratebufkb "$RATE_BUFKB"
info ratems "$RATE_MS"
RACE_BUFKB=$BUFKB
BUFKB=$RATE_BUFKB
TRING_EVENTS="syscalls/syscall_entry syscalls/exit_syscall"
LTTNG_EVENTS=
FT_EVENTS="syscalls:*"
RATE_TRACERS=$(echo $TRACERS | sed 's/none//')
# Streaming to LTTng's relay on the loopback, beside tring's tmpfs run.
if section rate && echo " $RATE_TRACERS " | grep -q ' tring ' && ip link set lo up && relay_bench_up; then
	RATE_TRACERS="$RATE_TRACERS tring-net"
	info relayd "$(lttng-relayd --version 2>&1 | head -n 1) on 127.0.0.1, writing to tmpfs"
fi
# shellcheck disable=SC1091
if section rate && [ -n "${HOST_RELAY:-}" ] && echo " $RATE_TRACERS " | grep -q ' tring ' &&
	. "$(dirname "$0")/guest-net.sh"; then
	RATE_TRACERS="$RATE_TRACERS tring-host"
	case ${HOST_NET:-user} in
	tap) info hostrelay "$(lttng-relayd --version 2>&1 | head -n 1) on the host (10.0.2.2, through a tap device), writing to tmpfs" ;;
	*) info hostrelay "$(lttng-relayd --version 2>&1 | head -n 1) on the host (127.0.0.1, through QEMU's user-mode network), writing to tmpfs" ;;
	esac
fi
for r in $(section rate && seq "$RATE_ROUNDS"); do
	TRACERS=$RATE_TRACERS
	for rate in $RATES; do
		for t in $(rotated "$r"); do
			one rate "$r" "paced-$rate" "$t"
		done
	done
done
TRACERS=$RACE_TRACERS
BUFKB=$RACE_BUFKB

# --- Choosing what is recorded ------------------------------------------------
# The 1-CPU syscall storm (getppid: an entry and an exit event a call),
# each tracer's syscall events on, three ways: every event recorded; only
# PID 1 tracked (tring-record -p 1, lttng track -k --pid 1, trace-cmd -P
# 1), so the storm's events are left out before any buffer; a filter
# every event fails (common_pid == 1; LTTng: $ctx.tid == 1). ns per
# event: the storm's time over the same round's untraced run, per event
# it causes (2 a call), recorded or not.
#   sel ROUND syscall-1cpu TRACER[-track|-filter] ns N cpu_ns N events N ...
run_tring_track() { TRING_OPTS="$TRING_OPTS -p 1" run_tring "$@"; }
run_tring_filter() {
	local e
	for e in syscalls/sys_getppid syscalls/exit_syscall; do
		echo 'common_pid == 1' >$T/events/$e/filter
	done
	run_tring "$@"
	for e in syscalls/sys_getppid syscalls/exit_syscall; do
		echo 0 >$T/events/$e/filter
	done
}
run_lttng_track() { LTTNG_TRACK=1 run_lttng "$@"; }
run_lttng_filter() { LTTNG_FILTER='$ctx.tid == 1' run_lttng "$@"; }
run_trace_cmd_track() { TC_OPTS="-P 1" run_trace_cmd "$@"; }
run_trace_cmd_filter() { TC_FILTER='common_pid == 1' run_trace_cmd "$@"; }
SEL_TRACERS=none
for t in $TRACERS; do
	case $t in
	tring | lttng | trace-cmd) SEL_TRACERS="$SEL_TRACERS $t $t-track $t-filter" ;;
	esac
done
RACE_TRACERS=$TRACERS
TRING_EVENTS="syscalls/sys_getppid syscalls/exit_syscall"
LTTNG_EVENTS=
LTTNG_SYSCALLS=getppid
FT_EVENTS="syscalls:sys_enter_getppid syscalls:sys_exit_getppid"
up "choosing: $SEL_TRACERS"
for r in $(section sel && seq "$ROUNDS"); do
	TRACERS=$SEL_TRACERS
	for t in $(rotated "$r"); do
		one sel "$r" syscall-1cpu "$t"
	done
done

# One process traced on a busy machine: hackbench, untraced, beside a
# syscall storm on CPU 0; tring records everything (the race's events),
# or only the storm (-p): hackbench's time in each.
#   hb ROUND hackbench none|tring-all|tring-storm ns N cpu_ns N ...
#   info hb_storms_left N   (storm processes still running after the part)
TRING_EVENTS=$RACE_TRING_EVENTS
run_tring_all() { run_tring "$@"; }
run_tring_storm() { TRING_OPTS="$TRING_OPTS -p $storm_pid" run_tring "$@"; }

# storm_bg: getppid() calls on CPU 0 in the background until storm_end.
# storm makes them in a child (its parent only waits): storm_pid is that
# child, the process -p must name, storm_parent the parent.
storm_bg() {
	local i

	storm syscall 4000000000 >/dev/null &
	storm_parent=$!
	for i in $(seq 100); do
		storm_pid=$(pgrep -P "$storm_parent" | head -n 1)
		[ -n "$storm_pid" ] && return 0
		sleep 0.1
	done
	up "hb: the storm's calling process did not start"
	storm_pid=$storm_parent
}

storm_end() {
	kill "$storm_pid" "$storm_parent" 2>/dev/null
	wait "$storm_parent" 2>/dev/null
}

for r in $(section hb && seq "$ROUNDS"); do
	TRACERS="none tring-all tring-storm"
	for t in $(rotated "$r"); do
		storm_bg
		one hb "$r" hackbench "$t"
		storm_end
	done
done
section hb && info hb_storms_left "$(pgrep -x storm | grep -c .)"
TRACERS=$RACE_TRACERS
LTTNG_SYSCALLS=

# --- The buffer alone ---------------------------------------------------------
# tring's whole write path alone: ALONE events through trace_write_inline()
# and tring_reserve()/commit() (tring_bench, payload 256 bytes, an
# overwrite buffer of 1 MiB per CPU, with no reader and with a kthread
# draining), and 64-byte events into the default buffer with
# tring-record running (bench/fill). LTTng's counterpart is the ring
# rows below (its ring-buffer library, same layer).
alone_tring() {
	local impl=$1 reader=$2 r=$3 res
	echo "$impl 256 $ALONE 1 $reader 0 1" >$T/bench/run || return
	res=$(cat $T/bench/run)
	echo "alone $r ${impl}_reader$reader payload 256 events $ALONE ns $(echo "$res" | awk '{ print $2 * n }' n="$ALONE")" >>$OUT
}
# ring ROUND: the ring buffers alone, same layer: LTTng's ring-buffer
# library (tring_bench_lttng.ko, a minimal client writing tring's record
# format) against trace_write_inline(), the same kthread loop on CPU 0,
# ALONE events of 8, 64 and 256 bytes, overwrite mode, 1 MiB per CPU,
# no reader; each row the median of 5 repetitions, the pair's order
# alternating with the round.
#   ring ROUND IMPL PAYLOAD ns_per_event N
ring_alone() {
	local r=$1 p impl order="tring_inline lttng_rb"
	[ $((r % 2)) = 0 ] && order="lttng_rb tring_inline"
	for p in 8 64 256; do
		for impl in $order; do
			echo "$impl $p $ALONE 1 0 0 5" >$T/bench/run || continue
			echo "ring $r $impl $p ns_per_event $(awk '{ print $2 }' $T/bench/run)" >>$OUT
		done
	done
}
alone_fill() {
	local pid res
	rm -rf $O
	# TRING_OPTS: more tring-record options, for experiments.
	# shellcheck disable=SC2086
	tring-record -q -f -b "$BUFKB" -s "$SUBBUFKB" --discard --nice 0 $TRING_OPTS -o $O &
	pid=$!
	tring_recording $pid
	echo "tring $ALONE 0" >$T/bench/fill
	res=$(cat $T/bench/fill)
	kill -TERM $pid
	wait $pid
	echo "alone $1 tring_fill_recorded payload 64 events $(echo "$res" | awk '{ print $2 }') ns $(echo "$res" | awk '{ print $6 }') lost $(($(sed -n 's/^total\.lost=//p' $O/.tring-record.summary) - $(sed -n 's/^total\.lost_at_start=//p' $O/.tring-record.summary)))" >>$OUT
}
lttng_rb=0
echo "$TRACERS" | grep -q lttng && [ -f /dev/shm/mod/tring_bench_lttng.ko ] &&
	modprobe lttng-tracer 2>/dev/null &&
	insmod /dev/shm/mod/tring_bench_lttng.ko && lttng_rb=1
up "the buffer alone"
for r in $(section alone && seq "$ROUNDS"); do
	[ $lttng_rb = 1 ] && ring_alone "$r"
	alone_tring tring_inline 0 "$r"
	alone_tring tring_inline 1 "$r"
	alone_tring tring_reserve 0 "$r"
	alone_fill "$r"
done
section alone && [ $lttng_rb = 0 ] && echo "ring - - lttng_rb unsupported LTTng's ring-buffer library is not built for Linux $K" >>$OUT
lsmod | grep -q '^tring_bench_lttng ' && rmmod tring_bench_lttng

info perf_rate_end "$(cat /proc/sys/kernel/perf_event_max_sample_rate)"
up "done"
# shellcheck disable=SC2046
pidof lttng-sessiond >/dev/null && kill $(pidof lttng-sessiond)
rmmod tring_bench tring
echo "done" >$R/done
sync
umount $R
echo b >/proc/sysrq-trigger
