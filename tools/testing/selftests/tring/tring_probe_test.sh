#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Dynamic probes: kprobe_events (kernel/trace/tring_probe_*.c) on the
# test module's tring_test_probe_target(a, b, name), which
# tring_test.ko's test/probe calls N times with known arguments.
#
#   define   a kprobe with four arguments (one that always faults) and a
#            kretprobe: their events under events/tprobes/ with enable,
#            format, filter and id; kprobe_events lists them back
#   errors   malformed lines, an unknown symbol, an offset inside an
#            instruction, a blacklisted function, tring's own code, a
#            duplicate name, a removal of nothing: each refused, the
#            list unchanged, the kernel log showing where
#   record   1000 calls recorded by tring-record (to
#            /results/traces/probe/, probe.expect) while ftrace's own
#            kprobe_events has the same definitions (probe.ftrace):
#            check-traces.sh compares the two on the host
#   filter   a filter on an argument of the probe: only what matches
#   command  tring-record --probe DEF --filter EXPR -- COMMAND: only the
#            command's calls that match, while another process calls too
#   cpu      a CPU taken offline and back under an enabled probe
#   remove   a removal while enabled (EBUSY), disabled, O_TRUNC
#   limit    10000 definitions written at once: 1024 made, then ENOSPC;
#            all removed with one O_TRUNC
#   fuzz     200 generated definitions, half broken: taken (then run)
#            or refused, never a splat (KASAN on kasan-6.1)
#   module   the probed module unloaded under an enabled probe: gone
# A kernel without kprobes has no kprobe_events: the test says so.

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
KE=$T/kprobe_events
OUT=/results/traces
N=1000
SEED=7
. "$(dirname "$0")/tap.sh"
ok() { tap_ok "$1" "$2"; }

echo "TAP version 13"
mkdir -p $OUT
if [ ! -f $KE ]; then
	ok 0 "kprobe_events # SKIP no kprobe_events in this tring"
	tap_end
	exit
fi
# Other tests reload tring without generic events: probes need them.
if [ "$(cat /sys/module/tring/parameters/generic_events 2>/dev/null)" = N ]; then
	rmmod tring_test 2>/dev/null
	rmmod tring && insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko
fi
: >$KE

ENTRY='p:tprobes/tentry tring_test_probe_target a=%di:u64 b=%si:s32 name=+0(%dx):string bad=+0(%di):u64'
RET='r:tprobes/tret tring_test_probe_target ret=$retval:s64'

# --- define --------------------------------------------------------------------
echo "$ENTRY" >>$KE
ok $? "define: a kprobe with arguments"
echo "$RET" >>$KE
ok $? "define: a kretprobe"
for f in enable format filter id; do
	[ -f $T/events/tprobes/tentry/$f ] && [ -f $T/events/tprobes/tret/$f ]
	ok $? "define: events/tprobes/{tentry,tret}/$f"
done
[ -f $T/events/tprobes/enable ]
ok $? "define: events/tprobes/enable"
grep -q 'field:string name;' $T/events/tprobes/tentry/format &&
	grep -q 'field:int a;' $T/events/tprobes/tentry/format &&
	grep -q '^probe: p:tprobes/tentry tring_test_probe_target a=' $T/events/tprobes/tentry/format
