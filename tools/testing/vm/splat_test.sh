#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The splat filter's own test (splat.sh): what it must catch, and the
# only things it lets through. TAP on stdout.
#
# usage: splat_test.sh [SYSTEM_MAP]
#   SYSTEM_MAP  a kernel's System.map with tk_fast_mono in it (make check
#               gives the KCSAN kernel's); without one, a made-up map.

set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/console.log
. "$here/tap.sh"

map=${1:-}
if [ -z "$map" ]; then
	map=$work/System.map
	printf '%s\n' 'ffffffff82a1c000 d some_data' \
		'ffffffff82a1c040 d tk_fast_mono' 'ffffffff82a1c0c0 d tk_fast_raw' \
		'ffffffff82a1c140 d after_the_latch' 'ffffffff82a1c200 d tk_core' \
		'ffffffff82a1c360 d timekeeper_lock' >"$map"
fi
core=$(awk '$3 == "tk_core" { print $1 }' "$map")
mono=$(awk '$3 == "tk_fast_mono" { print $1 }' "$map")
raw=$(awk '$3 == "tk_fast_raw" { print $1 }' "$map")
# The first byte past a latch copy (the next symbol) that is in neither.
past=$(sort "$map" | awk '
	$3 ~ /^tk_fast_(mono|raw)$/ { latch = 1; next }
	latch { print $1; latch = 0 }' | tail -n 1)

# passes DESCRIPTION [ENV...]: splat.sh finds nothing in $log
passes() {
	local desc=$1
	shift
	env "$@" "$here/splat.sh" "$log" >/dev/null
	tap_ok $? "$desc"
}

# fails DESCRIPTION [ENV...]: splat.sh reports $log
fails() {
	local desc=$1
	shift
	env "$@" "$here/splat.sh" "$log" >/dev/null
	tap_ok $(($? != 1)) "$desc"
}

# kcsan ADDRESS...: a KCSAN report with one access per address
kcsan() {
	local a
	{
		echo '=================================================================='
		echo 'BUG: KCSAN: data-race in some_function+0x1/0x2'
		for a in "$@"; do
			echo ''
			echo "race at unknown origin, with read to 0x$a of 8 bytes by task 1 on cpu 1:"
			echo ' some_function+0x1/0x2'
		done
		echo ''
		echo '=================================================================='
	} >"$log"
}

# stack FUNCTION: a kernel stack dump from FUNCTION
stack() {
	printf '%s\n' "sh: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)" \
		'CPU: 0 PID: 70 Comm: sh Not tainted 6.1.0 #1' 'Call Trace:' ' <TASK>' \
		' dump_stack_lvl+0x45/0x5e' " $1+0x13a/0x1c0" ' __alloc_pages+0x2f1/0x380' \
		' </TASK>' 'Mem-Info:' >"$log"
}

echo "TAP version 13"

printf '%s\n' 'Linux version 6.1.0' 'Run /init as init process' >"$log"
passes "a clean boot log passes"
printf '%s\n' 'Linux version 6.1.0' \
	'WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2' >"$log"
fails "a WARNING fails"
echo 'BUG: KASAN: slab-use-after-free in f+0x1/0x2' >"$log"
fails "a KASAN report fails"
echo 'INFO: NMI handler (perf_event_nmi_handler) took too long to run: 1.234 msecs' >"$log"
passes "the NMI handler duration note passes"
echo 'INFO: task sh:1 blocked for more than 120 seconds.' >"$log"
fails "any other INFO: fails"

tap_ok "$([ -n "$mono" ] && [ -n "$past" ]; echo $?)" \
	"the System.map places tk_fast_mono and tk_fast_raw ($mono, $past)"
kcsan "$mono"
passes "a KCSAN report on tk_fast_mono passes with the System.map" \
	SPLAT_SYSTEM_MAP="$map"
fails "the same report fails without a System.map"
kcsan "$raw" "$mono"
passes "a report on both latch copies passes" SPLAT_SYSTEM_MAP="$map"
kcsan "$past"
fails "a report one byte past the latch copies fails" SPLAT_SYSTEM_MAP="$map"
kcsan "$mono" "$past"
fails "a report with one access in the latch and one past it fails" \
	SPLAT_SYSTEM_MAP="$map"
kcsan "$core" "$(printf '%x' $((0x$core + 0x58)))"
passes "a report on the timekeeper tk_core passes with the System.map ($core)" \
	SPLAT_SYSTEM_MAP="$map"
fails "the same report fails without a System.map"
kcsan "$core" "$past"
fails "a report with one access in tk_core and one past the latch fails" \
	SPLAT_SYSTEM_MAP="$map"

# pidrace TITLE: a KCSAN report titled TITLE, then a WARNING if $2
pidrace() {
	{
		echo '=================================================================='
		echo "BUG: KCSAN: data-race in $1"
		echo ''
		echo 'write to 0xffffffff82e1c0b0 of 4 bytes by task 90 on cpu 1:'
		echo ' alloc_pid+0x44e/0x6a0'
		echo ''
		echo 'read to 0xffffffff82e1c0b0 of 4 bytes by task 91 on cpu 0:'
		echo ' copy_process+0x1f8e/0x3c90'
		echo ''
		echo '=================================================================='
		[ -z "${2:-}" ] || echo 'WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2'
	} >"$log"
}
pidrace "alloc_pid / copy_process"
passes "KCSAN's alloc_pid / copy_process report (pid_allocated) passes"
pidrace "copy_process / alloc_pid"
passes "the same report, names the other way round, passes"
pidrace "alloc_pid / copy_process" warning
fails "a WARNING after that report still fails"
pidrace "alloc_pid / mark_lock"
passes "the same report, its reader's stack named mark_lock by the unwinder, passes"
pidrace "alloc_pid / free_pid"
fails "a KCSAN report of alloc_pid with another function fails"

# readerpage TITLE: a KCSAN report titled TITLE, on ftrace's reader page
readerpage() {
	{
		echo '=================================================================='
		echo "BUG: KCSAN: data-race in $1"
		echo ''
		echo 'write to 0xffff888000146748 of 8 bytes by task 838 on cpu 1:'
		echo ' rb_get_reader_page+0x457/0x5a9'
		echo ''
		echo 'read to 0xffff888000146748 of 8 bytes by task 3028 on cpu 0:'
		echo ' rb_wakeups+0x60/0x1a0'
		echo ''
		echo 'value changed: 0xffff888000f862c0 -> 0xffff888000c21a40'
		echo '=================================================================='
	} >"$log"
}
readerpage "rb_wakeups / rb_get_reader_page"
passes "KCSAN's rb_wakeups / rb_get_reader_page report (ftrace's reader page) passes"
readerpage "mark_lock / rb_get_reader_page"
passes "the same report, its reading side named mark_lock by the unwinder, passes"
readerpage "rb_get_reader_page / tring_reserve_slow_v4"
fails "a KCSAN report of rb_get_reader_page with a tring function fails"

# readerwait COMM [FUNCTION]: ftrace's reader-wait WARNING (in FUNCTION,
# rb_get_reader_page by default) in a task named COMM, as the console
# prints it
readerwait() {
	local at="kernel/trace/ring_buffer.c:4687 ${2:-rb_get_reader_page}+0x22d/0x240"

	printf '%s\n' '[  190.381380] ------------[ cut here ]------------' \
		"[  190.381419] WARNING: CPU: 1 PID: 6382 at $at" \
		'[  190.381900] Modules linked in: tring_bench(O) tring(O)' \
		"[  190.382001] CPU: 1 PID: 6382 Comm: $1 Tainted: G           O       6.1.0-56-amd64 #1  Debian 6.1.158-1" \
		'[  190.389299] Call Trace:' '[  190.389300]  <TASK>' \
		'[  190.389310]  ring_buffer_read_page+0x5a/0x3a0' \
		'[  190.389320]  </TASK>' \
		'[  190.389400] ---[ end trace 0000000000000000 ]---' >"$log"
}
readerwait ftrace_read
passes "ftrace's reader-wait WARNING in the benchmark's ftrace_read passes"
readerwait tring_bench_rea
passes "the same in the benchmark's in-kernel reader passes"
readerwait trace-cmd
passes "the same in trace-cmd passes"
readerwait trace-cmd
sed -i 's/ CPU: 1 PID: 6382 Comm/ CPU: 1 UID: 0 PID: 6382 Comm/' "$log"
passes "the same in trace-cmd passes as 6.12 prints it (UID: 0)"
readerwait tring-record
fails "the same in any other task fails"
readerwait ftrace_read tring_cpu_get
fails "a WARNING elsewhere in ftrace_read fails"
readerwait ftrace_read
sed -i '/end trace/d' "$log"
fails "an unterminated reader-wait WARNING counts"
readerwait ftrace_read
echo '[  191.000000] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2' >>"$log"
fails "a WARNING after it still fails"

# definefields CODE: the trace events core's WARNING in
# event_define_fields(), then its "error code is CODE"
definefields() {
	printf '%s\n' '------------[ cut here ]------------' \
		'WARNING: CPU: 1 PID: 64 at kernel/trace/trace_events.c:2556 event_define_fields+0x250/0x2a7' \
		'Call Trace:' ' <TASK>' ' event_create_dir+0x9c4/0xad9' \
		' trace_module_notify+0x182/0x335' ' </TASK>' \
		'---[ end trace 0000000000000000 ]---' "error code is $1" \
		'Could not initialize trace point events/tring_tp_a' >"$log"
}
definefields -12
passes "event_define_fields()'s WARNING on -ENOMEM passes when failures are injected" \
	SPLAT_ALLOW_ALLOC_FAILURES=1
fails "the same WARNING fails otherwise"
definefields -22
fails "event_define_fields()'s WARNING on another error fails even when failures are injected" \
	SPLAT_ALLOW_ALLOC_FAILURES=1

stack warn_alloc
passes "an allocation failure's dump passes when failures are injected" \
	SPLAT_ALLOW_ALLOC_FAILURES=1
fails "the same dump fails otherwise"
stack some_function
fails "another dump fails even when failures are injected" \
	SPLAT_ALLOW_ALLOC_FAILURES=1
{
	stack warn_alloc
	cat "$log"
	echo 'WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2'
} >"$log.2"
mv "$log.2" "$log"
fails "a WARNING after an allocation failure's dump still fails" \
	SPLAT_ALLOW_ALLOC_FAILURES=1
stack warn_alloc
sed -i '/<\/TASK>/d' "$log"
fails "an unterminated dump counts" SPLAT_ALLOW_ALLOC_FAILURES=1

tap_end
