#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Filters of tring's hand-written events (kernel/trace/tring_ev_filter.c)
# and the system calls' own events, on the running kernel:
#
#   files     a filter file for every tracepoint event and every
#             sys_<name>; none for syscall_entry and the marker
#   enable    sys_<name>/enable switches that call alone: syscall_entry
#             reads X, and 1 again for all of them
#   gate      "common_pid == P" (alone, under "&&"): P's calls alone; a
#             replaced or removed filter's gate leaves nothing out
#   ftrace    the same filter on the same tracepoint in ftrace and in
#             tring, both on over one workload: the same count of events
#             (sched_process_exec's filename, exit_syscall's id and ret
#             against raw_syscalls/sys_exit, sys_openat's flags and mode
#             against syscalls/sys_enter_openat; common_pid; ftrace's
#             CPU, cpu, common_cpu, COMM and comm; "\" in a glob)
#   strings   sys_openat's path (a user string ftrace 6.1 cannot filter):
#             exact counts of the workload's opens
#   faults    opens of a path not mapped in: recorded with an empty
#             filename and counted in events/syscalls/path_faults
#   bad       refused filters change nothing, and say where; " 0"
#             clears, as ftrace
#   fuzz      1000 generated filters on sys_openat while it fires on
#             every CPU: taken or EINVAL, never anything else
#   record    tring-record -e sys_openat --filter: the trace goes to
#             /results/traces/filter-sys/ for check-traces.sh

T=/sys/kernel/debug/tring
TR=/sys/kernel/tracing
OUT=/results/traces
# tap_ok, tap_end (tools/testing/vm/tap.sh, in /tests beside this test)
. "$(dirname "$0")/tap.sh"

# W: the events the buffer took or, full, refused, summed over the CPUs.
count_written() {
	W=0
	for f in $T/per_cpu/cpu*/stats; do
		while read -r k v; do
			case $k in
			events_written: | events_discarded:) W=$((W + v)) ;;
			esac
		done <"$f"
	done
}

# The workload, in other processes than this shell: 3 execs of /bin/true
# and 2 of /bin/false; 4 files created, 2 read, 1 missing.
work() {
	sh -c /bin/true; sh -c /bin/true; sh -c /bin/true
	sh -c /bin/false; sh -c /bin/false
	sh -c 'for i in 1 2 3 4; do : >/tmp/flt_c$i; done'
	cat /tmp/flt_c1 /tmp/flt_c2 /tmp/flt_nosuch >/dev/null 2>&1
	rm -f /tmp/flt_c*
}

# same TRING_EVENT FTRACE_EVENT FILTER: counts of both over one workload.
# This shell's own calls (switching the tracers on and off, counting) are
# left out of both: the two tracers are not switched at the same moment.
same() {
	echo "($3) && common_pid != $$" >$T/events/$1/filter || return 1
	echo "($3) && common_pid != $$" >$TR/events/$2/filter || return 1
	echo 1 >$T/events/$1/enable
	echo 1 >$TR/events/$2/enable
	echo >$TR/trace
	count_written; w0=$W
	work
	count_written
	echo 0 >$T/events/$1/enable
	echo 0 >$TR/events/$2/enable
	n_tring=$((W - w0))
	# One ftrace event on: every line of its trace is one.
	n_ftrace=$(grep -vc '^#' $TR/trace)
	echo 0 >$T/events/$1/filter
	echo 0 >$TR/events/$2/filter
	[ "$n_tring" = "$n_ftrace" ]
}

# only TRING_EVENT FILTER: tring's count over one workload
only() {
	echo "$2" >$T/events/$1/filter || return 1
	echo 1 >$T/events/$1/enable
	count_written; w0=$W
	work
	count_written
	echo 0 >$T/events/$1/enable
	echo 0 >$T/events/$1/filter
	n_tring=$((W - w0))
}

echo "TAP version 13"
mkdir -p $TR $OUT
[ -f $TR/available_events ] || mount -t tracefs nodev $TR 2>/dev/null
echo 0 >$TR/options/record-cmd 2>/dev/null
echo 1 >$TR/tracing_on 2>/dev/null
echo 0 >$T/events/enable

# --- files --------------------------------------------------------------------
[ -f $T/events/sched/sched_switch/filter ] &&
	[ -f $T/events/syscalls/sys_openat/filter ] &&
	[ -f $T/events/syscalls/exit_syscall/filter ] &&
	[ ! -f $T/events/syscalls/syscall_entry/filter ] &&
	[ ! -f $T/events/tring/marker/filter ] &&
	[ "$(cat $T/events/sched/sched_switch/filter)" = none ]
