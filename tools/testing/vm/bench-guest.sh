#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark, inside one guest: every figure is measured beside its
# reference in the same run, and rounds interleave the implementations so
# drift of the emulated machine hits them alike; each round starts the
# rotation at the next implementation, so none is always first or last. Output lines go to
# /results/bench.txt; scripts/bench.sh turns them into the table.
#
#   write IMPL PAYLOAD CPUS READER NESTED ns_per_event X min X max X events N round R
#   read READER bytes N ns N user_ns N sys_ns N syscalls N
#   sustain READER RATE written N failed N ns N lost N
#   generic IMPL ns_per_event X calls N round R, generic_all ... (below)
#   select IMPL ns_per_event X calls N round R (below)
#
# Environment: ROUNDS (default 5), EVENTS (per write run, default 200000),
# FILL (events per read run, default 200000), RATES (events per second of
# the sustained runs, 0 for full speed; one second each), QUICK=1 for a
# smoke run, ONLY=select for the select side alone.

T=/sys/kernel/debug/tring
B=$T/bench
# recording (tap.sh, in /tests beside this script)
. "$(dirname "$0")/tap.sh"
OUT=/results/bench.txt
ROUNDS=${ROUNDS:-5}
EVENTS=${EVENTS:-200000}
FILL=${FILL:-200000}
RATES=${RATES:-250000 500000 1000000 2000000 0}
FULL_SPEED_EVENTS=2000000
IMPLS="tring_inline tring_reserve ftrace_reserve ftrace_write relay floor"
# payload cpus reader nested
CASES="8:1:0:0 64:1:0:0 256:1:0:0 8:all:0:0 64:all:0:0 256:all:0:0
8:1:1:0 64:1:1:0 8:1:0:1 64:1:0:1"

if [ -n "${QUICK:-}" ]; then
	ROUNDS=1
	EVENTS=2000
	FILL=2000
	RATES="20000 0"
	FULL_SPEED_EVENTS=20000
	CASES="8:1:0:0 64:all:1:1"
fi

: >$OUT
# The module's default shape (its parameters: the knobs may have been
# changed since it loaded).
P=/sys/module/tring/parameters
DEFAULT_SUBBUF_KB=$(($(cat $P/subbuf_size) / 1024))
DEFAULT_KB=$((DEFAULT_SUBBUF_KB * $(cat $P/subbuf_count)))
echo "default_buffer kb $DEFAULT_KB subbuf_kb $DEFAULT_SUBBUF_KB" >>$OUT
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
# Enabling an ftrace event normally also records comms through a probe on
# sched_switch, which patches that tracepoint's call site in
# __schedule() while the other CPU runs it: under QEMU TCG that
# cross-modification wedged a vCPU once. Only the benchmark's own
# tracepoint is needed; patching it is safe (nothing runs it meanwhile).
echo 0 >/sys/kernel/tracing/options/record-cmd 2>/dev/null

# The implementations, rotated to start at the Nth.
rotated() {
	local n=$1 i=0 first="" rest="" impl cnt

	cnt=$(echo $IMPLS | wc -w)
	for impl in $IMPLS; do
		if [ $((i % cnt)) -lt $((n % cnt)) ]; then
			rest="$rest $impl"
		else
			first="$first $impl"
		fi
		i=$((i + 1))
	done
	echo $first $rest
}

write_side() {
	local r c impl payload cpus reader nested res

	for r in $(seq "$ROUNDS"); do
		for c in $CASES; do
			IFS=: read -r payload cpus reader nested <<EOC
$c
EOC
			for impl in $(rotated "$r"); do
				if ! echo "$impl $payload $EVENTS $cpus $reader $nested 1" >$B/run; then
					echo "write $impl $payload $cpus $reader $nested FAILED" >>$OUT
					continue
				fi
				res=$(cat $B/run)
				echo "write $impl $payload $cpus $reader $nested $res round $r" >>$OUT
			done
		done
	done
}

