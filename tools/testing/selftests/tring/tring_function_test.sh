#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Function entry tracing: the functions file and the event
# ftrace/function (kernel/trace/tring_func*.c), on the test module's
# tring_test_probe_target(), which tring_test.ko's test/probe calls N
# times from tring_test_probe_write().
#
#   set      an exact name, globs that add several, '!' that removes
#            one, reading lists them; the event's files
#   errors   a pattern that matches nothing, a notrace function: each
#            refused (EINVAL), the set unchanged, the kernel log saying
#            so; tring's own functions never in the set; every function
#            ('*'): within the limit taken whole, past it refused
#   record   N calls recorded by tring-record (to
#            /results/traces/function/, function.expect):
#            check-traces.sh checks on the host that babeltrace2 names
#            the function and its caller
#   empty    O_TRUNC empties the set; enabled with an empty set the
#            event records nothing (function-empty) and its ftrace_ops
#            is not registered; a set made empty while enabled and
#            filled again registers it again
#   exit     where events/ftrace/function_exit exists (fprobe; not on
#            Debian's 6.1, SKIP there): its fprobe registered while
#            enabled with a set, again when the set changes; N calls
#            recorded with ftrace/function beside it (to
#            /results/traces/function-exit/, function-exit.expect):
#            check-traces.sh checks the names, the return values in
#            call order (2 * i + SEED) and that nothing was lost
#   module   tring_test's functions leave the set when it is unloaded
#   unload   tring unloaded with the event enabled and a function in
#            the set, then loaded again: no splat (the run's check too)
# Without generic events (generic_events=0) there is no event: tring is
# loaded again with them.

T=/sys/kernel/debug/tring
F=$T/functions
EV=$T/events/ftrace/function
OUT=/results/traces
N=1000
. "$(dirname "$0")/tap.sh"
ok() { tap_ok "$1" "$2"; }

reload() {
	rmmod tring_test 2>/dev/null
	rmmod tring && insmod /lib/tring/tring.ko && insmod /lib/tring/tring_test.ko
}

echo "TAP version 13"
mkdir -p $OUT
if [ "$(cat /sys/module/tring/parameters/generic_events 2>/dev/null)" = N ]; then
	reload
fi
if [ ! -f $F ]; then
	ok 0 "functions # SKIP no functions file in this tring"
	tap_end
	exit
fi

# --- set -----------------------------------------------------------------------
: >$F && [ -z "$(cat $F)" ]
ok $? "set: O_TRUNC empties it"
echo tring_test_probe_target >$F && [ "$(cat $F)" = tring_test_probe_target ]
ok $? "set: an exact name, listed back"
for f in enable format filter id; do
	[ -f $EV/$f ]
	ok $? "set: events/ftrace/function/$f"
done
grep -q 'field:int ip;' $EV/format && grep -q 'field:int parent_ip;' $EV/format &&
	grep -q '^functions: 1 ' $EV/format
ok $? "set: the format has ip and parent_ip, and counts the function"
echo 'vfs_read*' >>$F
ok $? "set: a glob added"
nr=$(grep -c '^vfs_read' $F)
grep -qx vfs_read $F && grep -qx vfs_readv $F && [ "$nr" -ge 3 ] &&
	grep -qx tring_test_probe_target $F
ok $? "set: 'vfs_read*' added $nr functions, vfs_read and vfs_readv among them"
echo '!vfs_readv' >>$F && ! grep -qx vfs_readv $F &&
	[ "$(grep -c '^vfs_read' $F)" = $((nr - 1)) ]
ok $? "set: '!vfs_readv' removed one"
echo 'vfs_write *lock_page' >>$F && grep -qx vfs_write $F &&
	[ "$(grep -c 'lock_page$' $F)" -ge 1 ]
ok $? "set: two words in a write, '*lock_page' a leading glob"
sort $F >/tmp/tring-fn.1
sort -u $F >/tmp/tring-fn.2
cmp -s /tmp/tring-fn.1 /tmp/tring-fn.2
ok $? "set: no function listed twice ($(grep -c . $F) listed)"

