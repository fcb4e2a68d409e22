#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Record real workloads with tring-record, inside the guest, for the host
# to check with babeltrace2 (tools/testing/vm/check-traces.sh). Each
# trace goes to /results/traces/<name>/ (the trace itself in its kernel/
# directory, as tring-record lays it out) with what the host should find
# in it written next to it: /results/traces/<name>.expect.
#
#   workload   events enabled; fork/exec/exit of known children, markers
#              with known text, sleeps, syscalls, a file opened by a known
#              path; the metadata's host name, release and boot id; the
#              threads, interrupts and block devices the statedump must name
#   loss       a burst of test events into a tiny discard-mode buffer with
#              no reader: babeltrace2 must report the exact loss (no
#              statedump: only the burst's events may be lost)
#   overwrite  the same burst in overwrite mode: lost packets and events
#   example    tring_example.ko's own events in its own instance buffer

T=/sys/kernel/debug/tring
OUT=/results/traces
n=0
failed=0
# recording (tools/testing/vm/tap.sh, in /tests beside this test)
. "$(dirname "$0")/tap.sh"

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
	fi
}

knobs() {
	echo "$1" >$T/buffer_subbuf_size_kb && echo "$2" >$T/buffer_size_kb &&
		echo "$3" >$T/overwrite
}

# expect KEY VALUE: a line of the trace's expectations
expect() {
	echo "$1 $2" >>"$EXPECT"
}

echo "TAP version 13"
echo "1..9"
mkdir -p $OUT

# --- workload ---------------------------------------------------------------
EXPECT=$OUT/workload.expect
: >"$EXPECT"
knobs 64 1024 0
ok $? "workload: buffer configured"
# What the statedump must name: the threads /proc lists now (those still
# alive at the end, with the same name, are expected), the interrupts,
# the block devices. Shell builtins only: no thread is born meanwhile.
threads() {
	for t in /proc/[0-9]*/task/[0-9]*; do
		read -r c 2>/dev/null <"$t/comm" && echo "${t##*/} $c"
	done
}
threads >$OUT/workload.threads-before
cp /proc/interrupts $OUT/workload.interrupts
for b in /sys/class/block/*; do
	[ -e "$b/dev" ] && echo "${b##*/} $(cat "$b/dev")"
done >$OUT/workload.blockdevs
echo 1 >$T/events/enable
# 4 MiB a CPU: under KASAN, beside the other lane's KCSAN guest, the
# reader once fell behind the default 1 MiB (402 events discarded, all
# counted); this trace is for decoding, "nothing lost" is its premise.
tring-record -q -b 4M -o $OUT/workload &
rec=$!
recording $OUT/workload $rec
echo "tring marker one" >$T/trace_marker
expect marker "tring marker one"
expect shell $$
expect hostname "$(hostname)"
expect release "$(uname -r)"
expect bootid "$(cat /proc/sys/kernel/random/boot_id)"
known=/tmp/tring-openat-known
echo known >$known && cat $known >/dev/null
expect openat $known
for i in 1 2 3; do
	/bin/sh -c "exit $i" &
	pid=$!
	wait $pid
	expect child "$pid"
done
ls / >/dev/null
cat /proc/version >/dev/null
sleep 0.2
# A device interrupt: the serial port's transmitter interrupts when its
# buffer drains (the timer's are local APIC ones, with no handler event).
echo "tring trace test: a line for the serial port's interrupt" >/dev/ttyS0
sleep 0.1
# A signal, sent by the shell itself (kill is built in).
sleep 5 &
pid=$!
kill -TERM $pid
wait $pid
expect kill "$pid"
echo "tring marker two: spaces, punctuation & symbols!" >$T/trace_marker
expect marker "tring marker two: spaces, punctuation & symbols!"
echo 0 >$T/events/enable
sleep 0.2
kill -INT $rec
wait $rec
ok $? "workload: tring-record exit status"
threads >$OUT/workload.threads-after

# --- loss (discard mode) and overwrite -------------------------------------
# burst NAME OVERWRITE: 2000 events into a 4 x 16 KiB buffer, recorded after
# the fact; in discard mode the refused writes are counted too.
burst() {
	EXPECT=$OUT/$1.expect
	: >"$EXPECT"
	knobs 4 16 "$2"
	echo "0 2000 64 0" >$T/test/write
	res=$(cat $T/test/write)
	ok $? "$1: burst written ($res)"
	expect written "$(echo "$res" | cut -d' ' -f2)"
	[ "$2" = 1 ] || expect failed "$(echo "$res" | cut -d' ' -f4)"
	tring-record -q -o "$OUT/$1" -c 0 -d 0.5 --no-statedump
	ok $? "$1: tring-record exit status"
}
burst loss 0
burst overwrite 1

# --- example (samples/tring) ------------------------------------------------
EXPECT=$OUT/example.expect
: >"$EXPECT"
insmod /lib/tring/tring_example.ko ticks=50
ok $? "example: module loaded"
expect ticks 50
expect message "hello from tring_example"
tring-record -q -o $OUT/example --instance example -d 0.5
ok $? "example: tring-record exit status"
rmmod tring_example
ok $? "example: module unloaded"

knobs 4 32 0
echo "# $failed failed"
[ "$failed" = 0 ]