# tring: fill CPU 0 of a 16 MiB-per-CPU discard buffer, then time
# tring-record draining it to tmpfs.
read_tring() {
	local line written bytes ns user sys calls

	echo 64 >$T/buffer_subbuf_size_kb
	echo 16384 >$T/buffer_size_kb
	echo 0 >$T/overwrite
	echo "tring $FILL 0" >$B/fill
	rm -rf /tmp/rec
	# No statedump: the reader alone is measured, on the fill alone.
	tring-record -q -o /tmp/rec -c 0 -d 0.001 --no-statedump 2>/dev/null
	s=/tmp/rec/.tring-record.summary
	bytes=$(sed -n 's/^cpu0\.bytes=//p' $s)
	ns=$(sed -n 's/^drain_ns=//p' $s)
	[ -n "$ns" ] || ns=$(sed -n 's/^duration_ns=//p' $s)
	user=$(sed -n 's/^user_ns=//p' $s)
	sys=$(sed -n 's/^sys_ns=//p' $s)
	calls=$(sed -n 's/^syscalls=//p' $s)
	echo "read tring-record bytes $bytes ns $ns user_ns ${user:-0} sys_ns ${sys:-0} syscalls ${calls:-0} lost $(sed -n 's/^cpu0\.lost=//p' $s)" >>$OUT
	echo "read dd bytes $bytes $(ftrace_read dd "$bytes" /tmp/dd | cut -d' ' -f3-)" >>$OUT
	rm -rf /tmp/rec /tmp/dd
}

# ftrace_start KB: an empty ftrace buffer of KB per CPU, discard mode, with
# only the tring_bench event enabled; fails if the kernel lacks the event.
ftrace_start() {
	local tr=/sys/kernel/tracing

	[ -d $tr/events/tring_bench ] || return 1
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo "$1" >$tr/buffer_size_kb
	echo 0 >$tr/options/overwrite
	echo 1 >$tr/events/tring_bench/enable
	echo 1 >$tr/tracing_on
}

# ftrace: the same events through the tring_bench:tring_bench_event trace
# event into ftrace's buffer, drained by ftrace_read MODE.
read_ftrace() {
	local mode=$1 tr=/sys/kernel/tracing

	ftrace_start 16384 || return
	echo "ftrace $FILL 0" >$B/fill
	echo 0 >$tr/events/tring_bench/enable
	if res=$(ftrace_read "$mode" 0 /tmp/ftrace 2>/dev/null); then
		echo "read ftrace_$mode $res" >>$OUT
	else
		echo "read ftrace_$mode unsupported" >>$OUT
	fi
	rm -f /tmp/ftrace
	echo 0 >$tr/tracing_on
	echo 1408 >$tr/buffer_size_kb
}

# Sustained: the producer writes 64-byte events on CPU 0, at RATE events
# per second for one second (or FULL_SPEED_EVENTS as fast as it can),
# into a 1 MiB-per-CPU buffer, while the reader drains it from CPU 1.
fill_args() {
	if [ "$1" = 0 ]; then
		echo "$FULL_SPEED_EVENTS 0"
	else
		echo "$1 0 $1"
	fi
}

# READER is tring-record (1 MiB per CPU, woken at every sub-buffer, as
# ftrace's readers below) or tring-default (the module's default shape,
# tring-record's default watermark: as an operator runs it).
sustain_tring() {
	local reader=$1 rate=$2 pid fill

	if [ "$reader" = tring-default ]; then
		echo "$DEFAULT_SUBBUF_KB" >$T/buffer_subbuf_size_kb
		echo "$DEFAULT_KB" >$T/buffer_size_kb
		set --
	else
		echo 64 >$T/buffer_subbuf_size_kb
		echo 1024 >$T/buffer_size_kb
		set -- -w 1
	fi
	echo 0 >$T/overwrite
	rm -rf /tmp/rec
	taskset 2 tring-record -q -o /tmp/rec -c 0 "$@" --no-statedump &
	pid=$!
	recording /tmp/rec $pid
	echo "tring $(fill_args "$rate")" >$B/fill
	fill=$(cat $B/fill)
	kill -INT $pid
	wait $pid
	echo "sustain $reader $rate $fill lost $(sed -n 's/^cpu0\.lost=//p' /tmp/rec/.tring-record.summary)" >>$OUT
	rm -rf /tmp/rec
}

