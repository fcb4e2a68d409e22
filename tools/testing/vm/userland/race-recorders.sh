# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The tracer race's recorders (bench-race.sh, PID 1 of make bench's race
# guest, sources this): how each tracer is started, waited for and
# stopped, and what a run of it measured. Each run_TRACER WORKLOAD ROUND
# sets res (the storm's "ns N cpu_ns N ..."), events, lost, tev, tlost,
# bytes, rcpu, rss, rnice and k1; the helpers read bench-race.sh's
# settings (O, T, OUT, BUFKB, SUBBUFKB, TRING_OPTS, ...).
# The tracer lists are split into words on purpose.
# shellcheck disable=SC2086
# cpu_of PID...: user+sys ns of processes (their threads included)
cpu_of() {
	local p t=0 hz
	hz=$(getconf CLK_TCK)
	for p in "$@"; do
		[ -r /proc/$p/stat ] || continue
		t=$((t + $(sed 's/.*) //' /proc/$p/stat | awk '{ print $12 + $13 }')))
	done
	echo $((t * 1000000000 / hz))
}

# children_cpu: user+sys ns of the reaped children, from bash's times
children_cpu() {
	times >/tmp/times
	tail -n 1 /tmp/times | awk '{
		n = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2]
		}
		printf "%.0f", n * 1e9 }'
}

# trace_count TYPE PATH: tev and tlost, the events the trace at PATH
# holds and the losses it records (TYPE ctf, tc or perf: race-count.sh).
# RB_HOST=1: counted on the host instead, natively, once the guest is
# done (scripts/race-readback.sh; under emulation reading a trace back
# takes longer than recording it): the trace is copied to
# /results/traces/ID, tev and tlost are "host" and one() adds
# "readback ID" to the run's line. RB_HOST=2 (make check's smoke run):
# counted here and handed over too, so that the host checks its count
# against this one.
trace_count() {
	local id=$mark_seq.$1
	case ${RB_HOST:-0} in
	1 | 2)
		mkdir -p $R/traces
		cp -r "$2" $R/traces/$id
		rb_id=$id
		;;
	esac
	if [ "${RB_HOST:-0}" = 1 ]; then
		tev=host tlost=host
		return
	fi
	case $1 in
	ctf) read -r tev tlost <<<"$(count_ctf "$2")" ;;
	tc) read -r tev tlost <<<"$(count_tc "$2")" ;;
	perf)
		: >/tmp/perf.script
		read -r tev tlost < <(count_perf "$2" /tmp/perf.script)
		;;
	esac
}

# trace-cmd and perf record system-wide in the background until they are
# interrupted, as tring-record and LTTng's consumerd do, rather than
# running the workload themselves: their CPU time is then their own, from
# the times of the subshell that waits for them (a recorder that runs the
# workload counts it among its children, and perf did not always wait for
# it, which gave negative differences).
#
# rec_start LOG CMD...: start recorder CMD; rec_pid is its PID.
rec_start() {
	local log=$1 i
	shift
	rm -f /tmp/rec.cpu
	("$@" >"$log" 2>&1; children_cpu >/tmp/rec.cpu) &
	rec_sub=$!
	rec_pid=
	for i in $(seq 100); do
		rec_pid=$(pgrep -P $rec_sub | head -n 1)
		[ -n "$rec_pid" ] && break
		sleep 0.1
	done
}

# rec_wait TEST: wait up to 60 s for the recorder to be ready, then 0.5 s.
rec_wait() {
	local i
	for i in $(seq 600); do
		if "$1"; then
			sleep 0.5
			return 0
		fi
		sleep 0.1
	done
	up "$1: the recorder was not ready after 60 s"
}

# tring_recording PID: wait (60 s at most) until tring-record PID records
# into $O (its metadata made, after its signal handlers are in place) or
# has exited; streamed elsewhere (TRING_DEST), until its process is up.
tring_recording() {
	local i
	for i in $(seq 600); do
		kill -0 "$1" 2>/dev/null || return 1
		[ -n "${TRING_DEST:-}" ] && [ -d "/proc/$1" ] && return 0
		[ -f "$O/kernel/metadata" ] && return 0
		sleep 0.1
	done
	up "tring-record was not recording after 60 s"
}

