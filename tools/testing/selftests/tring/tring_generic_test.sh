#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Generic events: every trace event of the running kernel under
# events/, recorded through perf (kernel/trace/tring_generic.c).
#
#   offer     tracefs's available_events written to generic_events
#   list      events/ holds every event of tracefs's available_events;
#             a group of generic events only switches with its enable
#   fields    kmem/kmalloc, timer/hrtimer_start, module/module_load
#             (a __data_loc string), net/netif_rx (a __data_loc
#             string and a length), writeback/writeback_mark_inode_dirty
#             (a char[] and an inode number): enabled in tring and in
#             ftrace at once, one workload, tring-record's trace to
#             /results/traces/generic/ and what ftrace recorded to
#             generic.expect, for check-traces.sh to compare on the host
#   all       every generic event enabled at once under load, and off:
#             time taken, memory, no error; a second of them recorded
#             to /results/traces/generic-all/ for check-traces.sh
# (plan-check unloads tring with a generic event enabled.)
# A kernel without event tracing (no tracefs) has no generic events:
# the test says so and passes.

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
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

echo "TAP version 13"
mkdir -p $TR $OUT
[ -f $TR/available_events ] || mount -t tracefs nodev $TR 2>/dev/null
# (tracefs files have no size: test -s cannot tell.)
if ! grep -q : $TR/available_events 2>/dev/null; then
	echo "1..1"
	echo "ok 1 # SKIP no event tracing in this kernel: no generic events"
	echo "skip" >$OUT/generic.expect
	exit 0
fi
# Other tests reload tring without generic events (generic_events=0):
# back to the defaults.
if [ "$(cat /sys/module/tring/parameters/generic_events 2>/dev/null)" = N ]; then
	echo "# tring was loaded with generic_events=0: reloading it with the defaults"
	rmmod tring_test 2>/dev/null
	rmmod tring && insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko
fi
if [ ! -f $T/events/generic_enable ]; then
	echo "1..1"
	echo "not ok 1 the kernel has trace events, tring has no generic_enable"
	exit 1
fi
echo "1..18"
# The kernel's own events are offered by name (modules' by themselves).
cat $TR/available_events >$T/events/generic_events
ok $? "offer: tracefs's available_events written to events/generic_events"
# No comm recording in ftrace: its sched_switch probe would patch
# __schedule() while the other vCPU runs it (see bench-guest.sh).
echo 0 >$TR/options/record-cmd 2>/dev/null

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

# A group of generic events only has its own switch: module/enable.
bad=0
if [ -f $T/events/module/enable ]; then
	echo 1 >$T/events/module/enable || bad=1
	[ "$(cat $T/events/module/enable)" = 1 ] || bad=1
	for e in $T/events/module/*/enable; do
		[ "$(cat $e)" = 1 ] || bad=1
	done
	echo 0 >$T/events/module/module_load/enable
	[ "$(cat $T/events/module/enable)" = X ] || bad=1
	echo 0 >$T/events/module/enable || bad=1
	[ "$(cat $T/events/module/enable)" = 0 ] || bad=1
	for e in $T/events/module/*/enable; do
		[ "$(cat $e)" = 0 ] || bad=1
	done
	ok $bad "list: module/enable switches the group's $(ls -d $T/events/module/*/ | wc -l) events (1, X, 0)"
else
	ok 1 "list: a group of generic events (module) has an enable file"
fi

# --- fields ------------------------------------------------------------------
EV="kmem/kmalloc timer/hrtimer_start module/module_load net/netif_rx writeback/writeback_mark_inode_dirty"
EXPECT=$OUT/generic.expect
: >$EXPECT
echo 4 >$T/buffer_subbuf_size_kb && echo 2048 >$T/buffer_size_kb &&
	echo 0 >$T/overwrite
# Enabled and disabled while tring-record runs: its metadata, copied at
# the end, describes them.
tring-record -q -o $OUT/generic &
rec=$!
recording $OUT/generic $rec
bad=0
for ev in $EV; do
	if [ ! -d $T/events/$ev ]; then
		echo "# no $ev in this kernel"
		continue
	fi
	echo 1 >$T/events/$ev/enable || bad=1
	echo "event ${ev#*/}" >>$EXPECT
done
ok $bad "fields: events enabled in tring while recording"
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
sed -n 's/.* netif_rx: dev=lo .* len=\([0-9]*\).*/netlen \1/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* kmalloc: .* bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\).*/kmalloc \1 \2/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* hrtimer_start: .* expires=\([0-9]*\) .*/expires \1/p' $OUT/generic.ftrace | sort -u >>$EXPECT
sed -n 's/.* writeback_mark_inode_dirty: bdi \([^:]*\): ino=\([0-9]*\) .*/inode \1 \2/p' $OUT/generic.ftrace | sort -u >>$EXPECT
grep -q "^module tring_example" $EXPECT
ok $? "fields: ftrace saw module_load tring_example"
grep -q "^kmalloc " $EXPECT
ok $? "fields: ftrace saw kmalloc"
# The ping needs TCP/IP: the debug kernels have the networking core
# only (for net_ns), so the event but no traffic on lo.
if [ -d $TR/events/net/netif_rx ] && [ -d /proc/sys/net/ipv4 ]; then
	grep -q "^netlen " $EXPECT
	ok $? "fields: ftrace saw netif_rx on lo"