sustain_ftrace() {
	local mode=$1 rate=$2 tr=/sys/kernel/tracing pid fill

	ftrace_start 1024 || return
	taskset 2 ftrace_read "$mode-follow" 0 /tmp/ftrace >/tmp/ftrace.res 2>/dev/null &
	pid=$!
	sleep 0.5
	echo "ftrace $(fill_args "$rate")" >$B/fill
	fill=$(cat $B/fill)
	echo 0 >$tr/events/tring_bench/enable
	kill -TERM $pid
	if wait $pid; then
		echo "sustain ftrace_$mode $rate $fill lost $(sed -n 's/^dropped events: //p' $tr/per_cpu/cpu0/stats)" >>$OUT
	else
		echo "sustain ftrace_$mode $rate unsupported" >>$OUT
	fi
	rm -f /tmp/ftrace /tmp/ftrace.res
	echo 0 >$tr/tracing_on
	echo 1408 >$tr/buffer_size_kb
}

# Generic events (a kernel event through perf, tring_generic.c): one
# tracepoint, raw_syscalls/sys_enter, hit by dd's 1-byte read()/write()
# pairs, as tring's generic event, as tring's hand-written
# syscalls/syscall_entry and in ftrace; wall time over no tracing, per
# event, interleaved rounds. Then every generic event at once: time to
# enable and disable, slab and per-CPU memory.
#   generic IMPL ns_per_event X calls N round R
#   generic_all enable_ms X disable_ms X events N cpus N mem_kib X
GEN_CALLS=${GEN_CALLS:-100000}
# The monotonic clock in ns (/proc/uptime counts only centiseconds).
now_ns() {
	sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list
}
# dd_ns: dd's GEN_CALLS read() and write() calls, timed
dd_ns() {
	local t0=$(now_ns)

	dd if=/dev/zero of=/dev/null bs=1 count=$((GEN_CALLS / 2)) 2>/dev/null
	echo $(($(now_ns) - t0))
}
generic_on() {
	case $1 in
	generic) echo "$2" >$T/events/raw_syscalls/sys_enter/enable ;;
	handwritten) echo "$2" >$T/events/syscalls/syscall_entry/enable ;;
	ftrace) echo "$2" >/sys/kernel/tracing/events/raw_syscalls/sys_enter/enable ;;
	esac
}
generic_side() {
	local r impl t t_none t_generic t_handwritten t_ftrace t0 t1 t0b m0 m1 on

	# The kernel's events, offered as generic events (tring.rst).
	cat /sys/kernel/tracing/available_events >$T/events/generic_events

	[ -f $T/events/raw_syscalls/sys_enter/enable ] || return
	echo 4 >$T/buffer_subbuf_size_kb
	echo 1024 >$T/buffer_size_kb
	echo 1 >$T/overwrite
	echo 1 >/sys/kernel/tracing/tracing_on
	# Each round rotates the order (no tracing and each implementation),
	# so no run is always first; a traced run is over its round's none.
	for r in $(seq "$ROUNDS"); do
		for impl in $(IMPLS="none generic handwritten ftrace" rotated "$r"); do
			generic_on $impl 1
			eval "t_$impl=$(dd_ns)"
			generic_on $impl 0
		done
		for impl in generic handwritten ftrace; do
			eval "t=\$t_$impl"
			echo "generic $impl ns_per_event $(((t - t_none) / GEN_CALLS)) calls $GEN_CALLS round $r" >>$OUT
		done
		echo "generic none ns_per_event $((t_none / GEN_CALLS)) calls $GEN_CALLS round $r" >>$OUT
	done
	echo >/sys/kernel/tracing/trace
	m0=$(($(sed -n 's/^Slab: *//p; s/^Percpu: *//p' /proc/meminfo | tr -d 'kB ' | tr '\n' '+')0))
	t0=$(now_ns)
	echo 1 >$T/events/generic_enable
	t1=$(now_ns)
	m1=$(($(sed -n 's/^Slab: *//p; s/^Percpu: *//p' /proc/meminfo | tr -d 'kB ' | tr '\n' '+')0))
	on=$(cat $T/events/*/*/enable | grep -c 1)
	t0b=$(now_ns)
	echo 0 >$T/events/generic_enable
	echo "generic_all enable_ms $(((t1 - t0) / 1000000)) disable_ms $((($(now_ns) - t0b) / 1000000)) events $on cpus $(grep -c ^processor /proc/cpuinfo) mem_kib $((m1 - m0))" >>$OUT
}