# ft_events: the events of FT_EVENTS, one SYSTEM/EVENT a line, its
# globs (syscalls:*) expanded
ft_events() {
	local e
	for e in $FT_EVENTS; do
		case $e in
		*:\*) ls -d /sys/kernel/tracing/events/"${e%:*}"/*/ | awk -F/ '{ print $(NF - 2) "/" $(NF - 1) }' ;;
		*) echo "${e/://}" ;;
		esac
	done
}

# trace-cmd: its per-CPU readers forked and the last event enabled.
tc_ready() {
	[ "$(pgrep -c -P "$rec_pid")" -ge "$NCPU" ] &&
		[ "$(cat /sys/kernel/tracing/tracing_on)" = 1 ] &&
		[ "$(cat /sys/kernel/tracing/events/"$(ft_events | tail -n 1)"/enable)" = 1 ]
}

# perf: one event file per event and CPU open.
perf_ready() {
	[ "$(find /proc/"$rec_pid"/fd -lname '*perf_event*' 2>/dev/null | wc -l)" \
		-ge $(($(ft_events | wc -l) * NCPU)) ]
}

# hwm_kb PID...: the resident size of processes, summed, KiB, from their
# page tables (smaps_rollup): 6.1's VmRSS and VmHWM lag behind a task's
# own counts (tring-record showed 4 kB there).
hwm_kb() {
	local p s=0 v
	for p in "$@"; do
		v=$(awk '$1 == "Rss:" { print $2 }' /proc/"$p"/smaps_rollup 2>/dev/null)
		s=$((s + ${v:-0}))
	done
	echo $s
}

# nice_of PID...: their nice values, each once, comma-separated
nice_of() {
	local p
	for p in "$@"; do ps -o ni= -p "$p"; done | tr -d ' ' | sort -u | paste -sd, -
}

# rec_stop: Ctrl-C (SIGINT to the recorder and its children), wait; rcpu
# is its CPU time, rss its resident size at the end.
rec_stop() {
	rss=$(hwm_kb "$rec_pid" $(pgrep -P "$rec_pid"))
	rnice=$(nice_of "$rec_pid")
	kill -INT $(pgrep -P "$rec_pid") "$rec_pid" 2>/dev/null
	wait $rec_sub
	rcpu=$(cat /tmp/rec.cpu 2>/dev/null || echo 0)
}

# kmem: KiB of memory neither free, nor page cache (tmpfs included), nor
# user-space anonymous memory: the kernel's own, buffers included.
kmem() {
	awk '$1 == "MemTotal:" { t = $2 } $1 == "MemFree:" { f = $2 } $1 == "Buffers:" { b = $2 }
		$1 == "Cached:" { c = $2 } $1 == "AnonPages:" { a = $2 } END { print t - f - b - c - a }' /proc/meminfo
}
# kmark: the kernel memory with the tracer recording, just before the
# workload starts (one() took it just before the tracer started: k0).
kmark() { k1=$(kmem); }

# Each run_TRACER WORKLOAD ROUND sets: res (storm's "ns N cpu_ns N"),
# events, lost, tev, tlost, bytes, rcpu, k1 (kmark).
run_none() {
	kmark
	res=$(storm $(wl_args "$1"))
	events=0 lost=0 tev=- tlost=- bytes=0 rcpu=0 rss=0
}

run_tring() {
	local e pid s tr
	rm -rf $O
	mkdir -p $O
	# TRING_OPTS: more tring-record options, TRING_WRAP a command to run
	# it under, for experiments; TRING_DEST where the trace goes
	# (run_tring_net).
	# shellcheck disable=SC2086
	# --nice 0: every recorder at the same priority (trace-cmd, perf and
	# LTTng's consumerd run at 0; tring-record's own default is -10).
	$TRING_WRAP tring-record -q -f -b "$BUFKB" -s "$SUBBUFKB" --discard --nice 0 $TRING_OPTS \
		${TRING_DEST:--o $O} --summary $O/.tring-record.summary &
	pid=$!
	tring_recording $pid
	for e in $TRING_EVENTS; do echo 1 >$T/events/$e/enable; done
	kmark
	res=$(storm $(wl_args "$1"))
	for e in $TRING_EVENTS; do echo 0 >$T/events/$e/enable; done
	rss=$(hwm_kb $pid)
	rnice=$(nice_of $pid)
	kill -TERM $pid
	wait $pid
	s=$O/.tring-record.summary
	events=$(sed -n 's/^total\.events=//p' $s)
	# The kernel's counters run from the buffer's creation: this run's
	# share is what was lost after the recording started.
	lost=$(($(sed -n 's/^total\.lost=//p' $s) - $(sed -n 's/^total\.lost_at_start=//p' $s)))
	rcpu=$(($(sed -n 's/^user_ns=//p' $s) + $(sed -n 's/^sys_ns=//p' $s)))
	# TRING_TRACE: where the trace went (a glob), if not to $O.
	tr=$(ls -d ${TRING_TRACE:-$O} 2>/dev/null | head -n 1)
	# A trace on another machine (run_tring_host) has no size here.
	bytes=-
	[ -z "$tr" ] || bytes=$(du -sb --exclude=.tring-record.summary "$tr" | cut -f1)
	tev=- tlost=-
	if [ "$RB" = 1 ] && [ -n "$tr" ]; then
		trace_count ctf "$tr"
		events=$tev
	fi
}

# tring-record streaming to lttng-relayd on the loopback, which writes to
# tmpfs as the other tracers do: the same buffer and rates as run_tring.
RELAY_OUT=/tmp/relay-bench
relay_bench_up() {
	local i
	command -v lttng-relayd >/dev/null || return 1
	lttng-relayd -b -o $RELAY_OUT -C tcp://127.0.0.1:15342 \
		-D tcp://127.0.0.1:15343 -L tcp://127.0.0.1:15344 >/dev/null 2>&1 || return 1
	for i in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/15342) 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
run_tring_net() {
	local n=bench$RANDOM
	TRING_DEST="-o net://127.0.0.1:15342:15343 --session $n" \
		TRING_TRACE="$RELAY_OUT/$(hostname)/$n-*" run_tring "$@"
	rm -rf "$RELAY_OUT/$(hostname)/$n"-*
}
# tring-record streaming to lttng-relayd on the host (HOST_RELAY:
# ADDR:CONTROL:DATA, set by scripts/bench-race.sh): another machine, as
# deployments run it, reached through QEMU's user-mode network.
run_tring_host() {
	TRING_DEST="-o net://$HOST_RELAY --session bench$RANDOM" \
		TRING_TRACE=/nonexistent run_tring "$@"
}

# tring's generic events (the kernel's own, through perf): TRING_EVENTS
# names them.
run_tring_generic() {
	run_tring "$@"
}

run_lttng() {
	local c0 c1 cons
	rm -rf $O
	res=
	lttng create race --output=$O >/dev/null || return
	if ! lttng enable-channel -k --discard --subbuf-size="${SUBBUFKB}k" \
		--num-subbuf=$((BUFKB / SUBBUFKB)) ch >/dev/null ||
		{ [ -n "$LTTNG_EVENTS" ] && ! lttng enable-event -k -c ch "$LTTNG_EVENTS" >/dev/null; } ||
		! lttng enable-event -k -c ch --syscall ${LTTNG_SYSCALLS:--a} \
			${LTTNG_FILTER:+--filter "$LTTNG_FILTER"} >/dev/null ||
		{ [ -n "$LTTNG_TRACK" ] && ! lttng track -k --pid "$LTTNG_TRACK" >/dev/null; }; then
		lttng destroy >/dev/null 2>&1
		return
	fi
	cons=$(pidof lttng-consumerd)
	c0=$(cpu_of $cons)
	lttng start >/dev/null
	kmark
	res=$(storm $(wl_args "$1"))
	lttng stop >/tmp/lttng.stop 2>&1
	cons=$(pidof lttng-consumerd)
	# consumerd outlives the session: its size then.
	rss=$(hwm_kb $cons)
	rnice=$(nice_of $cons)
	c1=$(cpu_of $cons)
	lttng destroy >/dev/null 2>&1
	rcpu=$((c1 - c0))
	lost=$(sed -n 's/.*Warning: \([0-9]*\) events were discarded.*/\1/p' /tmp/lttng.stop | head -n 1)
	lost=${lost:-0}
	bytes=$(du -sb $O | cut -f1)
	# LTTng reports no count of the events it recorded: the trace's.
	tev=- tlost=- events=-
	[ "$RB" = 1 ] && trace_count ctf $O && events=$tev
}

