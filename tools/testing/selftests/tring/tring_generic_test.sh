#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Generic events: every trace event of the running kernel under
# events/, recorded through perf (kernel/trace/tring_generic.c).
#
#   list      events/ holds every event of tracefs's available_events
#   fields    kmem/kmalloc, timer/hrtimer_start, module/module_load
#             (a __data_loc string), net/net_dev_queue (a __data_loc
#             string and a length), writeback/writeback_mark_inode_dirty
#             (a char[] and an inode number): enabled in tring and in
#             ftrace at once, one workload, tring-record's trace to
#             /results/traces/generic/ and what ftrace recorded to
#             generic.expect, for check-traces.sh to compare on the host
#   all       every generic event enabled at once under load, and off:
#             time taken, memory, no error
# (plan-check unloads tring with a generic event enabled.)
# A kernel without event tracing (no tracefs) has no generic events:
# the test says so and passes.

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
OUT=/results/traces
n=0
failed=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
	fi
}

echo "TAP version 13"
mkdir -p $TR $OUT
[ -f $TR/available_events ] || mount -t tracefs nodev $TR 2>/dev/null
if [ ! -s $TR/available_events ] || [ ! -f $T/events/generic_enable ]; then
	echo "1..1"
	echo "ok 1 # SKIP no event tracing in this kernel: no generic events"
	echo "skip" >$OUT/generic.expect
	exit 0
fi
echo "1..9"

# --- list --------------------------------------------------------------------
missing=0
total=0
while IFS=: read -r g e; do
	total=$((total + 1))
	[ -d "$T/events/$g/$e" ] || {
		missing=$((missing + 1))
		echo "# missing: $g/$e"
	}
done <$TR/available_events
echo "# tracefs: $total events; tring: $(ls $T/events/*/*/enable | wc -l) event enable files"
ok $missing "list: all $total of tracefs's events are under events/"

# --- fields ------------------------------------------------------------------
EV="kmem/kmalloc timer/hrtimer_start module/module_load net/net_dev_queue writeback/writeback_mark_inode_dirty"
EXPECT=$OUT/generic.expect
: >$EXPECT
echo 4 >$T/buffer_subbuf_size_kb && echo 2048 >$T/buffer_size_kb &&
	echo 0 >$T/overwrite
bad=0
for ev in $EV; do
	if [ ! -d $T/events/$ev ]; then
		echo "# no $ev in this kernel"
		continue
	fi
	echo 1 >$T/events/$ev/enable || bad=1
	echo "event ${ev#*/}" >>$EXPECT
done
ok $bad "fields: events enabled in tring"
tring-record -q -o $OUT/generic &
rec=$!
sleep 0.3
for ev in $EV; do
	[ -d $TR/events/$ev ] && echo 1 >$TR/events/$ev/enable
done
echo >$TR/trace
# The workload: a file written in /tmp, a module loaded, pings on lo.
f=/tmp/tring-generic-file
echo data >$f
sync
echo "ino $(ls -i $f | awk '{print $1}')" >>$EXPECT
insmod /lib/tring/tring_example.ko ticks=1 && rmmod tring_example
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
ping -c 3 -s 100 127.0.0.1 >/dev/null 2>&1
sleep 0.1
for ev in $EV; do
	[ -d $TR/events/$ev ] && echo 0 >$TR/events/$ev/enable
done
cp $TR/trace $OUT/generic.ftrace
sleep 0.2
for ev in $EV; do
	[ -d $T/events/$ev ] && echo 0 >$T/events/$ev/enable
done
sleep 0.2
kill -INT $rec
wait $rec
ok $? "fields: tring-record exit status"
# What ftrace recorded, for the host to find in tring's trace.
sed -n 's/.* module_load: \([a-z_]*\).*/module \1/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* net_dev_queue: dev=lo .* len=\([0-9]*\).*/netlen \1/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* kmalloc: .* bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\).*/kmalloc \1 \2/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* hrtimer_start: .* expires=\([0-9]*\) .*/expires \1/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* writeback_mark_inode_dirty: bdi \([^:]*\): ino=\([0-9]*\) .*/inode \1 \2/p' $OUT/generic.ftrace | sort -u >>$EXPECT
grep -q "^module tring_example" $EXPECT
ok $? "fields: ftrace saw module_load tring_example"
grep -q "^kmalloc " $EXPECT
ok $? "fields: ftrace saw kmalloc"

# format files come from the kernel's description
grep -q "field:string name;" $T/events/module/module_load/format
ok $? "fields: module_load's format has the name as a string"
grep -q "^kernel_id: $(cat $TR/events/kmem/kmalloc/id)\$" $T/events/kmem/kmalloc/format
ok $? "fields: kmalloc's format names the kernel's id"

# --- cost: dd's read()/write() pairs with the entry events on ---------------
# Crude (wall time of 2 x N system calls, TCG): ns per event over none.
N=40000
uptime_cs() {
	sed 's/^\([0-9]*\)\.\([0-9]*\) .*/\1\2/' /proc/uptime
}
dd_cs() {
	local t0
	t0=$(uptime_cs)
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
	echo $(($(uptime_cs) - t0))
}
SE="syscalls/sys_enter_read syscalls/sys_enter_write"
if [ -d $T/events/syscalls/sys_enter_read ]; then
	base=$(dd_cs)
	for e in $SE; do echo 1 >$T/events/$e/enable; done
	gen=$(dd_cs)
	for e in $SE; do echo 0 >$T/events/$e/enable; done
	for e in $SE; do echo 1 >$TR/events/$e/enable; done
	ft=$(dd_cs)
	for e in $SE; do echo 0 >$TR/events/$e/enable; done
	echo 1 >$T/events/syscalls/syscall_entry/enable
	own=$(dd_cs)
	echo 0 >$T/events/syscalls/syscall_entry/enable
	echo "# cost per sys_enter_read/write event, ns over no tracing ($((2 * N)) events): tring generic $(((gen - base) * 5000000 / N)), ftrace $(((ft - base) * 5000000 / N)), tring hand-written sys_read/sys_write $(((own - base) * 5000000 / N)) (no tracing: $((base * 5000000 / N)) ns per call)"
fi

# --- all at once, under load -------------------------------------------------
( while :; do cat /proc/version >/dev/null; done ) &
load=$!
free0=$(sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo)
t0=$(date +%s)
echo 1 >$T/events/generic_enable
rc=$?
t1=$(date +%s)
free1=$(sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo)
on=$(grep -l 1 $T/events/*/*/enable 2>/dev/null | wc -l)
echo "# every generic event on: $((t1 - t0)) s, $on enable files read 1, MemFree down $((free0 - free1)) KiB"
ok $rc "all: every generic event enabled under load"
sleep 1
t0=$(date +%s)
echo 0 >$T/events/generic_enable
rc=$?
t1=$(date +%s)
echo "# every generic event off: $((t1 - t0)) s"
kill $load
wait $load 2>/dev/null
[ "$rc" = 0 ] && [ "$(cat $T/events/generic_enable)" = 0 ]
ok $? "all: every generic event disabled, generic_enable reads 0"

echo 4 >$T/buffer_subbuf_size_kb && echo 32 >$T/buffer_size_kb
echo "# $failed failed"
[ "$failed" = 0 ]
