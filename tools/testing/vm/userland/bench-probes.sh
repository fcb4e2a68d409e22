#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of make bench's dynamic-probe benchmark (run-guest.sh: the host's
# Debian userland over 9p): one kernel function, tring_test.ko's
# tring_test_probe_target(), called CALLS times from one write to
# test/probe ("CALLS SEED fast": no snprintf() per call), untraced and
# under each tracer's probe on it, every tracer recording to tmpfs with
# its reader running. What a hit costs: the traced run's time minus the
# same round's untraced run, over CALLS.
#
#   none             untraced
#   tring-kprobe     p:pbench/entry ... a=%di:u64 b=%si:s32, tring-record
#   tring-kprobe-bare p:pbench/bare ... with no argument: what LTTng's
#                    --probe records (the address; tring adds the pid)
#   tring-bare-noreader (not in the default list) the same with no
#                    reader running during the calls: tring-record
#                    drains the buffer after them
#   tring-kretprobe  r:pbench/ret ... ret=$retval:s64, tring-record
#   tring-function   functions = the function, event ftrace/function
#   tring-floor      the kprobe enabled, tracking/pid holding kthreadd
#                    (never the caller): the trap and the tracking check,
#                    nothing recorded
#   tring-retfloor   the same for the kretprobe
#   tring-funcfloor  the same for function entry: the function event
#                    enabled, tracking/pid holding kthreadd: ftrace's
#                    trampoline, tring's callback to its tracking check
#   ftrace-kprobe, ftrace-kretprobe: the same definitions in tracefs'
#                    kprobe_events, trace-cmd record -e pbench/...
#   ftrace-function  trace-cmd record -p function -l the function
#   perf-kprobe, perf-kretprobe: perf probe (tracefs' kprobe_events when
#                    perf probe cannot), perf record -e probe:... -a
#   lttng-probe      lttng enable-event -k --probe (no arguments: LTTng's
#                    kprobe events record the address alone)
#   lttng-function   lttng enable-event -k --function: a kretprobe, an
#                    entry and a return event per call
#   tring-ctx-ids, tring-ctx-kstack, tring-ctx-ustack, tring-ctx-stacks,
#   tring-ctx-perf   tring-kprobe with -C pid,tid,procname; callstack-
#                    kernel; callstack-user; both stacks; perf:cpu:cpu-clock
#   lttng-ctx-ids, lttng-ctx-kstack, lttng-ctx-ustack, lttng-ctx-perf:
#                    lttng-probe with lttng add-context -k of the same
#   perf-kprobe-g    perf-kprobe with -g (kernel and user call chains)
#
# /results/env (scripts/bench-probes.sh) sets MODDIR, TOOLS, ROUNDS,
# WARMUP, CALLS, BUFKB, SUBBUFKB, CHECK, CONTEXTS and may narrow TRACERS.
# A failed run leaves its logs' ends in /results/failed-TRACER-ROUND.log.
# Every recorder runs at nice 0, as the writer does (tring-record
# --nice 0: its default is -10). Result lines go to /results/probes.txt:
#
#   info KEY VALUE...
#   probe ROUND TRACER ns N calls N events N|- lost N missed N|- trace_events N|-
#	mark TAG (the run's marks, when the host's QEMU counts instructions)
#   probe - TRACER unsupported REASON...
#   probe ROUND TRACER FAILED
#
# Then it reboots (QEMU exits); /results/done says it finished.

# The tracer lists are split into words on purpose; $retval and the timed
# writer's script are literal text.
# shellcheck disable=SC2086,SC2016,SC2116

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
R=/results
# shellcheck disable=SC1091
. $R/env
ROUNDS=${ROUNDS:-7}
WARMUP=${WARMUP:-1}
# 50,000 calls: the medians of 7 rounds held their intervals within
# 0.1 of a ratio (2026-11-29), in a quarter of 200,000's time.
CALLS=${CALLS:-50000}
BUFKB=${BUFKB:-4096}
SUBBUFKB=${SUBBUFKB:-64}
# CHECK=1: round 1's traces read back and their events counted (slow
# under emulation); 0 (the default): the counts the tracers report.
CHECK=${CHECK:-0}
TRACERS=${TRACERS:-none tring-kprobe tring-kprobe-bare tring-kretprobe tring-function tring-floor tring-retfloor tring-funcfloor
ftrace-kprobe ftrace-kretprobe ftrace-function perf-kprobe perf-kretprobe lttng-probe lttng-function
tring-ctx-ids tring-ctx-kstack tring-ctx-ustack tring-ctx-stacks tring-ctx-perf
lttng-ctx-ids lttng-ctx-kstack lttng-ctx-ustack lttng-ctx-perf perf-kprobe-g}
# CONTEXTS=0 (the host's default on kernels other than 6.1, where
# LTTng does not run): the contexts' rows left out of the default list
[ "${CONTEXTS:-1}" = 1 ] ||
	TRACERS=$(echo $TRACERS | tr ' ' '\n' | grep -vE '^(tring|lttng)-ctx-|^perf-kprobe-g$')