# --- errors --------------------------------------------------------------------
# refused WORD WHAT: the write fails with EINVAL, the set is unchanged,
# the kernel log says why.
refused() {
	before=$(cat $F)
	dmesg -c >/dev/null
	! echo "$1" >>$F 2>/dev/null && [ "$(cat $F)" = "$before" ] &&
		dmesg | grep -qF "functions: '$1' matches no function"
	ok $? "errors: $2 refused, the set unchanged"
}
refused tring_no_such_function_at_all "a name that matches nothing"
refused 'tring_no_such_*' "a glob that matches nothing"
refused rcu_is_watching "a notrace function"
before=$(cat $F)
! echo "vfs_write tring_no_such_function_at_all" >>$F 2>/dev/null &&
	[ "$(cat $F)" = "$before" ]
ok $? "errors: a write with one bad word changes nothing"
echo 'tring_*' >>$F && grep -qx tring_test_probe_write $F &&
	! grep -qx tring_func_write $F && ! grep -qx tring_probe_command $F
ok $? "errors: 'tring_*' takes tring_test's functions, none of tring's own"
echo '!tring_*' >>$F && ! grep -q '^tring_' $F
ok $? "errors: '!tring_*' removes them"
dmesg -c >/dev/null
if echo '*' >>$F 2>/dev/null; then
	n=$(grep -c . $F)
	[ "$n" -gt 1000 ] && [ "$n" -le 65536 ] && ! grep -qx tring_func_write $F
	ok $? "errors: '*' within the limit: $n functions, none of tring's"
else
	dmesg | grep -q 'functions: more than 65536 functions' &&
		[ "$(cat $F)" = "$before" ]
	ok $? "errors: '*' past the limit of 65536 refused (ENOSPC), the set unchanged"
fi
: >$F && [ -z "$(cat $F)" ]
ok $? "errors: O_TRUNC empties a set of every function"

# --- record --------------------------------------------------------------------
echo 4 >$T/buffer_subbuf_size_kb && echo 2048 >$T/buffer_size_kb &&
	echo 0 >$T/overwrite
echo 'tring_test_probe_target tring_test_probe_write' >$F
ok $? "record: the set is tring_test_probe_target and its caller"
tring-record -q --no-statedump -o $OUT/function &
rec=$!
recording $OUT/function $rec
echo 1 >$EV/enable && grep -q '^registered: yes' $EV/format
ok $? "record: enabled, the ftrace_ops registered"
echo "$N 7" >$T/test/probe
ok $? "record: $N calls of tring_test_probe_target"
echo 0 >$EV/enable && grep -q '^registered: no' $EV/format
ok $? "record: disabled, the ftrace_ops unregistered"
kill -INT $rec
wait $rec
ok $? "record: tring-record exit status"
echo "calls $N" >$OUT/function.expect

# --- empty ---------------------------------------------------------------------
: >$F
tring-record -q --no-statedump -o $OUT/function-empty &
rec=$!
recording $OUT/function-empty $rec
echo 1 >$EV/enable && grep -q '^registered: no' $EV/format
ok $? "empty: enabled with an empty set, nothing registered"
echo "10 1" >$T/test/probe
echo tring_test_probe_target >>$F && grep -q '^registered: yes' $EV/format
ok $? "empty: a function added while enabled registers the ops"
echo '!tring_test_probe_target' >>$F && grep -q '^registered: no' $EV/format &&
	[ -z "$(cat $F)" ]
ok $? "empty: its removal empties the set and unregisters the ops"
echo "10 1" >$T/test/probe
echo 0 >$EV/enable
kill -INT $rec
wait $rec
ok $? "empty: tring-record exit status (check-traces: no function event)"
echo "empty yes" >>$OUT/function.expect

# --- command: tring-record --function GLOB -- COMMAND --------------------------
# The set in force before is written back at exit; only the command's
# calls are recorded while another process calls too.
echo vfs_read >$F
rm -f /tmp/tring-fn.stop
( while [ ! -f /tmp/tring-fn.stop ]; do echo "5 0" >$T/test/probe; done ) &
other=$!
tring-record -q --no-statedump -o $OUT/function-cmd \
	--function 'tring_test_probe_t*' -- sh -c "echo '9 1' >$T/test/probe"
