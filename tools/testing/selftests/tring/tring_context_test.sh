#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-event contexts (kernel/trace/tring_ctx*.c): the files context and
# available_contexts, and tring-record's -C and --callstack. The traces
# go to /results/traces/ctx-*, which check-traces.sh reads on the host
# with babeltrace2 and tring-report.
#
#   list      available_contexts names LTTng's contexts and the software
#             counters; a list written reads back, in its order
#   errors    an unknown name, a duplicate, a counter that does not
#             exist, one this machine lacks, more than 32, stack_depth=0,
#             a write while a recording reads the buffer: each refused
#             (EINVAL, E2BIG, EBUSY...), the list unchanged
#   values    ctx-values: tring_ctx_work ns, a process and two threads in
#             a new PID and network namespace writing what they know of
#             themselves, with pid, tid, vpid, vtid, ppid, procname,
#             pid_ns, net_ns and more; tring-record restores the list
#   stacks    ctx-stacks: kernel and user stacks of sys_openat (by
#             tring_ctx_work's ctx_opener()), sched_switch, and a kprobe
#             on tring_test_probe_target() (called by test/probe), with
#             the kallsyms and maps files tring-record writes beside
#   depth     ctx-depth: stack_depth=2, every kernel stack cut and marked
#   nmi       ctx-nmi: every context, stacks and a counter, from the
#             stress test's writers (task, softirq, hardirq, IPI, NMI)
#             through a kprobe they all call: no report under KASAN or
#             KCSAN, and check-traces.sh finds each context level
#   lttng     ctx-lttng-plain and ctx-lttng-all: the same workload
#             without and with every context, for LTTng's analyses
#   perf      ctx-perf: software counters, per CPU never decreasing
#   instance  ctx-inst: an instance's context file (tring_test's buffer,
#             its inline writer in a known shell), tring-record -C with
#             --instance; what was written before the change left behind
#   hotplug   ctx-hotplug: a counter context across CPU 1 going offline
#             and back

T=/sys/kernel/debug/tring
C=$T/context
KE=$T/kprobe_events
OUT=/results/traces
DIR="$(dirname "$0")"
WORK="$DIR/tring_ctx_work"
. "$DIR/tap.sh"

echo "TAP version 13"
mkdir -p $OUT
# Other tests reload tring without generic events: probes need them.
if [ "$(cat /sys/module/tring/parameters/generic_events 2>/dev/null)" = N ]; then
	rmmod tring_test 2>/dev/null
	rmmod tring && insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko
fi
if [ ! -f $C ]; then
	tap_ok 1 "context: the file exists"
	tap_end
	exit
fi
: >$C
tap_ok $? "list: an empty list is taken"

# --- list ---------------------------------------------------------------------
A=$(cat $T/available_contexts)
have() { echo "$A" | grep -qx "$1"; }
# The names of the list $1 this kernel has, comma-joined.
only_have() {
	local n out=
	for n in $(echo "$1" | tr , ' '); do
		have "$n" && out="$out${out:+,}$n"
	done
	echo "$out"
}
for n in pid tid vpid vtid ppid procname prio nice hostname uts_ns user_ns \
	 pid_ns net_ns ipc_ns mnt_ns cgroup_ns time_ns callstack-kernel callstack-user \
	 perf:cpu:cpu-clock perf:cpu:page-fault; do
	echo "$A" | grep -qx "$n"
	tap_ok $? "list: available_contexts names $n"