else
	ok 0 "fields: ftrace saw netif_rx on lo # SKIP no TCP/IP in this kernel"
fi
grep -q "^expires " $EXPECT
ok $? "fields: ftrace saw hrtimer_start"
echo "# ftrace saw: $(cut -d' ' -f1 $EXPECT | sort | uniq -c | tr -s ' \n' ' ')"

# format files come from the kernel's description
grep -q "field:string name;" $T/events/module/module_load/format
ok $? "fields: module_load's format has the name as a string"
grep -q "^kernel_id: $(cat $TR/events/kmem/kmalloc/id)\$" $T/events/kmem/kmalloc/format
ok $? "fields: kmalloc's format names the kernel's id"
# net/net_dev_queue is also a hand-written event: that one wins.
[ ! -f $T/events/net/net_dev_queue/format ] ||
	! grep -q "^kernel_id:" $T/events/net/net_dev_queue/format
ok $? "fields: net/net_dev_queue is the hand-written event, not a generic one"

# --- cost: one tracepoint three ways, dd's read()/write() pairs ---------------
# raw_syscalls/sys_enter fires once per system call: as tring's generic
# event (perf), as tring's hand-written syscalls/syscall_entry (its own
# probe), and in ftrace. dd bs=1 makes 2 x N calls; the cost per event is
# the wall time over no tracing, divided by 2 x N (the best of 2 runs;
# /proc/uptime's centiseconds; under emulation, so only the ratios mean
# much: the times are printed, never judged). Buffers overwrite, so every
# event is written, none dropped: each run must write an event per call.
N=100000
# events written into the default buffer, all CPUs
written() {
	cat $T/per_cpu/cpu*/stats | sed -n 's/^events_written: //p' |
		awk '{ s += $1 } END { print s + 0 }'
}
uptime_cs() {
	sed 's/^\([0-9]*\)\.\([0-9]*\) .*/\1\2/' /proc/uptime
}
dd_cs() {
	local t0 a b
	t0=$(uptime_cs)
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
	a=$(($(uptime_cs) - t0))
	t0=$(uptime_cs)
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null
	b=$(($(uptime_cs) - t0))
	echo $((a < b ? a : b))
}
# ns per event over no tracing, from centiseconds $1 and the base
per_ev() {
	echo $((($1 - base) * 10000000 / (2 * N)))
}
GE=$T/events/raw_syscalls/sys_enter/enable
if [ -f $GE ] && [ -f $TR/events/raw_syscalls/sys_enter/enable ]; then
	echo 1 >$T/overwrite
	echo 0 >$TR/tracing_on
	echo 1 >$TR/tracing_on
	base=$(dd_cs)
	# A debug kernel: a tenth of the calls, to keep within the guest's time.
	if [ "$base" -gt 100 ]; then
		N=$((N / 10))
		base=$(dd_cs)
	fi
	echo 1 >$GE
	w0=$(written)
	gen=$(dd_cs)
	gen_ev=$(($(written) - w0))
	echo 0 >$GE
	echo 1 >$T/events/syscalls/syscall_entry/enable
	w0=$(written)
	own=$(dd_cs)
	own_ev=$(($(written) - w0))
	echo 0 >$T/events/syscalls/syscall_entry/enable
	echo 1 >$TR/events/raw_syscalls/sys_enter/enable
	ft=$(dd_cs)
	echo 0 >$TR/events/raw_syscalls/sys_enter/enable
	echo >$TR/trace
	echo "# cost per event, raw_syscalls/sys_enter, ns over no tracing ($((2 * N)) calls, $((base * 10000000 / (2 * N))) ns per call untraced): tring generic $(per_ev $gen), tring hand-written $(per_ev $own), ftrace $(per_ev $ft)"
	echo "bench generic_ns $(per_ev $gen) handwritten_ns $(per_ev $own) ftrace_ns $(per_ev $ft) base_ns $((base * 10000000 / (2 * N)))" >>$EXPECT
	# dd_cs runs dd twice: 2 x 2 x N system calls, each one event.
	[ "$gen_ev" -ge $((4 * N)) ]
	ok $? "cost: the generic sys_enter wrote an event per call ($gen_ev events, $((4 * N)) calls)"
	[ "$own_ev" -ge $((4 * N)) ]
	ok $? "cost: the hand-written syscall_entry wrote an event per call ($own_ev events, $((4 * N)) calls)"
else
	ok 0 "cost: generic # SKIP no raw_syscalls/sys_enter"
	ok 0 "cost: hand-written # SKIP no raw_syscalls/sys_enter"
fi