TRACERS=$(echo $TRACERS)

# shellcheck disable=SC1091
. "$(dirname "$0")/mounts.sh"
# perf_stats and count_perf: how the race reads perf's file too
# shellcheck disable=SC1091
. "$(dirname "$0")/race-count.sh"
userland_mounts
# The tools may lie under /tmp (a CI clone), which the tmpfs hides.
S=/dev/shm/bin
mkdir -p $S /dev/shm/mod
cp "$TOOLS/tring-record" $S/
# The instruction counter's mark (tools/testing/insn), when the host's
# QEMU counts: INSNTOOLS in /results/env.
[ -z "${INSNTOOLS:-}" ] || cp "$INSNTOOLS/insn_mark" $S/
cp "$MODDIR"/tring.ko "$MODDIR"/tring_test.ko /dev/shm/mod/
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
exec > >(tee $R/guest.log >/dev/console) 2>&1
cd /tmp || exit 1
export PATH=$S:$PATH

OUT=$R/probes.txt
O=/tmp/out
T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
FN=tring_test_probe_target
ARGS='a=%di:u64 b=%si:s32'
RET='ret=$retval:s64'
NCPU=$(nproc)
: >$OUT

info() { echo "info $*" >>$OUT; }
# up WHAT: a progress line with the guest's uptime
up() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
# unsupported TRACER REASON: say so in the results, leave it out
unsupported() {
	echo "probe - $1 unsupported ${*:2}" >>$OUT
	TRACERS=$(echo " $TRACERS " | sed "s/ $1 / /; s/^ //; s/ $//")
}

up "userland up"
info kernel "$(uname -r)"
info cpus "$NCPU"
info clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
info calls "$CALLS"
info bufkb "$BUFKB"
info subbufkb "$SUBBUFKB"
info nice "0 (every recorder and the writer; tring-record --nice 0)"
insmod /dev/shm/mod/tring.ko || { info error "insmod tring.ko failed"; reboot -f; }
insmod /dev/shm/mod/tring_test.ko || { info error "insmod tring_test.ko failed"; reboot -f; }
info tring "$(cat /sys/module/tring/version 2>/dev/null || echo tree) (this tree, insmod)"
info trace-cmd "$(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }') (Debian)"
info perf "$(perf --version | awk '{ print $3 }') (Debian)"
# perf unthrottled, as in the race (bench-race.sh): a probe hit is a
# sample. The rate first: it cannot be written once the check is off.
echo 100000000 >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent

# --- Each tracer's support on this kernel --------------------------------------
[ -f $T/kprobe_events ] || for t in tring-kprobe tring-kretprobe tring-floor tring-retfloor; do
	unsupported $t "no kprobe_events in this tring"
done
[ -f $T/functions ] || for t in tring-function tring-funcfloor; do
	unsupported $t "no functions file in this tring"
done
if [ ! -f $TR/kprobe_events ]; then
	for t in ftrace-kprobe ftrace-kretprobe perf-kprobe perf-kretprobe; do
		unsupported $t "no kprobe_events in tracefs"
	done
fi
grep -q "^$FN\b" $TR/available_filter_functions ||
	unsupported ftrace-function "$FN is not in available_filter_functions"
if ! echo "$TRACERS" | grep -q lttng; then
	:
elif modprobe lttng-tracer 2>/tmp/lttng.err && lttng-sessiond --daemonize 2>>/tmp/lttng.err; then
	modprobe lttng-kprobes 2>/dev/null
	modprobe lttng-kretprobes 2>/dev/null
	info lttng "$(lttng --version | grep -o '[0-9][0-9.]*' | head -n 1) modules $(modinfo -F version lttng-tracer)"
