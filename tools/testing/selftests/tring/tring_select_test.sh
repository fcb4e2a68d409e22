#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tring-record's choice of events (-e, --list) on the running kernel:
#
#   list      --list shows tring's events and the kernel's, with fields
#   select    -e sched_switch -e kmem:kmalloc (a generic event, offered
#             from tracefs) records while another event was on: only
#             those two are on while recording, all is as before after;
#             the trace goes to /results/traces/select/ for
#             check-traces.sh, which checks it holds those two only
#   restore   the enable state is restored after Ctrl-C, and after a
#             spec that names nothing (exit status 1, nothing changed)

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
OUT=/results/traces
# tap_ok, tap_end (tools/testing/vm/tap.sh, in /tests beside this test)
. "$(dirname "$0")/tap.sh"

state() {
	cat $T/events/$1/enable 2>/dev/null || echo none
}

echo "TAP version 13"
mkdir -p $TR $OUT
[ -f $TR/available_events ] || mount -t tracefs nodev $TR 2>/dev/null
generic=
grep -q '^kmem:kmalloc$' $TR/available_events 2>/dev/null &&
	[ -f $T/events/generic_events ] && generic=1

# --- list ---------------------------------------------------------------------
tring-record --list 'sched:sched_sw*' >/tmp/list.txt 2>&1
[ $? = 0 ] && grep -q '^sched:sched_switch$' /tmp/list.txt &&
	grep -q 'prev_comm' /tmp/list.txt && ! grep -q '^net:' /tmp/list.txt
rc=$?
[ $rc = 0 ] || sed 's/^/# /' /tmp/list.txt | head -20
tap_ok $rc "list: sched:sched_sw* is sched_switch, with its fields"
if [ -n "$generic" ]; then
	tring-record -l kmem:kmalloc >/tmp/list.txt 2>&1
	grep -q '^kmem:kmalloc' /tmp/list.txt && grep -q 'bytes_req' /tmp/list.txt
	rc=$?
	[ $rc = 0 ] || sed 's/^/# /' /tmp/list.txt | head -20
	tap_ok $rc "list: the kernel's kmem:kmalloc, with bytes_req"
fi

# --- select -------------------------------------------------------------------
echo 0 >$T/events/enable
echo 1 >$T/events/sched/sched_waking/enable
before_switch=$(state sched/sched_switch)
specs="-e sched_switch"
[ -n "$generic" ] && specs="$specs -e kmem:kmalloc"
tring-record -q --no-statedump $specs -o $OUT/select &
rec=$!
recording $OUT/select $rec
during="$(state sched/sched_switch) $(state sched/sched_waking) $(state kmem/kmalloc)"
for i in 1 2 3 4 5 6 7 8; do cat /proc/meminfo >/dev/null; sleep 0.05; done
kill -INT $rec
wait $rec
tap_ok $? "select: tring-record $specs exit status"
want="1 0 none"
[ -n "$generic" ] && want="1 0 1"
[ "$during" = "$want" ]
tap_ok $? "select: while recording sched_switch, sched_waking, kmalloc: $during (want $want)"
after="$(state sched/sched_switch) $(state sched/sched_waking) $(state kmem/kmalloc)"
want="$before_switch 1 none"
[ -n "$generic" ] && want="$before_switch 1 0"
[ "$after" = "$want" ]
tap_ok $? "select: afterwards: $after (want $want)"
echo "sched_switch${generic:+ kmalloc}" >$OUT/select.expect

# --- restore --------------------------------------------------------------------
tring-record -q --no-statedump -e 'sched:sched_wak*' -e nosuch -o /tmp/sel-bad \
	2>/tmp/sel.err
rc=$?
[ $rc = 1 ] && grep -q 'nosuch: no such event' /tmp/sel.err &&
	[ "$(state sched/sched_waking)" = 1 ] && [ "$(state sched/sched_wakeup)" = 0 ]
tap_ok $? "restore: -e nosuch fails (exit $rc), nothing changed"
echo 0 >$T/events/sched/sched_waking/enable
echo 1 >$T/events/sched/sched_wakeup/enable
tring-record -q --no-statedump -e sched_waking -o /tmp/sel-int &
rec=$!
recording /tmp/sel-int $rec
during="$(state sched/sched_waking) $(state sched/sched_wakeup)"
kill -INT $rec
wait $rec
rc=$?
[ $rc = 0 ] && [ "$during" = "1 0" ] &&
	[ "$(state sched/sched_waking) $(state sched/sched_wakeup)" = "0 1" ]
tap_ok $? "restore: after Ctrl-C (exit $rc) sched_waking is off and sched_wakeup on again (during: $during)"
echo 0 >$T/events/sched/sched_wakeup/enable
rm -rf /tmp/sel-int /tmp/sel-bad

tap_end
