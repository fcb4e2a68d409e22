#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Generic events following the kernel (kernel/trace/tring_generic.c,
# tring_gen_perf.c):
#
#   modules   a module with a trace event (tring_tp_a.ko, and Debian's
#             kyber-iosched.ko where the guest has it) loaded before
#             tring: its events are offered; recorded with their fields;
#             pinned while enabled; gone when it is unloaded, and bulk
#             and group enables still succeed; another module's event
#             (tring_tp_b.ko, which may take the freed kernel id) records
#             its own records; loaded again, it is back under a new id.
#             Recorded to /results/traces/generic-mod/ for
#             check-traces.sh (exact counts and fields)
#   hotplug   an enabled event after CPU 1 went offline and came back:
#             recorded on CPU 1 and on CPU 0, exactly
#   readers   the metadata and the stats read while every generic event
#             is being enabled: they do not wait for it
#   filter    the same filters on tring_tp_a in tring and in ftrace
#             select the same events; bad filters refused, nothing changed
#   fuzz      2000 generated filters written while the event fires on
#             every CPU: taken or EINVAL, no kernel report
#   wakeup    (6.3 and later) ipi:ipi_send_cpu is tring's own probe: the
#             wakeups tring raises inside generic handlers are recorded,
#             /results/traces/wakeup/ for check-traces.sh
#   unload    a module's event, then tring, unloaded with a filter in force
#   budget    past generic_mem_kb an enable fails with ENOMEM, and says so
#
# It reloads tring (a module must load before it) and leaves tring and
# tring_test loaded.

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
M=/lib/tring
OUT=/results/traces
# tap_ok, tap_end (tools/testing/vm/tap.sh, in /tests beside this test)
. "$(dirname "$0")/tap.sh"