ok $? "command: tring-record --function GLOB -- COMMAND exit status"
touch /tmp/tring-fn.stop
wait $other
[ "$(cat $F)" = vfs_read ] && [ "$(cat $EV/enable)" = 0 ]
ok $? "command: the set found (vfs_read) written back, the event off"
echo "command 9" >>$OUT/function.expect
: >$F

# --- exit: ftrace/function_exit (kernels with fprobe) --------------------------
# The fprobe follows the same set; a set changed while enabled registers
# it again. Recorded with ftrace/function beside it (the metadata then
# declares tring_function_t once for both): N calls of
# tring_test_probe_target(i, SEED - i), which returns 2 * i + SEED.
X=$T/events/ftrace/function_exit
SEED=11
if [ ! -d $X ]; then
	ok 0 "exit: ftrace/function_exit # SKIP no fprobe in this kernel"
else
	echo tring_test_probe_target >$F &&
		grep -q '^functions: 1 ' $X/format &&
		grep -q '^registered: no' $X/format &&
		grep -q 'field:int retval;.*signed:1;' $X/format
	ok $? "exit: the format counts the function, has a signed retval, nothing registered"
	# Recorded (function-exit-set), so that its records and misses
	# (vfs_read's) are not left in the buffer for the next recording.
	tring-record -q --no-statedump -o $OUT/function-exit-set &
	rec=$!
	recording $OUT/function-exit-set $rec
	echo 1 >$X/enable && grep -q '^registered: yes' $X/format &&
		grep -q '^missed: 0' $X/format
	ok $? "exit: enabled, the fprobe registered"
	echo vfs_read >>$F && grep -q '^functions: 2 ' $X/format &&
		grep -q '^registered: yes' $X/format && echo "3 0" >$T/test/probe
	ok $? "exit: a function added while enabled: registered again on 2"
	: >$F && grep -q '^registered: no' $X/format &&
		echo tring_test_probe_target >$F &&
		grep -q '^registered: yes' $X/format
	ok $? "exit: the set emptied unregisters it, filled again registers it"
	echo 0 >$X/enable && grep -q '^registered: no' $X/format
	ok $? "exit: disabled, the fprobe unregistered"
	kill -INT $rec
	wait $rec
	ok $? "exit: tring-record exit status (the set changing)"
	tring-record -q --no-statedump -o $OUT/function-exit &
	rec=$!
	recording $OUT/function-exit $rec
	echo 1 >$X/enable && echo 1 >$EV/enable
	ok $? "exit: function_exit and function enabled"
	echo "$N $SEED" >$T/test/probe && grep -q '^missed: 0' $X/format
	ok $? "exit: $N calls of tring_test_probe_target, no fprobe miss"
	echo 0 >$X/enable && echo 0 >$EV/enable
	kill -INT $rec
	wait $rec
	ok $? "exit: tring-record exit status"
	printf 'calls %s\nseed %s\nset 3\n' $N $SEED >$OUT/function-exit.expect
	: >$F
fi

# --- module --------------------------------------------------------------------
echo 'tring_test_probe_target vfs_read' >$F && rmmod tring_test &&
	[ "$(cat $F)" = vfs_read ]
ok $? "module: tring_test unloaded, its function left the set"
insmod /lib/tring/tring_test.ko
ok $? "module: tring_test loaded again"

# --- unload --------------------------------------------------------------------
dmesg -c >/dev/null
echo 1 >$EV/enable && cat /proc/self/status >/dev/null &&
	grep -q '^registered: yes' $EV/format
ok $? "unload: enabled on vfs_read"
reload
ok $? "unload: tring unloaded with the event enabled, and loaded again"
! dmesg | grep -qE 'WARNING:|BUG:|Oops|Call Trace:'
ok $? "unload: the kernel log has no splat"
[ -z "$(cat $F)" ] && [ "$(cat $EV/enable)" = 0 ]
ok $? "unload: the new tring starts with an empty set, the event off"
rm -f /tmp/tring-fn.1 /tmp/tring-fn.2
tap_end