done
echo "tid,procname callstack-kernel" >$C &&
	[ "$(cat $C)" = "tid
procname
callstack-kernel" ]
tap_ok $? "list: written with commas and spaces, read back one a line, in order"

# --- errors -------------------------------------------------------------------
echo pid >$C
refused() {
	! (echo "$1" >$C) 2>/dev/null && [ "$(cat $C)" = pid ]
}
for bad in nonsense "pid,pid" "tid tid" perf:cpu:nonsense "perf:cpu:" \
	   "callstack-kernel,x" "$(printf 'a%.0s' $(seq 1 50))"; do
	refused "$bad"
	tap_ok $? "errors: '$(echo "$bad" | cut -c1-24)' refused, the list unchanged"
done
dmesg | grep -q "context 'nonsense': no such context"
tap_ok $? "errors: the kernel log names the unknown context"
if [ "$(echo "$A" | wc -l)" -gt 32 ]; then
	refused "$(echo "$A" | tr '\n' ,)"
	tap_ok $? "errors: $(echo "$A" | wc -l) contexts (more than 32) refused"
else
	tap_ok 0 "errors: more than 32 # SKIP only $(echo "$A" | wc -l) available"
fi
if ! echo "$A" | grep -qx perf:cpu:cycles; then
	refused perf:cpu:cycles && dmesg | grep -q "context perf:cpu:cycles: no such counter"
	tap_ok $? "errors: perf:cpu:cycles, which this machine lacks, refused and named"
else
	tap_ok 0 "errors: a missing counter # SKIP this machine counts cycles"
fi
echo 0 >/sys/module/tring/parameters/stack_depth
refused callstack-kernel
tap_ok $? "errors: stack_depth=0 refused"
echo 129 >/sys/module/tring/parameters/stack_depth
refused callstack-kernel
tap_ok $? "errors: stack_depth=129 refused"
echo 32 >/sys/module/tring/parameters/stack_depth
tring-record -q --no-statedump -e tring:marker -o /tmp/ctx-busy &
rec=$!
recording /tmp/ctx-busy $rec
refused tid
tap_ok $? "errors: a write while tring-record reads the buffer refused"
kill -INT $rec
wait $rec
tap_ok $? "errors: that recording ends well"
rm -rf /tmp/ctx-busy
[ -n "$(cat $C)" ] && : >$C && [ -z "$(cat $C)" ]
tap_ok $? "errors: ': >context' empties the list"

# --- values -------------------------------------------------------------------
V=$(only_have pid,tid,vpid,vtid,ppid,procname,pid_ns,net_ns,prio,nice,hostname,uts_ns,user_ns,mnt_ns,ipc_ns,cgroup_ns,time_ns,interruptible,preemptible,need_reschedule,migratable)
tring-record -q --no-statedump -C $V -e tring:marker -o $OUT/ctx-values -- \
	"$WORK" ns
tap_ok $? "values: tring-record -C ... -- tring_ctx_work ns: exit status"
[ -z "$(cat $C)" ]
tap_ok $? "values: tring-record put the empty list back"

# --- stacks -------------------------------------------------------------------
rm -f /tmp/ctx.in /tmp/ctx.out
mkfifo /tmp/ctx.in
tring-record -q --no-statedump --callstack both -C pid -b 1024 \
	-e sys_openat -e sched_switch -e irq_handler_entry \
	--probe 'p:ctest/ptarget tring_test_probe_target a=%di:u64' \
	-o $OUT/ctx-stacks &
rec=$!
recording $OUT/ctx-stacks $rec
"$WORK" open 20 </tmp/ctx.in >/tmp/ctx.out &
w=$!
exec 3>/tmp/ctx.in
i=0
while ! grep -q ready /tmp/ctx.out && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
echo "5 3" >$T/test/probe
kill -INT $rec
wait $rec
tap_ok $? "stacks: tring-record --callstack both: exit status"
exec 3>&-
wait $w
tap_ok $? "stacks: tring_ctx_work open 20: exit status"
echo $w >$OUT/ctx-stacks.expect
[ -s $OUT/ctx-stacks/kallsyms ] && [ -s $OUT/ctx-stacks/maps ] &&
	grep -q "^$w .*tring_ctx_work" $OUT/ctx-stacks/maps
tap_ok $? "stacks: kallsyms and maps (with tring_ctx_work's, pid $w) beside the trace"
rm -f /tmp/ctx.in /tmp/ctx.out

# --- depth --------------------------------------------------------------------
# stack_depth=2: every kernel stack cut to 2 frames and the mark.
echo 2 >/sys/module/tring/parameters/stack_depth
tring-record -q --no-statedump --callstack kernel -e sched_switch \
	-o $OUT/ctx-depth -- sh -c 'for i in 1 2 3; do sleep 0.01; done'
tap_ok $? "depth: tring-record --callstack kernel with stack_depth=2: exit status"
echo 32 >/sys/module/tring/parameters/stack_depth

# --- nmi ----------------------------------------------------------------------
# Not -- COMMAND: that would record only the command's processes.
tring-record -q --no-statedump --callstack both \
	-C "$(only_have pid,tid,procname,hostname,pid_ns,net_ns,preemptible,perf:cpu:cpu-clock)" \
	-b 1024 --probe 'p:ctest/stress tring_test_probe_target a=%di:u64 ctx=%si:s32' \
	-o $OUT/ctx-nmi &
rec=$!
recording $OUT/ctx-nmi $rec
echo 300 >$T/test/stress
tap_ok $? "nmi: the stress test ran (300 ms)"
kill -INT $rec
wait $rec
tap_ok $? "nmi: the stress test's writers through a kprobe, every context: exit status"

# --- lttng --------------------------------------------------------------------
# The same workload (100 openat calls) without and with every context:
# LTTng's analyses must count the same (check-traces.sh).
ALL=$(echo "$A" | grep -v '^perf:' | tr '\n' ,)perf:cpu:cpu-clock
for m in plain all; do
	tring-record -q $([ $m = plain ] || echo "-C $ALL") -b 1024 \
		-e syscall_entry -e exit_syscall -e sched_switch -e sched_process_fork \
		-e sched_process_exec -e sched_process_exit -o $OUT/ctx-lttng-$m -- \
		"$WORK" open 100 </dev/null >/dev/null
	tap_ok $? "lttng: tring_ctx_work open 100, $m: exit status"
done

# --- perf ---------------------------------------------------------------------
tring-record -q --no-statedump -C perf:cpu:cpu-clock,perf:cpu:context-switches,cpu_id_unused 2>/dev/null \
	-e sched_switch -o /tmp/ctx-bad -- true
[ $? != 0 ] && [ -z "$(cat $C)" ]
tap_ok $? "perf: tring-record -C with an unknown context fails, nothing left set"
rm -rf /tmp/ctx-bad
tring-record -q --no-statedump -C perf:cpu:cpu-clock,perf:cpu:context-switches \
	-e sched_switch -o $OUT/ctx-perf -- sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 0.01; done'
tap_ok $? "perf: tring-record -C perf:cpu:cpu-clock,perf:cpu:context-switches: exit status"

# --- instance -----------------------------------------------------------------
# instances/NAME/context: a buffer tring_test made through the kernel
# API, written by its inline code (writehere: in the writing shell). The
# records before a change are left behind; ctx-inst (check-traces-ctx.sh)
# holds the 10 written after it, each with the shell's pid, tid and name.
I=$T/instances/ictx
echo "create ictx 4 8" >$T/test/instance && [ -f $I/context ] &&
	[ -z "$(cat $I/context)" ]
tap_ok $? "instance: tring_test's instances/ictx has a context file, empty"
echo "writehere ictx 5 24 0" >$T/test/instance
tap_ok $? "instance: 5 events (seq 0-4) before the change"
echo pid,tid,procname >$I/context &&
	[ "$(tr '\n' , <$I/context)" = "pid,tid,procname," ]
tap_ok $? "instance: pid,tid,procname written, read back"
! (echo "pid,nonsense" >$I/context) 2>/dev/null &&
	[ "$(tr '\n' , <$I/context)" = "pid,tid,procname," ]
tap_ok $? "instance: an unknown name refused, the list unchanged"
: >$I/context && [ -z "$(cat $I/context)" ]
tap_ok $? "instance: ': >context' empties it"
tring-record -q --instance ictx -C pid,tid,procname -o $OUT/ctx-inst &
rec=$!
recording $OUT/ctx-inst $rec
! (echo pid >$I/context) 2>/dev/null &&
	[ "$(tr '\n' , <$I/context)" = "pid,tid,procname," ]
tap_ok $? "instance: tring-record --instance -C pid,tid,procname set it; a write while it reads refused"
sh -c "echo \$\$ >$OUT/ctx-inst.expect; echo 'writehere ictx 10 24 100' >$T/test/instance"
tap_ok $? "instance: 10 events (seq 100-109) from a shell while recording"
kill -INT $rec
wait $rec
tap_ok $? "instance: that recording's exit status"
[ -z "$(cat $I/context)" ]
tap_ok $? "instance: tring-record put the empty list back"
echo "destroy ictx" >$T/test/instance
tap_ok $? "instance: destroyed"

# --- hotplug ------------------------------------------------------------------
# A counter context follows CPU hotplug: CPU 1 goes offline and comes
# back while a recording runs; the markers a shell on it writes then must
# carry a counting cpu-clock (check-traces-ctx.sh, ctx-hotplug).
C1=/sys/devices/system/cpu/cpu1/online
if [ -w $C1 ] && command -v taskset >/dev/null; then
	tring-record -q --no-statedump -C perf:cpu:cpu-clock -e tring:marker \
		-o $OUT/ctx-hotplug &
	rec=$!
	recording $OUT/ctx-hotplug $rec
	taskset -c 1 sh -c "echo 'ctx hotplug before' >$T/trace_marker"
	echo 0 >$C1 && echo 1 >$C1
	plug=$?
	taskset -c 1 sh -c "for i in 1 2 3 4 5; do
		echo 'ctx hotplug after' >$T/trace_marker; sleep 0.01; done"
	kill -INT $rec
	wait $rec
	rc=$?
	[ $plug = 0 ] && [ $rc = 0 ]
	tap_ok $? "hotplug: CPU 1 offline and back while recording with perf:cpu:cpu-clock (hotplug $plug, tring-record $rc)"
else
	tap_ok 0 "hotplug # SKIP no CPU 1 to take offline, or no taskset"
fi
: >$KE
tap_end