else
	for t in lttng-probe lttng-function lttng-ctx-ids lttng-ctx-kstack lttng-ctx-ustack lttng-ctx-perf; do
		unsupported $t "lttng-modules $(modinfo -F version lttng-tracer 2>/dev/null || echo 2.13.9)" \
			"does not load on Linux $(uname -r)"
	done
fi

# --- Helpers -------------------------------------------------------------------
# calls: CALLS calls of the function from one write, on CPU 0, at nice 0;
# prints the write's time in ns (bash's clock, no fork inside the timing).
# With the instruction counter, the run's tag (mark_seq) is marked just
# before and after the timed span (insn_mark: a fork and exec on each
# side, the same in every run, which the untraced run's count takes out).
calls() {
	local m=:
	[ ! -x $S/insn_mark ] || m=$S/insn_mark
	taskset -c 0 nice -n 0 bash -c '"$2" "$3"; t0=${EPOCHREALTIME/./}
		echo "$1 7 fast" >'"$T"'/test/probe || exit 1
		t1=${EPOCHREALTIME/./}
		"$2" "$3"
		echo $(((t1 - t0) * 1000))' calls "$CALLS" "$m" "$mark_seq"
}

# rec_start LOG CMD...: start a recorder in the background; rec_pid
rec_start() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	rec_pid=$!
}

# rec_stop: SIGINT to the recorder and its children (trace-cmd's
# readers), then wait for it
rec_stop() {
	kill -INT $(pgrep -P "$rec_pid") "$rec_pid" 2>/dev/null
	wait "$rec_pid"
}

# ready TEST: wait up to 60 s for TEST to hold, then 0.5 s
ready() {
	local i
	for i in $(seq 600); do
		if "$@"; then
			sleep 0.5
			return 0
		fi
		sleep 0.1
	done
	up "$1: the recorder was not ready after 60 s"
	return 1
}

# tring_up: tring-record records into $O (its metadata made)
tring_up() { kill -0 "$rec_pid" 2>/dev/null && [ -f $O/kernel/metadata ]; }
# tc_up EVENT_ENABLE_FILE|function: trace-cmd's per-CPU readers forked
# and the event (or the function tracer) on
tc_up() {
	[ "$(pgrep -c -P "$rec_pid")" -ge "$NCPU" ] && [ "$(cat $TR/tracing_on)" = 1 ] || return 1
	if [ "$1" = function ]; then
		[ "$(cat $TR/current_tracer)" = function ]
	else
		[ "$(cat "$1")" = 1 ]
	fi
}
# perf_up: one event file per CPU open
perf_up() { [ "$(find /proc/"$rec_pid"/fd -lname '*perf_event*' 2>/dev/null | wc -l)" -ge "$NCPU" ]; }

# ftrace_missed NAME: the misses tracefs' kprobe_profile counts for NAME
ftrace_missed() { awk -v n="$1" '$1 == n { print $3 }' $TR/kprobe_profile; }

# Each run_TRACER ROUND sets ns (the calls' time), events (recorded, as
# the tracer reports them; - if it does not), lost, missed, tev (the
# events read back from the trace, with RB=1; else -).

run_none() { ns=$(calls); events=0 lost=0; }

# tring_rec ARG...: tring-record to $O with ARG..., recording (its
# metadata made); 1 if it does not start
tring_rec() {
	rec_start /tmp/tring.log tring-record -q --no-statedump --nice 0 -o $O \
		--summary /tmp/tring.summary "$@"
	ready tring_up || { rec_stop; return 1; }
}

# tring_stop [made]: stop tring-record (it takes the rest at its stop);
# events and lost from its summary: the losses since it started, or
# with "made" every loss since the buffer was made
tring_stop() {
	local s=/tmp/tring.summary l0=0
	kill -TERM "$rec_pid"
	wait "$rec_pid"
	events=$(sed -n 's/^total\.events=//p' $s)
	[ "${1:-}" = made ] || l0=$(sed -n 's/^total\.lost_at_start=//p' $s)
	lost=$(($(sed -n 's/^total\.lost=//p' $s) - l0))
}

