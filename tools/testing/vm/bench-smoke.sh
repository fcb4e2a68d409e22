#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check's smoke run of the benchmark (tiny counts, no timing
# verdict): every writer and reader of "make bench" must still run and
# produce numbers. TAP on stdout.

. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
insmod /lib/tring/tring_bench.ko
tap_ok $? "tring_bench.ko loads"
QUICK=1 /tests/bench-guest.sh
tap_ok $? "bench-guest.sh runs"
out=/results/bench.txt
for impl in tring_inline tring_reserve ftrace_reserve ftrace_write relay floor; do
	lines=$(grep -c "^write $impl .* ns_per_event [0-9]" $out)
	tap_ok $([ "$lines" = 2 ]; echo $?) "write side: $impl measured in both cases ($lines)"
done
tap_ok $(grep -q FAILED $out; [ $? = 1 ]; echo $?) "no write run failed"
for rd in tring-record dd ftrace_splice; do
	tap_ok $(grep -qE "^read $rd bytes [1-9][0-9]* ns [1-9]" $out; echo $?) "read side: $rd drained bytes and was timed"
done
# The mmap reader needs 6.10+; on older kernels it says so.
tap_ok $(grep -qE "^read ftrace_mmap (bytes [1-9]|unsupported)" $out; echo $?) "read side: ftrace_mmap measured or reported unsupported"
tap_ok $(grep -qE "^read tring-record .* lost 0$" $out; echo $?) "read side: tring-record lost nothing draining the fill"
for rate in 20000 0; do
	for rd in tring-record tring-default; do
		tap_ok $(grep -qE "^sustain $rd $rate written [1-9][0-9]* failed [0-9]+ ns [1-9][0-9]* lost [0-9]+$" $out; echo $?) "sustained: $rd measured at rate $rate"
	done
	tap_ok $(grep -qE "^sustain ftrace_splice $rate written [1-9][0-9]* failed [0-9]+ ns [1-9][0-9]* lost [0-9]+$" $out; echo $?) "sustained: ftrace splice reader measured at rate $rate"
done
if [ -f /sys/kernel/debug/tring/tracking/pid ] &&
   grep -q '^raw_syscalls:sys_enter$' /sys/kernel/tracing/available_events 2>/dev/null; then
	for impl in tring_recorded tring_tracking tring_filter tring_gen_recorded tring_gen_tracking \
		    tring_gen_filter ftrace_recorded ftrace_pid ftrace_filter; do
		tap_ok $(grep -qE "^select $impl ns_per_event -?[0-9]+ calls 4000 round 1$" $out; echo $?) "select: $impl measured"
	done
	tap_ok $([ -z "$(cat /sys/kernel/debug/tring/tracking/pid)" ]; echo $?) "select: tracking cleared afterwards"
fi
kb=$(sed -n 's/^default_buffer kb \([0-9]*\) subbuf_kb [0-9]*$/\1/p' $out)
tap_ok $([ "$kb" = 4096 ]; echo $?) "the default buffer is 4096 KiB per CPU (${kb:-none})"
rmmod tring_bench
tap_ok $? "tring_bench.ko unloads"
tap_end
