#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Process tracking: tracking/pid and tracking/follow, and tring-record's
# -p, --follow and -- COMMAND, on the running kernel. Counts are exact:
# only the marker event (or the fork and exit events) is on, and what
# the buffer took is the sum of events_written over the CPUs.
#
#   bad       a PID that names no process (ESRCH), text, zero, a negative
#             number: each write fails and the set stays as it was; a
#             retry through the same file replaces it; 300 processes
#             written as they are reaped
#   set       the set holds what was written (>), added (>>), replaced
#   markers   with this shell tracked, its markers are recorded and its
#             untracked child's are not; with follow, children and
#             grandchildren are recorded, and leave the set as they exit
#   fork      fork and exit events: a tracked parent's forks are
#             recorded; its children's exits only with follow
#   exit      a tracked process that exits leaves the set
#   death     a tracked process's free is recorded once, after its exit;
#             its last switch-out in track-death for check-traces.sh
#   clear     ": >" clears the set: every process is recorded again
#   record    tring-record -- COMMAND (tring_track_work: threads,
#             grandchildren, an early exit) while the same tree runs
#             untracked, and -p: the traces go to /results/traces/track
#             and track-p for check-traces.sh, which checks every
#             event's process and the exact counts; exit statuses (the
#             command's, 127, 128 + 9, 1 for -p of no process, 125)

T=/sys/kernel/debug/tring
K=$T/tracking
OUT=/results/traces
# tap_ok, tap_end (tools/testing/vm/tap.sh, in /tests beside this test)
. "$(dirname "$0")/tap.sh"

# W: the events the buffer took or, full, refused (events_written +
# events_discarded), summed over the CPUs, read with builtins only: a
# command substitution would fork this shell, and with the fork event
# on, or follow set, that fork would count.
count_written() {
	W=0
	for f in $T/per_cpu/cpu*/stats; do
		while read -r k v; do
			case $k in
			events_written: | events_discarded:) W=$((W + v)) ;;
			esac
		done <"$f"
	done
}

# markers N: this shell writes N markers
markers() {
	i=0
	while [ $i -lt "$1" ]; do
		echo "m $i" >$T/trace_marker
		i=$((i + 1))
	done
}

# L: the set, space-separated, read with builtins only (with follow
# set, the processes of a command substitution would join it).
get_list() {
	L=
	while read -r x; do
		L="$L${L:+ }$x"
	done <$K/pid
}

echo "TAP version 13"
if [ ! -f $K/pid ]; then
	echo "1..1"
	echo "not ok 1 no $K/pid"
	exit 1
fi
echo 0 >$T/events/enable
echo 1 >$T/events/tring/marker/enable

# --- bad ----------------------------------------------------------------------
sleep 100 &
bg=$!
echo $bg >$K/pid
for bad in 99999999 abc 0 -5 "$bg x" "$bg,,99999999"; do
	echo "$bad" >$K/pid 2>/tmp/track.err
	rc=$?
	[ $rc != 0 ] && get_list; [ "$L" = "$bg" ]
	tap_ok $? "bad: '$bad' refused ($(cat /tmp/track.err | sed 's/.*: //')), the set is $L"
done