# tring_calls EVENT [TRACK]: the calls timed with EVENT enabled (TRACK:
# tracking/pid meanwhile)
tring_calls() {
	[ -z "${2:-}" ] || echo "$2" >$T/tracking/pid
	echo 1 >$T/events/"$1"/enable
	ns=$(calls)
	echo 0 >$T/events/"$1"/enable
	: >$T/tracking/pid
}

# tring_run DEF EVENT [TRACK]: tring-record to $O with the probe DEF
# (kprobe_events) or the function set (DEF "function") enabled as EVENT;
# TRACK: tracking/pid during the calls
tring_run() {
	local def=$1 ev=$2
	rm -rf $O
	if [ "$def" = function ]; then
		echo $FN >$T/functions || return
	else
		echo "$def" >$T/kprobe_events || return
	fi
	# shellcheck disable=SC2046
	tring_rec -b "$BUFKB" -s "$SUBBUFKB" --discard \
		$([ -z "${CTX:-}" ] || echo -C "$CTX") || return
	tring_calls "$ev" "${3:-}"
	tring_stop
	if [ "$def" = function ]; then : >$T/functions; else : >$T/kprobe_events; fi
	[ "$RB" = 1 ] && tev=$(babeltrace2 $O 2>/dev/null | grep -c "$(basename "$ev"):")
}
run_tring_kprobe() { tring_run "p:pbench/entry $FN $ARGS" pbench/entry; }
run_tring_kprobe_bare() { tring_run "p:pbench/bare $FN" pbench/bare; }
run_tring_kretprobe() { tring_run "r:pbench/ret $FN $RET" pbench/ret; }
run_tring_function() { tring_run function ftrace/function; }
run_tring_floor() { tring_run "p:pbench/entry $FN $ARGS" pbench/entry 2; }
run_tring_retfloor() { tring_run "r:pbench/ret $FN $RET" pbench/ret 2; }
run_tring_funcfloor() { tring_run function ftrace/function 2; }
# The bare kprobe with no reader during the calls: tring-record (no -b:
# the buffer as it is) drains it after them; a loss since the buffer
# was made marks the round, never one that looks cheaper.
run_tring_bare_noreader() {
	echo "p:pbench/bare $FN" >$T/kprobe_events || return
	tring_calls pbench/bare
	rm -rf $O
	tring_rec && tring_stop made
	: >$T/kprobe_events
}
# The kprobe with contexts: CTX for tring-record -C.
run_tring_ctx_ids() { CTX=pid,tid,procname run_tring_kprobe; }
run_tring_ctx_kstack() { CTX=callstack-kernel run_tring_kprobe; }
run_tring_ctx_ustack() { CTX=callstack-user run_tring_kprobe; }
run_tring_ctx_stacks() { CTX=callstack-kernel,callstack-user run_tring_kprobe; }
run_tring_ctx_perf() { CTX=perf:cpu:cpu-clock run_tring_kprobe; }

# tc_run WHAT READY ARG...: trace-cmd record ARG... to $O; WHAT names
# the kprobe (missed count) or is "function"
tc_run() {
	local what=$1 rdy=$2 m0
	shift 2
	rm -rf $O
	mkdir -p $O
	m0=$(ftrace_missed "$what")
	# --no-filter: no hidden filter on trace-cmd's own pid (as in the
	# race); -C mono; file version 6: uncompressed, as the others.
	rec_start /tmp/tc.log trace-cmd record --no-filter -C mono --file-version 6 \
		-b "$BUFKB" -o $O/trace.dat "$@"
	ready tc_up "$rdy" || { rec_stop; return; }
	ns=$(calls)
	rec_stop
	trace-cmd report --stat -i $O/trace.dat >>/tmp/tc.log 2>&1
	events=$(awk '/^read events:/ { s += $3 } END { print s + 0 }' /tmp/tc.log)
	lost=$(awk '/^dropped events:/ { s += $3 } /^overrun:/ { s += $2 } END { print s + 0 }' /tmp/tc.log)
	[ "$what" = function ] || missed=$(($(ftrace_missed "$what") - ${m0:-0}))
	[ "$RB" = 1 ] && tev=$(trace-cmd report -i $O/trace.dat 2>/dev/null | grep -cE '^ +.+\[[0-9]+\] ')
}
# ft_kprobe DEF NAME: DEF in tracefs' kprobe_events, recorded
ft_kprobe() {
	echo "$1" >>$TR/kprobe_events || return
	tc_run "$2" $TR/events/pbench/"$2"/enable -e pbench/"$2"
	echo "-:pbench/$2" >>$TR/kprobe_events
}
run_ftrace_kprobe() { ft_kprobe "p:pbench/entry $FN $ARGS" entry; }
run_ftrace_kretprobe() { ft_kprobe "r:pbench/ret $FN $RET" ret; }
run_ftrace_function() {
	tc_run function function -p function -l $FN
	echo nop >$TR/current_tracer
	: >$TR/set_ftrace_filter
}

