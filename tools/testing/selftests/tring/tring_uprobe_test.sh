#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Dynamic probes: uprobe_events (kernel/trace/tring_probe_uprobe.c) on
# tring_uprobe_target(a, b) of the static program tring_uprobe_target,
# which calls it N times with known arguments (call i: a = i,
# b = SEED - i, returning i + SEED) and prints its own file offset.
#
#   define   a uprobe with two arguments and a uretprobe: their events
#            under events/utest/, uprobe_events lists them back and
#            kprobe_events does not; the default group "uprobes"
#   errors   a missing file, a directory, a file that is not ELF, an
#            offset past the end, a duplicate name, a malformed line, a
#            uprobe removed through kprobe_events: each refused, the
#            list unchanged, the kernel log saying why
#   record   N calls recorded by tring-record (/results/traces/uprobe/,
#            uprobe.expect), ftrace's uprobe_events with the same
#            definitions at once: check-traces.sh counts on the host
#   remove   a removal while enabled (EBUSY), disabled, O_TRUNC, which
#            leaves kprobe_events' probes alone
#   deleted  the probed file unlinked while probed and while a process
#            runs it: its hits recorded (uprobe-del), then removed
#   unload   tring unloaded with a uprobe and a uretprobe enabled while
#            a process hits them, then loaded again
# A kernel without uprobes has no uprobe_events: the test says so.

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
UE=$T/uprobe_events
KE=$T/kprobe_events
OUT=/results/traces
N=1000
SEED=7
TGT="$(dirname "$0")/tring_uprobe_target"
. "$(dirname "$0")/tap.sh"
ok() { tap_ok "$1" "$2"; }

echo "TAP version 13"
mkdir -p $OUT
if [ ! -f $UE ]; then
	ok 0 "uprobe_events # SKIP no uprobe_events in this tring"
	tap_end
	exit
fi
# Other tests reload tring without generic events: probes need them.
if [ "$(cat /sys/module/tring/parameters/generic_events 2>/dev/null)" = N ]; then
	rmmod tring_test 2>/dev/null
	rmmod tring && insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko
fi
: >$UE

OFF=$($TGT --offset)
ok $? "define: the program's offset of tring_uprobe_target: $OFF"
ENTRY="p:utest/uentry $TGT:$OFF a=%di:s64 b=%si:s32"
RET="r:utest/uret $TGT:$OFF ret=\$retval:s64"

# --- define --------------------------------------------------------------------
echo "$ENTRY" >>$UE
ok $? "define: a uprobe with arguments"
echo "$RET" >>$UE
ok $? "define: a uretprobe"
for f in enable format filter id; do
	[ -f $T/events/utest/uentry/$f ] && [ -f $T/events/utest/uret/$f ]
	ok $? "define: events/utest/{uentry,uret}/$f"
done
grep 'field:int a;' $T/events/utest/uentry/format | grep -q 'element_size:8;.signed:1;' &&
	grep 'field:int b;' $T/events/utest/uentry/format | grep -q 'element_size:4;.signed:1;' &&
	grep -q "^probe: p:utest/uentry $TGT:$OFF a=" $T/events/utest/uentry/format