run_trace_cmd() {
	local e args=()
	rm -rf $O
	mkdir -p $O
	# TC_FILTER: a filter on each event; TC_OPTS: more options (-P PID).
	# A whole system (syscalls:*) is trace-cmd's -e SYSTEM.
	for e in $FT_EVENTS; do args+=(-e "${e%:\*}" ${TC_FILTER:+-f "$TC_FILTER"}); done
	# shellcheck disable=SC2086
	# --no-filter: no hidden "common_pid != its own" filter on every
	# event (no other tracer filters); -C mono, the clock of the others;
	# file version 6: not compressed, as the others.
	rec_start /tmp/tc.log trace-cmd record --no-filter -C mono --file-version 6 \
		-b "$BUFKB" -o $O/trace.dat $TC_OPTS "${args[@]}"
	rec_wait tc_ready
	kmark
	res=$(storm $(wl_args "$1"))
	# (tc_ready: with a filter or -P, enabled and tracing all the same.)
	rec_stop
	# The per-CPU stats trace-cmd saved in the file at the end: taken
	# before its readers' last pages, so its event count is not used.
	trace-cmd report --stat -i $O/trace.dat >>/tmp/tc.log 2>&1
	events=$(awk '/^read events:/ { s += $3 } END { print s + 0 }' /tmp/tc.log)
	lost=$(awk '/^dropped events:/ { s += $3 } /^overrun:/ { s += $2 } END { print s + 0 }' /tmp/tc.log)
	bytes=$(du -sb $O | cut -f1)
	tev=- tlost=-
	if [ "$RB" = 1 ]; then
		trace_count tc $O/trace.dat
		# The saved stats are taken before the last pages are read.
		events=$tev
	fi
}