# A write refused leaves the open file as it was: retried, it replaces.
echo $$ >$K/pid
exec 3>$K/pid
echo 99999999 >&3 2>/dev/null
echo $bg >&3
exec 3>&-
get_list
[ "$L" = "$bg" ]
tap_ok $? "bad: a write retried after ESRCH replaces the set: $L (want $bg)"
# Processes that die while their numbers are written: tring_track_work
# forks them, one thread writes each number as the other reaps it (the
# lookup under RCU: KASAN reports a use after free otherwise). 300, or
# as many as "tring_track_bad=N" on the kernel command line says (make
# check's KCSAN run: 100; the use after free is KASAN's to find).
nbad=$(sed -n 's/.*tring_track_bad=\([0-9]*\).*/\1/p' /proc/cmdline)
nbad=${nbad:-300}
churn=$("$(dirname "$0")/tring_track_work" churn "$nbad" $K/pid)
rc=$?
taken=${churn% *} refused=${churn#* }
echo $bg >$K/pid
get_list
[ $rc = 0 ] && [ "$((taken + refused))" = "$nbad" ] && [ "$L" = "$bg" ]
tap_ok $? "bad: $nbad short-lived processes written as they are reaped ($taken taken, $refused refused with ESRCH), then the set is $L"

# --- set ----------------------------------------------------------------------
both=$(printf '%s\n' $$ $bg | sort -n | tr '\n' ' ' | sed 's/ $//')
echo $$ >>$K/pid
get_list
[ "$L" = "$both" ]
tap_ok $? "set: >> adds: $L (want $both)"
echo "$$" >$K/pid
get_list
[ "$L" = "$$" ]
tap_ok $? "set: > replaces: $L (want $$)"

# --- markers ------------------------------------------------------------------
echo 0 >$K/follow
count_written; w0=$W
markers 10
sh -c "i=0; while [ \$i -lt 7 ]; do echo o >$T/trace_marker; i=\$((i + 1)); done"
count_written; d=$((W - w0))
[ $d = 10 ]
tap_ok $? "markers: tracked shell 10, untracked child 7: $d recorded (want 10)"
echo 1 >$K/follow
count_written; w0=$W
markers 3
( i=0; while [ $i -lt 4 ]; do echo c >$T/trace_marker; i=$((i + 1)); done
  sh -c "echo g >$T/trace_marker; echo g >$T/trace_marker" ) &
wait $!
count_written; d=$((W - w0))
[ $d = 9 ]
tap_ok $? "markers: follow: shell 3, child 4, grandchild 2: $d recorded (want 9)"
get_list
[ "$L" = "$$" ]
tap_ok $? "markers: the children left the set as they exited: $L"

# --- fork ---------------------------------------------------------------------
echo 0 >$T/events/tring/marker/enable
echo 1 >$T/events/sched/sched_process_fork/enable
echo 1 >$T/events/sched/sched_process_exit/enable
# forks FOLLOW WANT: 3 children of this shell with follow FOLLOW
forks() {
	echo "$1" >$K/follow
	count_written; w0=$W
	sh -c "exit 0"; sh -c "exit 0"; sh -c "exit 0"
	count_written; d=$((W - w0))
	[ $d = "$2" ]
}
forks 0 3
tap_ok $? "fork: 3 children of the tracked shell: $d fork events and no exit (want 3)"
forks 1 6
tap_ok $? "fork: with follow, 3 forks and 3 exits: $d (want 6)"
echo 0 >$T/events/sched/sched_process_fork/enable
echo 0 >$T/events/sched/sched_process_exit/enable

# --- exit ---------------------------------------------------------------------
echo $bg >>$K/pid
get_list
had=$L
kill $bg
wait $bg 2>/dev/null
get_list
[ "$had" = "$both" ] && [ "$L" = "$$" ]
tap_ok $? "exit: $bg left the set when it exited ($had, then $L)"

# --- death --------------------------------------------------------------------
# A tracked process that exits: its free (a grace period after it is
# reaped) is recorded, exactly once; with the switches on, its last
# switch-out too (check-traces.sh reads track-death).
echo 0 >$T/events/tring/marker/enable
rm -f /tmp/track.fifo
mkfifo /tmp/track.fifo
sh -c 'read x </tmp/track.fifo' &
c=$!
echo $c >$K/pid
echo 1 >$T/events/sched/sched_process_free/enable
count_written; w0=$W
echo go >/tmp/track.fifo
wait $c
# The free comes a grace period after the reaping: wait for it (10 s at
# most), then a little longer for a second one that must not come.
i=0
while count_written; [ $((W - w0)) = 0 ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.2
count_written
[ $((W - w0)) = 1 ]
tap_ok $? "death: a tracked process's sched_process_free recorded: $((W - w0)) (want 1)"
echo 0 >$T/events/sched/sched_process_free/enable
sh -c 'read x </tmp/track.fifo' &
c=$!
tring-record -q --no-statedump -b 1024 -e sched_switch -e sched_process_exit \
	-e sched_process_free -p $c -o $OUT/track-death &
rec=$!
recording $OUT/track-death $rec
count_written; w1=$W
echo go >/tmp/track.fifo
wait $c
# The parent's wait returns once the child is a zombie, before its last
# switch-out (do_task_dead()) and its free (a grace period later): stop
# recording once its exit, last switch-out and free can have come (3
# events since "go" at least; on a slow kernel all before the wait
# returns) and nothing more for four polls (10 s at most).
i=0; same=0
while [ $same -lt 4 ] && [ $i -lt 200 ]; do
	sleep 0.05
	w2=$W; count_written
	if [ $W -ge $((w1 + 3)) ] && [ $W = $w2 ]; then same=$((same + 1)); else same=0; fi
	i=$((i + 1))
done
kill -INT $rec
wait $rec
tap_ok $? "death: tring-record -p of a process that exits: exit status"
echo $c >$OUT/track-death.expect
rm -f /tmp/track.fifo

# --- clear --------------------------------------------------------------------
echo 1 >$T/events/tring/marker/enable
: >$K/pid
count_written; w0=$W
( i=0; while [ $i -lt 7 ]; do echo o >$T/trace_marker; i=$((i + 1)); done ) &
wait $!
count_written; d=$((W - w0))
get_list
[ -z "$L" ] && [ $d = 7 ]
tap_ok $? "clear: ': >' empties the set, every process is recorded: $d (want 7)"
echo 0 >$K/follow
echo 0 >$T/events/tring/marker/enable

# --- record -------------------------------------------------------------------
WORK="$(dirname "$0")/tring_track_work"
EV="-e tring:marker -e sched_switch -e sched_process_fork -e sched_process_exit -e sched_process_exec -e syscall_entry"
# 1 MiB per CPU: the buffer tring_trace_test.sh left (32 KiB) holds about
# a tree's events, and the counts checked are exact.
EV="-b 1024 $EV"
# The same tree, untracked, all along.
rm -f /tmp/track.stop
( while [ ! -f /tmp/track.stop ]; do $WORK out 2 10; done ) &
outside=$!
# shellcheck disable=SC2086
tring-record -q --no-statedump $EV -o $OUT/track -- \
	sh -c "$WORK tree 2 10 && $WORK tree 2 10; exit 7"
rc=$?
get_list
[ $rc = 7 ] && [ -z "$L" ] && [ "$(cat $K/follow)" = 0 ]
tap_ok $? "record: -- COMMAND: exit status $rc (want 7), tracking restored ('$L', follow $(cat $K/follow))"
sed -n 's/^command_pid=//p' $OUT/track/.tring-record.summary >$OUT/track.expect
echo "tree=120 getcpu=120" >>$OUT/track.expect

# -p: this process's own markers, not its untracked child's.
rm -f /tmp/track.go
sh -c "while [ ! -f /tmp/track.go ]; do sleep 0.05; done
	i=0; while [ \$i -lt 5 ]; do echo pself >$T/trace_marker; i=\$((i + 1)); done
	$WORK pkid 1 3; exit 0" &
p=$!
tring-record -q --no-statedump $EV -p $p -o $OUT/track-p &
rec=$!
recording $OUT/track-p $rec
touch /tmp/track.go
wait $p
kill -INT $rec
wait $rec
rc=$?
get_list
[ $rc = 0 ] && [ -z "$L" ]
tap_ok $? "record: -p $p: exit status $rc, tracking restored ('$L')"
echo "$p pself=5" >$OUT/track-p.expect
touch /tmp/track.stop
wait $outside

tring-record -q --no-statedump -o /tmp/track-x -- /nonexistent/cmd 2>/tmp/track.err
rc=$?
[ $rc = 127 ] && grep -q 'cannot run /nonexistent/cmd' /tmp/track.err
tap_ok $? "record: a COMMAND not found: exit status $rc (want 127)"
tring-record -q --no-statedump -o /tmp/track-x -f -- sh -c 'kill -9 $$'
rc=$?
[ $rc = 137 ]
tap_ok $? "record: a COMMAND killed by SIGKILL: exit status $rc (want 137)"
tring-record -q --no-statedump -o /tmp/track-x -f -p 99999999 2>/tmp/track.err
rc=$?
[ $rc = 1 ] && grep -q 'no such process' /tmp/track.err
tap_ok $? "record: -p 99999999: exit status $rc (want 1), $(cat /tmp/track.err)"
tring-record -q --no-statedump -o /tmp/track-x -f --bad-option -- true 2>/dev/null
rc=$?
[ $rc = 125 ]
tap_ok $? "record: a bad option with a COMMAND: exit status $rc (want 125)"

# The recorder's nice value while recording (the COMMAND's parent), and
# the COMMAND's own: the one tring-record was started with.
mine=$(cut -d' ' -f19 /proc/$$/stat)
for n in "" 3; do
	want="${n:--10} $mine"
	[ "$mine" -le -10 ] && [ -z "$n" ] && want="$mine $mine"
	# shellcheck disable=SC2016
	tring-record -q --no-statedump -o /tmp/track-x -f ${n:+--nice $n} -- \
		sh -c 'echo $(cut -d" " -f19 /proc/$PPID/stat) $(cut -d" " -f19 /proc/$$/stat)' \
		>/tmp/track.nice
	rc=$?
	got=$(cat /tmp/track.nice)
	[ $rc = 0 ] && [ "$got" = "$want" ] &&
		grep -qx "nice=${want% *}" /tmp/track-x/.tring-record.summary
	tap_ok $? "record: ${n:+--nice $n: }recorder and COMMAND at nice '$got' (want '$want')"
done
rm -rf /tmp/track-x

tap_end