ok $? "define: the format names the fields and the definition"
[ "$(cat $UE)" = "$ENTRY
$RET" ]
ok $? "define: uprobe_events lists both, as written"
! grep -q utest $KE
ok $? "define: kprobe_events does not list them"
echo "p $TGT:$OFF" >>$UE && set -- $T/events/uprobes/*/ && [ $# = 1 ] && [ -d "$1" ]
ok $? "define: no group given: $*"
echo "-:uprobes/" >>$UE && [ "$(grep -c . $UE)" = 2 ]
ok $? "define: removed again with -:uprobes/"

# --- errors --------------------------------------------------------------------
# refused LINE WHAT WHY: the write fails, the list is unchanged, and the
# kernel log says WHY.
refused() {
	before=$(cat $UE)
	dmesg -c >/dev/null
	! echo "$1" >>$UE 2>/dev/null && [ "$(cat $UE)" = "$before" ] &&
		dmesg | grep "uprobe_events: " | grep -qF "$3"
	ok $? "errors: $2 refused, nothing changed ($3)"
}
size=$(wc -c <"$TGT")
refused "p:utest/x /tests/no-such-file:0x10" "a missing file" "no such file"
refused "p:utest/x /tests:0x10" "a directory" "not a regular file"
refused "p:utest/x $(dirname "$0")/tap.sh:0x10" "a file that is not ELF" "not an ELF file"
refused "p:utest/x $TGT:$(printf '0x%x' $((size + 16)))" "an offset past the end" "past the end of the file"
refused "p:utest/uentry $TGT:$OFF" "a duplicate name" "exists"
refused "p:utest/x $TGT" "a line without an offset" "uprobe_events"
refused "-:utest/nosuch" "a removal of nothing" "no such probe"
dmesg -c >/dev/null
! echo "-:utest/uentry" >>$KE 2>/dev/null && [ -d $T/events/utest/uentry ]
ok $? "errors: kprobe_events does not remove a uprobe"

# --- record --------------------------------------------------------------------
echo 4 >$T/buffer_subbuf_size_kb && echo 2048 >$T/buffer_size_kb &&
	echo 0 >$T/overwrite
mount -t tracefs nodev $TR 2>/dev/null
fu=0
if [ -f $TR/uprobe_events ]; then
	echo "$ENTRY" | sed 's|utest/|futest/|' >>$TR/uprobe_events &&
		echo "$RET" | sed 's|utest/|futest/|' >>$TR/uprobe_events && fu=1
fi
tring-record -q --no-statedump -o $OUT/uprobe &
rec=$!
recording $OUT/uprobe $rec
echo 1 >$T/events/utest/enable
ok $? "record: the group enabled (the uprobes registered)"
[ $fu = 1 ] && echo 1 >$TR/events/futest/enable
echo >$TR/trace 2>/dev/null
sum=$($TGT $N $SEED)
ok $? "record: $N calls of tring_uprobe_target"
[ $fu = 1 ] && echo 0 >$TR/events/futest/enable && cp $TR/trace $OUT/uprobe.ftrace
echo 0 >$T/events/utest/enable
kill -INT $rec
wait $rec
ok $? "record: tring-record exit status"
{
	echo "calls $N"
	echo "seed $SEED"
	echo "sum $sum"
	[ $fu = 1 ] && echo "ftrace yes"
} >$OUT/uprobe.expect
[ "$sum" = $((N * (N - 1) / 2 + N * SEED)) ]
ok $? "record: the calls returned what they should (sum $sum)"
if [ $fu = 1 ]; then
	[ "$(grep -c ' uentry: ' $OUT/uprobe.ftrace)" = $N ] &&
		[ "$(grep -c ' uret: ' $OUT/uprobe.ftrace)" = $N ]
	ok $? "record: ftrace's uprobe_events saw $N entries and $N returns"
	echo "-:futest/uentry" >>$TR/uprobe_events
	echo "-:futest/uret" >>$TR/uprobe_events
else
	ok 0 "record: ftrace's uprobe_events # SKIP no uprobe_events in tracefs"
fi

# --- remove --------------------------------------------------------------------
echo 1 >$T/events/utest/uret/enable
! echo '-:utest/uret' >>$UE 2>/dev/null && [ -d $T/events/utest/uret ]
ok $? "remove: refused while enabled (EBUSY)"
! (: >$UE) 2>/dev/null && [ -d $T/events/utest/uentry ]
ok $? "remove: O_TRUNC refused while one is enabled, nothing removed"
echo 0 >$T/events/utest/uret/enable
echo '-:utest/uret' >>$UE && [ ! -d $T/events/utest/uret ] &&
	[ "$(grep -c . $UE)" = 1 ]
ok $? "remove: a disabled probe removed, its files gone"
kp=0
grep -q tring_test_probe_target /proc/kallsyms 2>/dev/null &&
	echo 'p:ukeep/k tring_test_probe_target' >>$KE 2>/dev/null && kp=1
(: >$UE) && [ ! -d $T/events/utest/uentry ] && [ -z "$(cat $UE)" ]
ok $? "remove: O_TRUNC removes the rest"
if [ $kp = 1 ]; then
	grep -q '^p:ukeep/k ' $KE && echo '-:ukeep/k' >>$KE
	ok $? "remove: uprobe_events' O_TRUNC left kprobe_events' probe"
else
	ok 0 "remove: kprobe_events left alone # SKIP no kprobe on tring_test"
fi

# --- deleted -------------------------------------------------------------------
M=50
cp "$TGT" /tmp/tu && echo "p:utest/udel /tmp/tu:$OFF" >>$UE
ok $? "deleted: a uprobe on a copy of the program"
tring-record -q --no-statedump -o $OUT/uprobe-del &
rec=$!
recording $OUT/uprobe-del $rec
echo 1 >$T/events/utest/udel/enable
sleep 1 | /tmp/tu $M 1 wait >/tmp/tu.out &
run=$!
while [ "$(readlink /proc/$run/exe)" != /tmp/tu ]; do
	sleep 0.1
done
rm /tmp/tu
ok $? "deleted: the file unlinked while probed and run"
wait $run
[ "$(cat /tmp/tu.out)" = $((M * (M - 1) / 2 + M)) ]
ok $? "deleted: the unlinked program made its $M calls"
echo 0 >$T/events/utest/udel/enable
kill -INT $rec
wait $rec
ok $? "deleted: tring-record exit status"
echo "deleted $M" >>$OUT/uprobe.expect
grep -q '^p:utest/udel /tmp/tu:' $UE && echo '-:utest/udel' >>$UE &&
	[ -z "$(cat $UE)" ]
ok $? "deleted: still listed, then removed"
rm -f /tmp/tu.out

# --- unload --------------------------------------------------------------------
echo "$ENTRY" >>$UE && echo "$RET" >>$UE && echo 1 >$T/events/utest/enable
ok $? "unload: a uprobe and a uretprobe enabled"
$TGT 1000000000 1 >/dev/null &
run=$!
sleep 1
rmmod tring_test && rmmod tring
ok $? "unload: tring unloaded while a process hits them"
kill -0 $run
ok $? "unload: the process runs on"
kill $run
wait $run 2>/dev/null
insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko &&
	[ -z "$(cat $UE)" ]
ok $? "unload: loaded again, no uprobe left"
tap_end