# events written into the default buffer, on CPU $1 or all CPUs
written() {
	cat $T/per_cpu/cpu${1:-*}/stats | sed -n 's/^events_written: //p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# perf events the CPU hotplug work has attached so far
attachments() {
	sed -n 's/^cpu_attachments: //p' $T/events/generic_stats
}

fire() {
	echo "$2" >/sys/module/$1/parameters/fire
}

echo "TAP version 13"
mkdir -p $TR $OUT
[ -f $TR/available_events ] || mount -t tracefs nodev $TR 2>/dev/null
if ! grep -q : $TR/available_events 2>/dev/null; then
	echo "1..1"
	echo "ok 1 # SKIP no event tracing in this kernel: no generic events"
	exit 0
fi

# --- modules -----------------------------------------------------------------
rmmod tring_test 2>/dev/null
rmmod tring
insmod $M/tring_tp_a.ko
kyber=
if [ -f /lib/extra/kyber-iosched.ko ] && insmod /lib/extra/kyber-iosched.ko; then
	kyber=1
fi
insmod $M/tring.ko && insmod $M/tring_test.ko
tap_ok $? "modules: tring loads after tring_tp_a${kyber:+ and kyber-iosched}"
A=$T/events/tring_tp/tring_tp_a
[ -f $A/enable ] && [ -f $T/events/tring_tp/enable ] &&
	{ [ -z "$kyber" ] || [ -f $T/events/kyber/kyber_latency/enable ]; }
tap_ok $? "modules: the events of modules loaded before tring are offered${kyber:+ (tring_tp, kyber)}"
echo "# offered: $(cat $T/events/generic_events | tr '\n' ' ')"

echo 2048 >$T/buffer_size_kb
echo 0 >$T/overwrite
# No statedump: its events would land between the two counts below.
tring-record -q --no-statedump -o $OUT/generic-mod &
rec=$!
recording $OUT/generic-mod $rec
echo 1 >$T/events/tring_tp/enable
w0=$(written)
fire tring_tp_a 100
w1=$(written)
[ "$((w1 - w0))" = 100 ]
tap_ok $? "modules: 100 tring_tp_a fired, $((w1 - w0)) events written"
old_id=$(cat $A/id)
grep -q "field:string name;" $A/format && grep -q "field:char\[\] tag;" $A/format
tap_ok $? "modules: tring_tp_a's fields from the kernel's table (string name, char[6] tag)"
rmmod tring_tp_a 2>/dev/null
[ -f $A/enable ]
tap_ok $? "modules: tring_tp_a cannot be unloaded while its event is enabled"
echo 0 >$T/events/tring_tp/enable
kid=$(sed -n 's/^kernel_id: //p' $A/format)
rmmod tring_tp_a && [ ! -e $A ]
tap_ok $? "modules: unloaded (its event had the kernel's id $kid): tring_tp_a is no longer offered"
[ -z "$kyber" ] || rmmod kyber-iosched
rc=0
echo 1 >$T/events/tring_tp/enable || rc=1
echo 0 >$T/events/tring_tp/enable || rc=1
echo 1 >$T/events/generic_enable || rc=1
echo 0 >$T/events/generic_enable || rc=1
tap_ok $rc "modules: group and bulk enables succeed after the module left${kyber:+ (and kyber-iosched)}"

insmod $M/tring_tp_b.ko
B=$T/events/tring_tp/tring_tp_b
echo "# tring_tp_b has the kernel's id $(sed -n 's/^kernel_id: //p' $B/format) (tring_tp_a had $kid)"
! echo 1 >$A/enable 2>/dev/null && echo 1 >$B/enable
w0=$(written)
fire tring_tp_b 50
w1=$(written)
echo 0 >$B/enable
[ "$((w1 - w0))" = 50 ]
tap_ok $? "modules: tring_tp_a's event cannot be enabled; tring_tp_b's records its own 50 ($((w1 - w0)) written)"
rmmod tring_tp_b
insmod $M/tring_tp_a.ko
echo 1 >$A/enable
w0=$(written)
fire tring_tp_a 10
w1=$(written)
[ "$((w1 - w0))" = 10 ] && [ "$(cat $A/id)" != "$old_id" ]
tap_ok $? "modules: loaded again, tring_tp_a is back under a new id ($old_id, now $(cat $A/id)) and records (10 fired, $((w1 - w0)) written)"
if [ -n "$kyber" ]; then
	insmod /lib/extra/kyber-iosched.ko &&
		[ -f $T/events/kyber/kyber_latency/enable ] &&
		echo 1 >$T/events/kyber/enable && echo 0 >$T/events/kyber/enable &&
		rmmod kyber-iosched
	tap_ok $? "modules: kyber-iosched loaded again: its events are back and switch"
else
	tap_ok 0 "modules: kyber-iosched loaded again # SKIP not in this guest"
fi
sleep 0.2
kill -INT $rec
wait $rec
tap_ok $? "modules: tring-record exit status"
echo "tring_tp_a 110 tring_tp_b 50" >$OUT/generic-mod.expect

# --- hotplug -----------------------------------------------------------------
C1=/sys/devices/system/cpu/cpu1/online
if [ -f $C1 ] && command -v taskset >/dev/null; then
	att0=$(attachments)
	echo 0 >$C1
	echo 1 >$C1
	# The perf events of a CPU that came back are made by a work item:
	# wait for it (30 s at most; the check below tells if it never came).
	i=0
	while [ "$(attachments)" = "$att0" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	a0=$(written 0)
	b0=$(written 1)
	taskset -c 0 sh -c "echo 30 >/sys/module/tring_tp_a/parameters/fire"
	taskset -c 1 sh -c "echo 40 >/sys/module/tring_tp_a/parameters/fire"
	a1=$(written 0)
	b1=$(written 1)
	[ "$((a1 - a0))" = 30 ] && [ "$((b1 - b0))" = 40 ]
	tap_ok $? "hotplug: after CPU 1 went offline and back, 30 fired on CPU 0 and 40 on CPU 1: $((a1 - a0)) and $((b1 - b0)) written"
	pe=$(sed -n 's/^perf_events: //p' $T/events/generic_stats)
	[ "$pe" = "$(grep -c ^processor /proc/cpuinfo)" ]
	tap_ok $? "hotplug: one perf event per online CPU for the one enabled event ($pe)"
else
	tap_ok 0 "hotplug # SKIP no CPU 1 or no taskset"
	tap_ok 0 "hotplug: perf events # SKIP no CPU 1 or no taskset"
fi
# --- filter ------------------------------------------------------------------
# The same filter on tring_tp_a in tring (before the buffer) and in ftrace,
# 100 events fired with seq 0 to 99: the same events pass.
FT=$TR/events/tring_tp/tring_tp_a
if [ -f $A/filter ] && [ -f $FT/filter ]; then
	for expr in 'seq < 10' 'seq & 1' 'seq >= 90 || seq == 5' \
		'name == "tring" && seq > 50' 'tag ~ "tag*" && !(seq < 95)' \
		'tag == "tagB"' 'common_pid != 0 && seq <= 3' 'seq < 010' \
		'(seq > 10 && seq < 20) || (name ~ "*ing" && seq == 99)' \
		'name ~ "tr[a-i]ng" && seq & 0x40' \
		'CPU >= 0 && common_cpu < 4096 && COMM != "x" && seq < 3'; do
		echo "$expr" >$A/filter && echo "$expr" >$FT/filter &&
			echo >$TR/trace && echo 1 >$FT/enable
		rc=$?
		w0=$(written)
		fire tring_tp_a 100
		w1=$(written)
		echo 0 >$FT/enable
		nf=$(grep -c ' tring_tp_a:' $TR/trace)
		[ $rc = 0 ] && [ "$((w1 - w0))" = "$nf" ] &&
			[ "$(cat $A/filter)" = "$expr" ]
		tap_ok $? "filter: '$expr': tring wrote $((w1 - w0)) of 100, ftrace $nf"
	done
	echo 0 >$FT/filter
	# Refused with the position; the filter in force stays.
	echo 'seq < 10' >$A/filter
	! echo 'seq < 10 && nosuch == 1' >$A/filter 2>/dev/null &&
		grep -q '^error at 12: no such field' $A/filter &&
		grep -q '^in force: seq < 10$' $A/filter
	tap_ok $? "filter: an unknown field is refused at its position, the filter in force stays"
	bad=0
	for expr in 'seq <' 'seq == "tring"' 'name < 3' 'seq == 4294967296' \
		'((((((((((((((((((seq == 1))))))))))))))))))' 'seq == 1 ||' \
		'tag ~ "unterminated'; do
		echo "$expr" >$A/filter 2>/dev/null && bad=1
	done
	w0=$(written)
	fire tring_tp_a 100
	w1=$(written)
	[ $bad = 0 ] && [ "$((w1 - w0))" = 10 ]
	tap_ok $? "filter: 7 bad filters refused; seq < 10 still selects $((w1 - w0)) of 100"
	echo 0 >$A/filter
	w0=$(written)
	fire tring_tp_a 100
	w1=$(written)
	[ "$(cat $A/filter)" = none ] && [ "$((w1 - w0))" = 100 ]
	tap_ok $? "filter: cleared with 0: all $((w1 - w0)) of 100 written"
	# tring-record -e ... --filter: in force while it records, then gone.
	tring-record -q --no-statedump -e tring_tp:tring_tp_a \
		--filter 'seq < 7 || name != "tring"' -o $OUT/filter-rec &
	rec=$!
	recording $OUT/filter-rec $rec
	during=$(cat $A/filter)
	fire tring_tp_a 100
	kill -INT $rec
	wait $rec
	rc=$?
	[ $rc = 0 ] && [ "$during" = 'seq < 7 || name != "tring"' ] &&
		[ "$(cat $A/filter)" = none ] && [ "$(cat $A/enable)" = 1 ]
	tap_ok $? "filter: tring-record --filter in force while recording (exit $rc), removed after"
	echo "0 1 2 3 4 5 6" >$OUT/filter-rec.expect
fi

# --- filter fuzz --------------------------------------------------------------
# 2000 generated filters, every other one broken by a random piece
# (awk's generator, seeded), written while tring_tp_a fires on every
# CPU (loops at nice 19, so that the writer's own loop keeps its pace):
# each is taken or refused with EINVAL, the filter in force is
# replaced under load, and the kernel reports nothing (the splat check
# of the run; KASAN on kasan-6.1). The debug kernels share the cases
# (fuzz_share) by pairs, a whole and a broken one.
if [ -f $A/filter ]; then
	fs=$(fuzz_share)
	fk=${fs% *}
	fn=${fs#* }
	awk -v fk="$fk" -v fn="$fn" 'BEGIN {
		srand(7)
		n = split("seq name tag common_pid == != < <= > >= & ~ && || ! ( ) 0 1 -1 42 0x 0xff 010 4294967295 4294967296 \" '"'"' * ? [ ] [!a-z] tring tagA \\\\", p, " ")
		split("== != < <= > >= &", iop, " ")
		split("\"tring\" \"t*\" \"tag?\" \"[a-t]ag*\" \"\" \"x\"", sv, " ")
		for (i = 0; i < 2000; i++) {
			s = ""
			for (k = 0; k <= int(rand() * 4); k++) {
				if (k)
					s = s (rand() < 0.5 ? " && " : " || ") (rand() < 0.2 ? "!" : "")
				if (rand() < 0.6)
					s = s "(seq " iop[1 + int(rand() * 7)] " " int(rand() * 120) ")"
				else
					s = s (rand() < 0.5 ? "name" : "tag") " " (rand() < 0.5 ? "~" : "==") " " sv[1 + int(rand() * 6)]
			}
			# Half broken: a random piece written over a random place.
			if (i % 2) {
				j = 1 + int(rand() * length(s))
				s = substr(s, 1, j - 1) p[1 + int(rand() * n)] substr(s, j + 2)
			}
			if (int(i / 2) % fn == fk)
				print s
		}
	}' >/tmp/fuzz.txt
	nf=$(grep -c '' /tmp/fuzz.txt)
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	pids=
	pin=
	command -v taskset >/dev/null && pin=1
	for c in $(seq 0 $((ncpu - 1))); do
		${pin:+taskset -c $c} sh -c "while :; do echo 1000 >/sys/module/tring_tp_a/parameters/fire; done" &
		renice -n 19 -p $! >/dev/null
		pids="$pids $!"
	done
	acc=0
	ref=0
	other=0
	while IFS= read -r f; do
		if echo "$f" >$A/filter 2>/tmp/fuzz.err; then
			acc=$((acc + 1))
		elif read -r e </tmp/fuzz.err && [ "${e%Invalid argument*}" != "$e" ]; then
			ref=$((ref + 1))
		else
			other=$((other + 1))
		fi
	done </tmp/fuzz.txt
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	echo 0 >$A/filter
	[ $other = 0 ] && [ $acc -gt 25 ] && [ $ref -gt 25 ] && [ "$(cat $A/filter)" = none ] &&
		[ $((acc + ref)) = "$nf" ]
	tap_ok $? "filter fuzz: $nf of 2000 filters (share $fk/$fn) written while tring_tp_a fires on $ncpu CPUs: $acc taken, $ref refused (EINVAL), $other other errors"
fi

# --- wakeup ------------------------------------------------------------------
# From 6.3 irq_work_raise() fires ipi:ipi_send_cpu, and tring's reader
# wakeup raises it from inside a generic event's perf handler, where perf
# would drop a generic ipi_send_cpu uncounted: tring probes it itself.
I=$T/events/ipi/ipi_send_cpu
if [ -f $I/enable ]; then
	! grep -q kernel_id $I/format
	tap_ok $? "wakeup: ipi:ipi_send_cpu is tring's own probe, not a generic event"
	echo 1 >$I/enable
	tring-record -q -w 1 --no-statedump -o $OUT/wakeup &
	rec=$!
	recording $OUT/wakeup $rec
	fire tring_tp_a 20000
	sleep 0.5
	kill -INT $rec
	wait $rec
	tap_ok $? "wakeup: tring-record exit status, 20000 tring_tp_a with ipi_send_cpu on"
	echo 0 >$I/enable
	awk '$3 == "tring_wakeup_fn" { print $1; exit }' /proc/kallsyms >$OUT/wakeup.expect
fi
echo 0 >$A/enable
rmmod tring_tp_a

# --- readers beside a bulk enable --------------------------------------------
# On the debug kernels, this run's share of them (fuzz_share, as
# tring_generic_test.sh's "all"): enabling them lasts long enough there.
fs=$(fuzz_share)
awk -v k="${fs% *}" -v n="${fs#* }" 'int((NR - 1) / 2) % n == k' \
	$TR/available_events >$T/events/generic_events
tap_ok $? "readers: tracefs's available_events offered ($(grep -c . $T/events/generic_events) generic events, share ${fs% *}/${fs#* })"
echo 1 >$T/events/generic_enable &
bulk=$!
# Read as soon as the first event is on (generic_stats' "enabled"), not
# after a fixed wait: the enable must still be running before and after.
for _ in $(seq 200); do
	[ "$(sed -n 's/^enabled: //p' $T/events/generic_stats)" -gt 0 ] 2>/dev/null && break
	kill -0 $bulk 2>/dev/null || break
	sleep 0.05
done
before=$(kill -0 $bulk 2>/dev/null && echo running)
cat $T/metadata >/dev/null && cat $T/per_cpu/cpu0/stats >/dev/null &&
	cat $T/events/generic_stats >/dev/null
rc=$?
after=$(kill -0 $bulk 2>/dev/null && echo running)
if [ "$before" = running ] && [ "$after" = running ]; then
	tap_ok $rc "readers: metadata, stats and generic_stats read while every generic event is being enabled"
else
	tap_ok $rc "readers: metadata and stats read # SKIP the bulk enable was done too soon to tell"
fi
wait $bulk
echo "# after the bulk enable: $(tr '\n' ' ' <$T/events/generic_stats)"
# perf waits for a grace period for each tracepoint it leaves: expedited
# ones, as in tring_generic_test.sh (90 s of 6.1's debug kernel without).
rx=/sys/kernel/rcu_expedited
rx0=$(cat $rx 2>/dev/null)
[ -z "$rx0" ] || echo 1 >$rx
echo 0 >$T/events/generic_enable
[ -z "$rx0" ] || echo "$rx0" >$rx

# --- unload with a filter in force -------------------------------------------
# An event freed with its filter still set: the filters' static key is
# turned in process context, never in the RCU callback that frees the
# event (it sleeps: the debug kernels' atomic-sleep check reports it).
# Once by its module going, once by tring going.
insmod $M/tring_tp_b.ko
echo 'small < 5' >$B/filter && rmmod tring_tp_b && [ ! -e $B ]
tap_ok $? "unload: tring_tp_b unloaded with a filter in force on its event"
rmmod tring_tp_b 2>/dev/null; insmod $M/tring_tp_b.ko
echo 'small < 5' >$B/filter && rmmod tring_test && rmmod tring &&
	insmod $M/tring.ko && insmod $M/tring_test.ko && rmmod tring_tp_b
tap_ok $? "unload: tring unloaded with a filter in force on a generic event, loaded again"

# --- budget -------------------------------------------------------------------
# tring was loaded again just above: kmem:kmalloc is offered anew
# (every kernel the tests run on has it).
P=/sys/module/tring/parameters/generic_mem_kb
E=$T/events/kmem/kmalloc/enable
echo kmem:kmalloc >$T/events/generic_events
if [ -f $E ]; then
	echo 1 >$P
	dmesg -c >/dev/null
	! echo 1 >$E 2>/dev/null && [ "$(cat $E)" = 0 ] &&
		dmesg | grep -q "kmalloc not enabled: .* budget (generic_mem_kb) is 1024"
	tap_ok $? "budget: past generic_mem_kb=1 an enable fails and the kernel log names the sizes"
	echo 0 >$P
else
	tap_ok 1 "budget: kmem:kmalloc offered"
fi
tap_end