tap_ok $? "files: tracepoint and system call events have a filter file, syscall_entry and the marker none"

# --- enable -------------------------------------------------------------------
S=$T/events/syscalls
echo 1 >$S/sys_openat/enable
st="$(cat $S/sys_openat/enable) $(cat $S/sys_close/enable) $(cat $S/syscall_entry/enable)"
echo 1 >$S/syscall_entry/enable
st="$st, $(cat $S/sys_openat/enable) $(cat $S/sys_close/enable) $(cat $S/syscall_entry/enable)"
echo 0 >$S/sys_close/enable
st="$st, $(cat $S/sys_openat/enable) $(cat $S/sys_close/enable) $(cat $S/syscall_entry/enable)"
echo 0 >$S/syscall_entry/enable
st="$st, $(cat $S/sys_openat/enable) $(cat $S/sys_close/enable) $(cat $S/syscall_entry/enable)"
[ "$st" = "1 0 X, 1 1 1, 1 0 X, 0 0 0" ]
tap_ok $? "enable: sys_openat, sys_close, syscall_entry: $st"
# tring_track_work: 3 processes of 1 thread, 5 getcpu calls each, and
# many other calls (fork, open, write, exit...).
echo 1 >$S/sys_getcpu/enable
count_written; w0=$W
"$(dirname "$0")/tring_track_work" flt 1 5
count_written
echo 0 >$S/sys_getcpu/enable
[ $((W - w0)) = 15 ]
tap_ok $? "enable: sys_getcpu alone records its 15 calls and no other: $((W - w0)) events"
# The pid gate (struct tring_filter_gate): "common_pid == P", alone and
# as an operand of "&&", leaves every other pid out in the probe, before
# the event is built. The shell that sets the filter execs the tree's
# first process: its 5 calls are kept, its child's and grandchild's not.
for gf in 'common_pid == $$' 'cpu != 0 && common_pid == $$'; do
	echo 1 >$S/sys_getcpu/enable
	count_written; w0=$W
	sh -c "echo \"$gf\" >$S/sys_getcpu/filter && exec \"\$0\" flt 1 5" \
		"$(dirname "$0")/tring_track_work"
	count_written
	echo 0 >$S/sys_getcpu/enable
	echo 0 >$S/sys_getcpu/filter
	[ $((W - w0)) = 5 ]
	tap_ok $? "gate: sys_getcpu '$gf' records that process's 5 calls alone: $((W - w0)) events"
done
# A filter's gate goes with it: "common_pid == 1" replaced by a filter
# without a gate, then removed (sys_close's filter keeps the filters'
# static key on): the tree's 15 calls both times.
echo 'common_pid == 1' >$S/sys_close/filter
echo 1 >$S/sys_getcpu/enable
gn=
for gf in 'cpu >= 0' 0; do
	echo 'common_pid == 1' >$S/sys_getcpu/filter
	echo "$gf" >$S/sys_getcpu/filter
	count_written; w0=$W
	"$(dirname "$0")/tring_track_work" flt 1 5
	count_written
	gn="$gn $((W - w0))"
done
echo 0 >$S/sys_getcpu/enable
echo 0 >$S/sys_getcpu/filter
echo 0 >$S/sys_close/filter
[ "$gn" = " 15 15" ]
tap_ok $? "gate: replaced, then removed, the gate of 'common_pid == 1' leaves nothing out:$gn events"

# --- ftrace -------------------------------------------------------------------
if [ -d $TR/events/syscalls/sys_enter_openat ]; then
	while read -r tev fev filter; do
		same "$tev" "$fev" "$filter"
		tap_ok $? "ftrace: $tev '$filter': tring $n_tring, ftrace $n_ftrace"
	done <<'EOF'