# perf_define NAME SPEC: perf probe's event on SPEC (a function, or
# FUNC%return) with ARGS..., its name in perf_ev: probe:NAME, or
# probe:NAME__return, the name perf probe gives a return probe it
# makes from a module's symbol; tracefs' kprobe_events (probe:NAME)
# where perf probe cannot (no debug information for the module) or
# made none: what perf probe would write there itself. perf probe runs
# once a name; later runs write the line it made back to kprobe_events.
perf_define() {
	local name=$1 spec=$2 why n line
	shift 2
	# perf probe's line, once made, written back as it wrote it: the
	# same probe, without perf probe's 20 s a run under emulation.
	line=$(cat "/tmp/perf-line.$name" 2>/dev/null)
	if [ -n "$line" ] && echo "$line" >>$TR/kprobe_events; then
		perf_ev=${line%% *}
		perf_ev=${perf_ev##*/}
		return 0
	fi
	if perf probe -q -a "$name=$spec $*" 2>>/tmp/perf-probe.log ||
		perf probe -q -m /dev/shm/mod/tring_test.ko -a "$name=$spec $*" 2>>/tmp/perf-probe.log; then
		for n in $name ${name}__return; do
			[ -d $TR/events/probe/$n ] || continue
			perf_ev=$n
			perf_how "$name" "perf probe (probe:$n)"
			grep -E "^[pr][0-9]*:probe/$n " $TR/kprobe_events >"/tmp/perf-line.$name"
			return 0
		done
		why="perf probe succeeded, no events/probe/$name in tracefs"
	else
		why="perf probe failed: $(tail -n 1 /tmp/perf-probe.log)"
	fi
	case $spec in
	*%return) echo "r:probe/$name ${spec%\%return} $*" >>$TR/kprobe_events ;;
	*) echo "p:probe/$name $spec $*" >>$TR/kprobe_events ;;
	esac || return
	perf_ev=$name
	perf_how "$name" "tracefs' kprobe_events ($why)"
}

# perf_how NAME HOW: how probe:NAME was made, each way once
perf_how() {
	grep -qxF "info perf_probe_$1 $2" $OUT || info "perf_probe_$1" "$2"
}

# perf_run NAME: perf record -e probe:NAME -a to $O, its events enabled
# through its control fifo once it acknowledged (as in the race)
perf_run() {
	local ack m0 nlost
	rm -rf $O /tmp/perf.ctl /tmp/perf.ack
	mkdir -p $O
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	m0=$(ftrace_missed "$1")
	# shellcheck disable=SC2086
	rec_start /tmp/perf.log perf record -B -N -a -k mono -m $((BUFKB / 4)) -e "probe:$1" ${PERF_G:-} \
		-D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack -o $O/perf.data
	ready perf_up || { rec_stop; return; }
	echo enable >/tmp/perf.ctl &
	read -r -t 30 ack </tmp/perf.ack
	[ "$ack" = ack ] || { up "perf: no ack for enable"; rec_stop; return; }
	ns=$(calls)
	rec_stop
	# THROTTLE records (samples the kernel skipped) and LOST records'
	# losses (the ring was full, plus one: the record itself marks the
	# round) both count as lost; perf script (race-count.sh) only
	# where there are LOST records: under emulation it takes longer
	# than the recording
	read -r lost events nlost <<<"$(perf_stats $O/perf.data)"
	[ "$nlost" = 0 ] || lost=$((lost + 1 + $(count_perf $O/perf.data | cut -d' ' -f2)))
	missed=$(($(ftrace_missed "$1") - ${m0:-0}))
	[ "$RB" = 1 ] && tev=$events
}
# perf_probe NAME SPEC ARG...: perf's probe made (perf_define),
# recorded (perf_run) and removed as perf probe -d removes it (its line
# in tracefs' kprobe_events: one start of perf less a run, seconds
# under emulation, after the measured calls)
perf_probe() {
	perf_define "$@" || return
	perf_run "$perf_ev"
	echo "-:probe/$perf_ev" >>$TR/kprobe_events
}
run_perf_kprobe() { perf_probe pentry $FN "$ARGS"; }
run_perf_kprobe_g() { PERF_G=-g run_perf_kprobe; }
run_perf_kretprobe() { perf_probe pret "$FN%return" "$RET"; }