# rcu_fast CMD...: CMD with the kernel's synchronous RCU waits expedited
# (/sys/kernel/rcu_expedited, put back as it was after), for perf's stop
# alone: closing each of its tracepoint events waits for two grace
# periods (perf_trace_event_unreg()). Never while a workload runs:
# expedited grace periods interrupt every CPU.
rcu_fast() {
	local f=/sys/kernel/rcu_expedited was

	was=$(cat $f 2>/dev/null)
	[ -w $f ] && echo 1 >$f
	"$@"
	[ -w $f ] && echo "${was:-0}" >$f
	return 0
}

run_perf() {
	local evs ev lo
	rm -rf $O
	mkdir -p $O
	evs=$(echo $FT_EVENTS | tr ' ' ,)
	# -B: no build-id pass over the whole file at the end. Its own
	# system calls are recorded, as every other tracer records its
	# recorder's (no --exclude-perf). -k mono: the others' clock. -D -1
	# and --control: events off until "enable" is acknowledged, so the
	# workload starts only once perf records.
	rm -f /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	rec_start /tmp/perf.log perf record -B -N -a -k mono -m $((BUFKB / 4)) -e "$evs" \
		-D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack -o $O/perf.data
	rec_wait perf_ready
	perf_enable || { rec_stop; res=; return; }
	kmark
	res=$(storm $(wl_args "$1"))
	rcu_fast rec_stop
	bytes=$(du -sb $O | cut -f1)
	# With -B perf record does not read its file back and prints no
	# count. Read back: the samples and the losses of the LOST records
	# (race-count.sh; the storm's getppid() samples kept for
	# getppid_count); otherwise the statistics' samples, and LOST and
	# LOST_SAMPLES records (not their losses) as a sign of loss. The
	# THROTTLE records: perf_stats, on the host with the count.
	tev=- tlost=-
	if [ "$RB" = 1 ]; then
		trace_count perf $O/perf.data
		events=$tev lost=$tlost
		[ "$tev" != host ] || { throttled=host; return 0; }
	fi
	read -r throttled ev lo <<<"$(perf_stats $O/perf.data)"
	[ "$RB" = 1 ] || events=$ev lost=$lo
}

# perf_enable: "enable" on perf's control fifo, its "ack" back (30 s).
perf_enable() {
	local ack
	echo enable >/tmp/perf.ctl &
	read -r -t 30 ack </tmp/perf.ack
	[ "$ack" = ack ] || { up "perf: no ack for enable"; return 1; }
}