sched/sched_process_exec sched/sched_process_exec filename ~ "*/true"
sched/sched_process_exec sched/sched_process_exec filename == "/bin/false" || filename ~ "/nosuch*"
sched/sched_process_exec sched/sched_process_exec filename ~ "/bin/[ft]*" && common_pid != 1
syscalls/exit_syscall raw_syscalls/sys_exit id == 257 && ret < 0
syscalls/exit_syscall raw_syscalls/sys_exit id == 257 && ret >= 0 && common_pid > 1
syscalls/sys_openat syscalls/sys_enter_openat flags & 0x40
syscalls/sys_openat syscalls/sys_enter_openat !(flags & 0x40) && mode == 0
syscalls/sys_openat syscalls/sys_enter_openat flags & 0x200 && mode == 0666
sched/sched_process_exec sched/sched_process_exec filename ~ "/bin/fa\lse" || filename ~ "*/tru\*"
syscalls/sys_openat syscalls/sys_enter_openat COMM == "cat" || comm ~ "s?" && CPU >= 0
syscalls/sys_openat syscalls/sys_enter_openat common_cpu == 0 || cpu > 0 && COMM != "cat"
EOF
else
	tap_ok 0 "ftrace: # SKIP no ftrace system call events in this kernel"
fi

# --- strings ------------------------------------------------------------------
for want in '6 filename ~ "/tmp/flt_c*"' '2 filename == "/tmp/flt_c1"' \
	    '1 filename ~ "*nosuch" && !(flags & 0x40)' '4 filename ~ "/tmp/flt_c?" && flags & 0x40'; do
	only syscalls/sys_openat "${want#* }"
	[ "$n_tring" = "${want%% *}" ]
	tap_ok $? "strings: sys_openat '${want#* }': $n_tring (want ${want%% *})"
done
only sched/sched_process_exec 'filename ~ "/bin/false"'
[ "$n_tring" = 2 ]
tap_ok $? "strings: sched_process_exec 'filename ~ \"/bin/false\"': $n_tring (want 2)"
# The same in overwrite mode (the knob rebuilds the buffer).
echo 1 >$T/overwrite
only syscalls/sys_openat 'filename ~ "/tmp/flt_c*"'
echo 0 >$T/overwrite
[ "$n_tring" = 6 ]
tap_ok $? "strings: in overwrite mode, sys_openat 'filename ~ \"/tmp/flt_c*\"': $n_tring (want 6)"

# --- faults -------------------------------------------------------------------
# The probe reads a path without faulting: one not mapped in is recorded
# (and filtered) as "", and counted per call in events/syscalls/path_faults.
# tring_pathfault opens its path 5 times from a page not mapped in, then
# once from its stack; COMM picks its own calls.
pf_count() {
	n=$(sed -n 's/^sys_openat //p' $S/path_faults)
	echo "${n:-0}"
}
p0=$(pf_count)
echo 'filename == "" && COMM == "tring_pathfault"' >$S/sys_openat/filter
echo 1 >$S/sys_openat/enable
count_written; w0=$W
"$(dirname "$0")/tring_pathfault" /tmp/flt_pf 5
rc=$?
count_written
echo 0 >$S/sys_openat/enable
echo 0 >$S/sys_openat/filter
p1=$(pf_count)
msg="$((W - w0)) recorded as '' (want 5), path_faults +$((p1 - p0)) (want 5+)"
[ $rc = 0 ] && [ $((W - w0)) = 5 ] && [ $((p1 - p0)) -ge 5 ]
tap_ok $? "faults: 5 opens of a path not mapped in: $msg, exit $rc"
only_pf() {
	echo "$1" >$S/sys_openat/filter || return 1
	echo 1 >$S/sys_openat/enable
	count_written; w0=$W
	"$(dirname "$0")/tring_pathfault" /tmp/flt_pf 5 || return 1
	count_written
	echo 0 >$S/sys_openat/enable
	echo 0 >$S/sys_openat/filter
	n_tring=$((W - w0))
}
only_pf 'filename == "/dev/null" && comm == "tring_pathfault"'
[ $? = 0 ] && [ "$n_tring" = 1 ]
tap_ok $? "faults: the same path from the stack is read: $n_tring (want 1)"

# --- bad ----------------------------------------------------------------------
F=$S/sys_openat/filter
echo 'flags & 0x40' >$F
for bad in 'nosuch == 1' 'filename == 5' 'flags == "x"' 'flags ==' '(flags == 1' \
	   'common_pid == 99999999999999999999'; do
	echo "$bad" >$F 2>/dev/null
	rc=$?
	[ $rc != 0 ] && grep -q '^error at [0-9]*: ' $F &&
		[ "$(sed -n 's/^in force: //p' $F)" = 'flags & 0x40' ]
	tap_ok $? "bad: '$bad' refused, $(head -n 1 $F)"