# lttng_run OPTION NAME: a kernel session, LTTng's channel of the same
# size per CPU, one probe event (OPTION --probe or --function)
lttng_run() {
	rm -rf $O
	lttng create pbench --output=$O >/dev/null || return
	if ! lttng enable-channel -k --discard --subbuf-size="${SUBBUFKB}k" \
		--num-subbuf=$((BUFKB / SUBBUFKB)) ch >/dev/null ||
		! lttng enable-event -k -c ch "$1" $FN "$2" >/tmp/lttng.enable 2>&1 ||
		! lttng_context; then
		lttng destroy >/dev/null 2>&1
		return
	fi
	lttng start >/dev/null
	ns=$(calls)
	lttng stop >/tmp/lttng.stop 2>&1
	lttng destroy >/dev/null 2>&1
	lost=$(sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' /tmp/lttng.stop | head -n 1)
	lost=${lost:-0}
	# LTTng reports no count of what it recorded: the trace's.
	events=-
	[ "$RB" = 1 ] && tev=$(babeltrace2 $O 2>/dev/null | grep -c " $2") && events=$tev
}
# lttng_context: LCTX's contexts (add-context -t each) on the channel
lttng_context() {
	local c args=()
	for c in ${LCTX:-}; do
		args+=(-t "$c")
	done
	[ ${#args[@]} = 0 ] || lttng add-context -k -c ch "${args[@]}" >>/tmp/lttng.enable 2>&1
}
run_lttng_probe() { lttng_run --probe pentry; }
run_lttng_ctx_ids() { LCTX="pid tid procname" run_lttng_probe; }
run_lttng_ctx_kstack() { LCTX=callstack-kernel run_lttng_probe; }
run_lttng_ctx_ustack() { LCTX=callstack-user run_lttng_probe; }
run_lttng_ctx_perf() { LCTX=perf:cpu:cpu-clock run_lttng_probe; }
run_lttng_function() { lttng_run --function pfunc; }

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

# one ROUND TRACER: one run, one result line; with CHECK=1 the trace
# read back in round 1; a failed run's logs kept in /results
mark_seq=0
one() {
	RB=0
	[ "$1" = 1 ] && RB=$CHECK
	ns='' events=- lost=- missed=- tev=-
	mark_seq=$((mark_seq + 1))
	up "round $1 $2"
	sync
	"run_${2//-/_}" "$1"
	if [ -z "$ns" ]; then
		echo "probe $1 $2 FAILED" >>$OUT
		tail -n 20 /tmp/*.log /tmp/lttng.* >"$R/failed-$2-$1.log" 2>&1
		return
	fi
	echo "probe $1 $2 ns $ns calls $CALLS events ${events:--} lost ${lost:--} missed ${missed:--} trace_events $tev mark $mark_seq" >>$OUT
	rm -rf $O
}

up "tracers: $TRACERS"
# Round 0 warms up (cold translations under emulation): left out.
for r in $(seq $((WARMUP ? 0 : 1)) "$ROUNDS"); do
	for t in $(rotated "$r"); do
		one "$r" "$t"
	done
done
[ ! -s /tmp/lttng.enable ] || info lttng_enable "$(tr '\n' ' ' </tmp/lttng.enable)"
cp /tmp/tc.log /tmp/perf.log /tmp/perf-probe.log /tmp/tring.log $R/ 2>/dev/null

up "done"
# shellcheck disable=SC2046
pidof lttng-sessiond >/dev/null && kill $(pidof lttng-sessiond)
rmmod tring_test tring
echo "done" >$R/done
sync
umount $R
echo b >/proc/sysrq-trigger