# --- all at once, under load -------------------------------------------------
# Time to enable every generic event, and the kernel memory that costs
# (slab and per-CPU allocations: perf's events, tring's field tables),
# per enabled event and CPU. The load opens and reads a file in a loop,
# without forking: a fork and an exec fire hundreds of events each once
# they are on, which made this part four minutes on the KCSAN kernel
# (the test's own commands still fork, exec and exit beside it).
kb() {
	sed -n "s/^$1: *\([0-9]*\).*/\1/p" /proc/meminfo
}
echo 1 >$T/overwrite
( while :; do read -r l </proc/version; done ) &
load=$!
# The events there are, counted before any is on: with hundreds on, every
# system call of a read of a thousand files is recorded (on the KCSAN
# kernel a minute and a half).
all=$(ls -d $T/events/*/*/ | wc -l)
sync
echo 1 >/proc/sys/vm/drop_caches 2>/dev/null
mem0=$(($(kb Slab) + $(kb Percpu)))
# The debug kernels share the events (all_share: by pairs, a third to
# KCSAN, two to KASAN): on the KCSAN kernel enabling all of them took two
# to four minutes. Each event is enabled under one of them every run,
# and under both Debian kernels all at once.
fs=$(all_share)
t0=$(uptime_cs)
if [ "${fs#* }" = 1 ]; then
	echo 1 >$T/events/generic_enable
	rc=$?
else
	awk -v k="${fs% *}" -v n="${fs#* }" -F: 'BEGIN { split(k, ks, ",")
		for (i in ks) want[ks[i]] = 1 } (int((NR - 1) / 2) % n) in want {
		print $1 "/" $2 }' $T/events/generic_events >/tmp/gen-share
	rc=0
	while read -r e; do
		# One that cannot be recorded refuses (generic_enable skips it).
		echo 1 >$T/events/$e/enable 2>/dev/null
	done </tmp/gen-share
	echo "# share ${fs% *}/${fs#* } of the generic events: $(grep -c . /tmp/gen-share) of them"
fi
t1=$(uptime_cs)
mem1=$(($(kb Slab) + $(kb Percpu)))
# The enabled ones: generic_stats counts them (one read, not a thousand).
on=$(sed -n 's/^enabled: *//p' $T/events/generic_stats)
on=${on:-0}
cpus=$(grep -c ^processor /proc/cpuinfo)
echo "# every generic event on: $(((t1 - t0) * 10)) ms, $on events on (of $all), $cpus CPUs, slab+percpu up $((mem1 - mem0)) KiB: $(((mem1 - mem0) * 1024 / (on * cpus > 0 ? on * cpus : 1))) bytes per event per CPU"
# perf's own event objects, when their slab cache is not merged
pe=$(awk '$1 == "perf_event" { print $2 " of " $4 " bytes" }' /proc/slabinfo 2>/dev/null)
[ -z "$pe" ] || echo "# perf_event slab objects now: $pe"
echo "bench enable_all_ms $(((t1 - t0) * 10)) events_on $on cpus $cpus mem_kib $((mem1 - mem0)) bytes_per_event_cpu $(((mem1 - mem0) * 1024 / (on * cpus > 0 ? on * cpus : 1)))" >>$EXPECT
[ "$rc" = 0 ] && [ "$on" -gt 100 ]
ok $? "all: every generic event (of this run's share) enabled under load ($on on)"
w0=$(written)
sleep 1
w1=$(written)
echo "# every generic event on: $((w1 - w0)) events written in about 1 s"
[ "$((w1 - w0))" -gt 0 ]
ok $? "all: the events are written into the buffer"
# A second of them recorded, for the host to decode every kind of
# event and compare the counts (check-traces.sh, generic-all).
echo 0 >$T/overwrite
tring-record -q -o $OUT/generic-all &
rec=$!
recording $OUT/generic-all $rec
sleep 1
kill -INT $rec
wait $rec
ok $? "all: tring-record recorded a second of every generic event on"
# perf waits for a grace period for each tracepoint it leaves, one
# after the other: expedited grace periods (/sys/kernel/rcu_expedited,
# the operator's choice, documented) make that quick.
rx=/sys/kernel/rcu_expedited
rx0=$(cat $rx 2>/dev/null)
[ -z "$rx0" ] || echo 1 >$rx
t0=$(uptime_cs)
echo 0 >$T/events/generic_enable
rc=$?
t1=$(uptime_cs)
[ -z "$rx0" ] || echo "$rx0" >$rx
echo "# every generic event off: $(((t1 - t0) * 10)) ms (rcu_expedited=1)"
kill $load
wait $load 2>/dev/null
[ "$rc" = 0 ] && [ "$(cat $T/events/generic_enable)" = 0 ]
ok $? "all: every generic event disabled, generic_enable reads 0"

echo 4 >$T/buffer_subbuf_size_kb && echo 32 >$T/buffer_size_kb
echo "# $failed failed"
[ "$failed" = 0 ]