# Choosing what is recorded (tracking/pid, filter files): what an event
# the kernel leaves out costs against one recorded, in tring and in
# ftrace, on the same tracepoint and workload as generic_side (dd's
# read()/write() pairs, raw_syscalls/sys_enter or tring's syscall_entry):
# recorded; left out by tracking (the set holds init, not dd); left out
# by a filter that rejects every call (id == 100000; for tring's own
# events, fd == 99 on sys_read and sys_write). Interleaved rounds.
#   select IMPL ns_per_event X calls N round R
TR=/sys/kernel/tracing
# dd's calls, read and write: tring's filter of each (0: none).
select_sys_filter() {
	echo "$1" >$T/events/syscalls/sys_read/filter
	echo "$1" >$T/events/syscalls/sys_write/filter
}
select_on() {
	local ev=$T/events/syscalls/syscall_entry gen=$T/events/raw_syscalls/sys_enter

	case $1 in
	tring_*) : ;;
	*) ev=$TR/events/raw_syscalls/sys_enter ;;
	esac
	case $1 in
	tring_gen_*) ev=$gen ;;
	esac
	if [ "$2" = 1 ]; then
		case $1 in
		*_tracking) echo 1 >$T/tracking/pid ;;
		ftrace_pid) echo 1 >$TR/set_event_pid ;;
		tring_filter) select_sys_filter 'fd == 99' ;;
		*_filter) echo 'id == 100000' >$ev/filter ;;
		esac
		echo 1 >$ev/enable
	else
		echo 0 >$ev/enable
		: >$T/tracking/pid
		: >$TR/set_event_pid
		[ -f $ev/filter ] && echo 0 >$ev/filter
		select_sys_filter 0
	fi
}
select_side() {
	local r impl base t

	[ -f $T/tracking/pid ] || return
	cat $TR/available_events >$T/events/generic_events 2>/dev/null
	[ -f $T/events/raw_syscalls/sys_enter/enable ] || return
	echo 4 >$T/buffer_subbuf_size_kb
	echo 1024 >$T/buffer_size_kb
	echo 1 >$T/overwrite
	echo 1 >$TR/tracing_on
	for r in $(seq "$ROUNDS"); do
		base=$(dd_ns)
		for impl in tring_recorded tring_tracking tring_filter \
			    tring_gen_recorded tring_gen_tracking tring_gen_filter \
			    ftrace_recorded ftrace_pid ftrace_filter; do
			select_on $impl 1
			t=$(dd_ns)
			select_on $impl 0
			echo "select $impl ns_per_event $(((t - base) / GEN_CALLS)) calls $GEN_CALLS round $r" >>$OUT
		done
	done
	echo >$TR/trace
}

# ONLY=select: that side alone (a quick look at the rejection costs).
if [ "${ONLY:-}" = select ]; then
	select_side
	exit 0
fi
write_side
[ -n "${QUICK:-}" ] || generic_side
[ -n "${QUICK:-}" ] && GEN_CALLS=4000
select_side
for r in $(seq "$ROUNDS"); do
	read_tring
	read_ftrace splice
	read_ftrace mmap
done
# Three rounds of the sustained runs (one second each) are enough.
for r in 1 2 3; do
	[ -n "${QUICK:-}" ] && [ "$r" -gt 1 ] && break
	for rate in $RATES; do
		sustain_tring tring-record "$rate"
		sustain_tring tring-default "$rate"
		sustain_ftrace splice "$rate"
		sustain_ftrace mmap "$rate"
	done
done