ok $? "define: the format names the fields and the definition"
[ "$(cat $KE)" = "$ENTRY
$RET" ]
ok $? "define: kprobe_events lists both, as written"

# --- errors --------------------------------------------------------------------
# refused LINE WHAT: the write fails, the list is unchanged, and the
# kernel log shows the line.
refused() {
	before=$(cat $KE)
	dmesg -c >/dev/null
	! echo "$1" >>$KE 2>/dev/null && [ "$(cat $KE)" = "$before" ] &&
		dmesg | grep -qF "kprobe_events: "
	ok $? "errors: $2 refused, nothing changed"
}
refused 'p:tprobes/x' "a line without a target"
refused 'q:tprobes/x tring_test_probe_target' "an unknown command"
refused 'p:tprobes/x tring_test_probe_target a=%nosuchreg' "an unknown register"
refused 'p:tprobes/x tring_no_such_function_at_all' "an unknown symbol"
refused 'p:tprobes/x tring_test_probe_target+1' "an offset inside an instruction"
refused 'p:tprobes/x kprobe_int3_handler' "a function on the kprobe blacklist"
refused 'p:tprobes/x tring_gen_record' "tring's own code"
refused 'p:tprobes/tentry tring_test_probe_target' "a duplicate name"
refused 'p:sched/sched_switch tring_test_probe_target' "the name of one of tring's events"
refused '-:tprobes/nosuch' "a removal of nothing"
dmesg -c >/dev/null
echo 'p:tprobes/x tring_no_such_function_at_all' >>$KE 2>/dev/null
dmesg | grep -A2 'unknown symbol' | grep -q '^ *\^' ||
	dmesg | grep -q '       \^'
ok $? "errors: the kernel log shows a caret under the error"

# --- record --------------------------------------------------------------------
echo 4 >$T/buffer_subbuf_size_kb && echo 2048 >$T/buffer_size_kb &&
	echo 0 >$T/overwrite
mount -t tracefs nodev $TR 2>/dev/null
fk=0
if [ -f $TR/kprobe_events ]; then
	echo "${ENTRY%% bad=*}" | sed 's|tprobes/|ftprobes/|' >>$TR/kprobe_events &&
		echo "$RET" | sed 's|tprobes/|ftprobes/|' >>$TR/kprobe_events && fk=1
fi
tring-record -q --no-statedump -o $OUT/probe &
rec=$!
recording $OUT/probe $rec
echo 1 >$T/events/tprobes/enable
ok $? "record: the group enabled"
[ $fk = 1 ] && echo 1 >$TR/events/ftprobes/enable
echo >$TR/trace 2>/dev/null
echo "$N $SEED" >$T/test/probe
ok $? "record: $N calls of tring_test_probe_target"
[ $fk = 1 ] && echo 0 >$TR/events/ftprobes/enable && cp $TR/trace $OUT/probe.ftrace
echo 0 >$T/events/tprobes/enable
kill -INT $rec
wait $rec
ok $? "record: tring-record exit status"
{
	echo "calls $N"
	echo "seed $SEED"
	echo "sum $(cat $T/test/probe)"
	echo "addr $(grep ' tring_test_probe_target' /proc/kallsyms | cut -d' ' -f1)"
	[ $fk = 1 ] && echo "ftrace yes"
} >$OUT/probe.expect
[ "$(cat $T/test/probe)" = $(((N - 1) * N + N * SEED)) ]
ok $? "record: the calls returned what they should (sum $(cat $T/test/probe))"
if [ $fk = 1 ]; then
	[ "$(grep -c ' tentry: ' $OUT/probe.ftrace)" = $N ] &&
		[ "$(grep -c ' tret: ' $OUT/probe.ftrace)" = $N ]
	ok $? "record: ftrace's kprobe_events saw $N entries and $N returns"
	echo "-:ftprobes/tentry" >>$TR/kprobe_events
	echo "-:ftprobes/tret" >>$TR/kprobe_events
else
	ok 0 "record: ftrace's kprobe_events # SKIP no kprobe_events in tracefs"
fi

# --- filter --------------------------------------------------------------------
echo 'b < 0 && a >= 5' >$T/events/tprobes/tentry/filter
ok $? "filter: set on the probe's arguments"
tring-record -q --no-statedump -o $OUT/probe-filter &
rec=$!
recording $OUT/probe-filter $rec
echo 1 >$T/events/tprobes/tentry/enable
echo "20 3" >$T/test/probe
echo 0 >$T/events/tprobes/tentry/enable
kill -INT $rec
wait $rec
ok $? "filter: tring-record exit status"
echo "filtered a 5..19" >>$OUT/probe.expect
echo 0 >$T/events/tprobes/tentry/filter

# --- command: tring-record --probe --filter -- COMMAND ---------------------------
# The command's calls with a >= 10 only; another process calls the same
# function meanwhile (outside the command's tree: not recorded).
rm -f /tmp/tring-probe-stop
( while [ ! -f /tmp/tring-probe-stop ]; do echo "50 0" >$T/test/probe; done ) &
other=$!
tring-record -q --no-statedump -o $OUT/probe-cmd \
	--probe 'p:cmd/centry tring_test_probe_target a=%di:u64' --filter 'a >= 10' \
	-- sh -c "echo '30 1' >$T/test/probe"
ok $? "command: tring-record --probe --filter -- COMMAND exit status"
touch /tmp/tring-probe-stop
wait $other
! grep -q cmd/centry $KE && [ ! -d $T/events/cmd/centry ]
ok $? "command: the probe removed at exit"
echo "command a 10..29" >>$OUT/probe.expect

# --- cpu: a CPU offline and back while a probe is enabled ----------------------
C1=/sys/devices/system/cpu/cpu1/online
if [ -w $C1 ]; then
	echo 1 >$T/events/tprobes/tentry/enable &&
		echo 0 >$C1 && echo "50 1" >$T/test/probe && echo 1 >$C1 &&
		echo "50 1" >$T/test/probe && echo 0 >$T/events/tprobes/tentry/enable
	ok $? "cpu: CPU 1 offline and back under an enabled probe"
else
	ok 0 "cpu: CPU 1 offline and back # SKIP no CPU hotplug here"
fi

# --- remove --------------------------------------------------------------------
echo 1 >$T/events/tprobes/tret/enable
! echo '-:tprobes/tret' >>$KE 2>/dev/null && [ -d $T/events/tprobes/tret ]
ok $? "remove: refused while enabled (EBUSY)"
! (: >$KE) 2>/dev/null && [ -d $T/events/tprobes/tentry ]
ok $? "remove: O_TRUNC refused while one is enabled, nothing removed"
echo 0 >$T/events/tprobes/tret/enable
echo '-:tprobes/tret' >>$KE && [ ! -d $T/events/tprobes/tret ] &&
	[ "$(grep -c . $KE)" = 1 ]
ok $? "remove: a disabled probe removed, its files gone"
(: >$KE) && [ ! -d $T/events/tprobes/tentry ] && [ -z "$(cat $KE)" ]
ok $? "remove: O_TRUNC removes the rest"
echo "$ENTRY" >>$KE && [ -d $T/events/tprobes/tentry ]
ok $? "remove: the same name defined again"
echo '-:tprobes/' >>$KE && [ -z "$(cat $KE)" ]
ok $? "remove: a whole group with -:GRP/"

# --- limit ---------------------------------------------------------------------
# 1024 kprobes registered one by one (each a kallsyms look-up): on the
# debug kernels only the last share runs it (the KASAN kernel's).
fs=$(fuzz_share)
if [ "${fs% *}" != $((${fs#* } - 1)) ]; then
	ok 0 "limit: 10000 definitions at once # SKIP the other debug kernel's share"
else
	i=0
	while [ $i -lt 10000 ]; do
		echo "p:many/p$i tring_test_probe_target"
		i=$((i + 1))
	done >/tmp/tring-probes
	dmesg -c >/dev/null
	! cat /tmp/tring-probes >>$KE 2>/dev/null
	ok $? "limit: 10000 definitions at once refused past the limit"
	[ "$(grep -c . $KE)" = 1024 ] && dmesg | grep -q 'too many probes'
	ok $? "limit: 1024 made ($(grep -c . $KE)), then 'too many probes'"
	(: >$KE) && [ -z "$(cat $KE)" ] && [ ! -d $T/events/many/p0 ]
	ok $? "limit: all removed with one O_TRUNC"
	rm -f /tmp/tring-probes
fi

# --- fuzz ----------------------------------------------------------------------
# 200 generated definitions (awk's generator, seeded), every other one
# broken by a random piece: each is taken or refused with an error of
# its own (EINVAL, ENOENT, EILSEQ, E2BIG, EPERM); one taken is enabled,
# its function made to run (the test module's by its trigger, vfs_read
# and do_sys_openat2 by this shell), disabled and removed. Fetch
# arguments that read NULL, user, unmapped and kernel memory run in the
# handlers: the kernel reports nothing (the run's splat check; KASAN on
# kasan-6.1). The debug kernels share the cases (fuzz_share).
fs=$(fuzz_share)
fk=${fs% *}
fn=${fs#* }
awk -v fk="$fk" -v fn="$fn" 'BEGIN {
	srand(23)
	split("tring_test_probe_target vfs_read do_sys_openat2 tring_test_probe_target+4 vfs_read+0 no_such_fn", tg, " ")
	split("%di %si %dx %ax %sp %ip $arg1 $arg2 $arg3 $stack $stack0 $stack5 $comm $retval @jiffies @jiffies+8 @0 @0xffffffffffffff00 \\7 \\\"txt\" +0(%di) +0(%si) +8(+0(%di)) -8(%sp) +0(%dx) +0(+0(%sp)) +0(%ax) u+0(%si) +0($arg1) +16($stack)", fa, " ")
	split(":u8 :s16 :x32 :u64 :s64 :string :ustring :symbol :symstr :x8 : :u128 :bad", ty, " ")
	split("( ) : % $ @ + - u9 = , \\ / 0x ! #", junk, " ")
	for (i = 0; i < 200; i++) {
		t = tg[1 + int(rand() * 6)]
		s = (rand() < 0.3 ? "r" : "p") ":fz/e" i " " t
		for (k = 0; k < int(rand() * 5); k++)
			s = s " a" k "=" fa[1 + int(rand() * 30)] ty[1 + int(rand() * 13)]
		if (i % 2) {
			j = 1 + int(rand() * length(s))
			s = substr(s, 1, j - 1) junk[1 + int(rand() * 15)] substr(s, j + 1)
		}
		if (int(i / 2) % fn == fk)
			print s
	}
}' >/tmp/pfuzz.txt
nf=$(grep -c '' /tmp/pfuzz.txt)
acc=0
ref=0
other=0
while IFS= read -r d; do
	if echo "$d" >>$KE 2>/tmp/pfuzz.err; then
		acc=$((acc + 1))
		# GROUP/EVENT as listed (the broken piece may be in the name).
		e=$(sed -n 's|^[pr][0-9]*:\([^ ]*\) .*|\1|p' $KE | tail -n 1)
		echo 1 >$T/events/$e/enable
		echo "3 1" >$T/test/probe
		cat /proc/version >/dev/null
		echo 0 >$T/events/$e/enable
		echo "-:$e" >>$KE
	else
		case $(cat /tmp/pfuzz.err) in
		*"Invalid argument"* | *"No such file"* | *"multibyte"* | \
		*"Illegal byte"* | *"too long"* | *"not permitted"*)
			ref=$((ref + 1)) ;;
		*) other=$((other + 1))
			echo "# other error: $d: $(cat /tmp/pfuzz.err)" ;;
		esac
	fi
done </tmp/pfuzz.txt
sed 's/^/# left defined: /' $KE
[ $other = 0 ] && [ $acc -gt 10 ] && [ $ref -gt 10 ] && [ $((acc + ref)) = "$nf" ] &&
	[ -z "$(cat $KE)" ]
ok $? "fuzz: $nf of 200 definitions (share $fk/$fn): $acc taken, run and removed, $ref refused, $other other errors"
rm -f /tmp/pfuzz.txt /tmp/pfuzz.err

# --- module: the probed module unloaded under an enabled probe ------------------
echo "$ENTRY" >>$KE && echo 1 >$T/events/tprobes/tentry/enable &&
	grep -q '^state: enabled' $T/events/tprobes/tentry/format
ok $? "module: a probe on tring_test.ko enabled"
rmmod tring_test && grep -q '^state: gone' $T/events/tprobes/tentry/format
ok $? "module: tring_test.ko unloaded under it; its format says gone"
echo 0 >$T/events/tprobes/tentry/enable && echo '-:tprobes/tentry' >>$KE &&
	insmod /lib/tring/tring_test.ko
ok $? "module: the gone probe disabled and removed, the module back"
tap_end