done
echo 0 >$F
[ "$(cat $F)" = none ]
tap_ok $? "bad: 0 clears the filter"
# Blanks as ftrace takes them: " 0" and a tab before "0" clear too.
st=
for clear in ' 0' '	0  '; do
	echo 'flags & 0x40' >$F
	echo "$clear" >$F
	st="$st $?:$(cat $F)"
done
[ "$st" = " 0:none 0:none" ]
tap_ok $? "bad: ' 0' and a tab, 0 clear the filter, as ftrace:$st"

# --- fuzz ---------------------------------------------------------------------
# 1000 generated filters on sys_openat, every other one broken by a
# random piece (awk's generator, seeded), written while every CPU opens
# files (loops at nice 19, so that the writer's own loop keeps its pace;
# the other CPU's runs beside every write): each is taken or refused
# with EINVAL, the filter in force is replaced under load (the probes
# build the filter's record from a user path), and the kernel reports
# nothing (the run's splat check; KASAN on kasan-6.1). The debug
# kernels share the cases (fuzz_share) by pairs, a whole and a broken
# one, so each share has both kinds.
fs=$(fuzz_share)
fk=${fs% *}
fn=${fs#* }
awk -v fk="$fk" -v fn="$fn" 'BEGIN {
	srand(11)
	n = split("flags mode dfd filename common_pid == != < <= > >= & ~ && || ! ( ) 0 1 -1 0x40 0x 010 18446744073709551615 18446744073709551616 \" '"'"' * ? [ ] [!a-z] /tmp \\\\", p, " ")
	split("== != < <= > >= &", iop, " ")
	split("flags mode dfd common_pid", ifl, " ")
	split("\"/tmp/*\" \"*null\" \"/dev/[a-n]*\" \"\" \"?\" \"/tmp/fz\"", sv, " ")
	for (i = 0; i < 1000; i++) {
		s = ""
		for (k = 0; k <= int(rand() * 4); k++) {
			if (k)
				s = s (rand() < 0.5 ? " && " : " || ") (rand() < 0.2 ? "!" : "")
			if (rand() < 0.6)
				s = s "(" ifl[1 + int(rand() * 4)] " " iop[1 + int(rand() * 7)] " " int(rand() * 600) ")"
			else
				s = s "filename " (rand() < 0.5 ? "~" : "==") " " sv[1 + int(rand() * 6)]
		}
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
echo 1 >$S/sys_openat/enable
pids=
for c in $(seq 0 $((ncpu - 1))); do
	sh -c "while :; do : >/tmp/fz$c; cat /dev/null; done" &
	renice -n 19 -p $! >/dev/null
	pids="$pids $!"
done
acc=0
ref=0
other=0
while IFS= read -r f; do
	if echo "$f" >$F 2>/tmp/fuzz.err; then
		acc=$((acc + 1))
	elif read -r e </tmp/fuzz.err && [ "${e%Invalid argument*}" != "$e" ]; then
		ref=$((ref + 1))
	else
		other=$((other + 1))
	fi
done </tmp/fuzz.txt
kill $pids 2>/dev/null
wait $pids 2>/dev/null
echo 0 >$S/sys_openat/enable
echo 0 >$F
rm -f /tmp/fz*
[ $other = 0 ] && [ $acc -gt 25 ] && [ $ref -gt 25 ] && [ "$(cat $F)" = none ] &&
	[ $((acc + ref)) = "$nf" ]
tap_ok $? "fuzz: $nf of 1000 filters on sys_openat (share $fk/$fn) written while $ncpu CPUs open files: $acc taken, $ref refused (EINVAL), $other other errors"

# --- record -------------------------------------------------------------------
tring-record -q --no-statedump -e sys_openat --filter 'filename ~ "/tmp/selsys*"' \
	-o $OUT/filter-sys &
rec=$!
recording $OUT/filter-sys $rec
for i in 1 2 3; do : >/tmp/selsys$i; cat /tmp/flt_none 2>/dev/null; done
rm -f /tmp/selsys*
kill -INT $rec
wait $rec
tap_ok $? "record: tring-record -e sys_openat --filter exit status"
[ "$(cat $S/sys_openat/enable) $(cat $S/sys_openat/filter)" = "0 none" ]
tap_ok $? "record: sys_openat off and unfiltered afterwards"
echo "3" >$OUT/filter-sys.expect
echo 0 >$T/events/enable

tap_end
