#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the real-userland guest (run-guest.sh): with the host's Debian
# userland, check tring as users install it ("make install": DKMS and
# tring-record under PREFIX) and that the peers run beside it (LTTng,
# trace-cmd, perf), each recording the same short workload (workload.sh).
# The peers' smoke tests only prove the ground for the benchmark.
#
# Writes TAP lines ("ok - ..." / "not ok - ...", numbered by the host) to
# /results/tap, everything else to /results/guest.log, then reboots
# (QEMU exits). /results/env (from the host) sets PREFIX.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8
here=$(cd "$(dirname "$0")" && pwd)
R=/results
PREFIX=/usr/local
# How the relay tests load tring (a developer's run: insmod a build).
MODLOAD="modprobe tring"
# shellcheck disable=SC1091
[ -r $R/env ] && . $R/env

# shellcheck disable=SC1091
. "$here/mounts.sh"
userland_mounts
# The checkout may lie under /tmp (a CI clone), which the tmpfs hides:
# this directory's scripts (workload, relay tests, the fake relay, the
# guest's network) are run from a copy.
cp -a "$here" /dev/shm/userland && here=/dev/shm/userland
cp "$here/workload.sh" /dev/shm/workload.sh
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
exec > >(tee $R/guest.log >/dev/console) 2>&1
cd /tmp || exit 1

K=$(uname -r)
# A host name per kernel: the relay files each guest's trace under it.
hostname "guest-$(echo "$K" | cut -d. -f1,2)"
T=/sys/kernel/debug/tring
W=/dev/shm/workload.sh
: >$R/tap

# t DESCRIPTION COMMAND...: a TAP line for COMMAND's status; the log
# (not the TAP file) gets the seconds since the last one, "# N s".
T_LAST=$(date +%s)
t() {
	local d=$1 rc=0 now
	shift
	echo "+ $*"
	"$@" || rc=1
	if [ $rc = 0 ]; then
		echo "ok - $d" | tee -a $R/tap
	else
		echo "not ok - $d" | tee -a $R/tap
	fi
	now=$(date +%s)
	echo "# $((now - T_LAST)) s"
	T_LAST=$now
	return $rc
}
skip() { echo "ok - $1 # SKIP $2" | tee -a $R/tap; }
note() { echo "# $*" | tee -a $R/tap; }

# bt_count DIR: events babeltrace2 prints for a trace (tring's padding and
# no-op records aside); the text goes to DIR.txt.
# bt_read DIR: babeltrace2's text of a trace into DIR.txt; on failure its
# errors go to the log, and the trace is kept in the results for the host.
bt_read() {
	babeltrace2 "$1" >"$1.txt" 2>"$1.err" && return 0
	echo "# babeltrace2 failed on $1:"
	sed 's/^/#   /' "$1.err" | head -n 40
	mkdir -p "$R/failed-traces" && cp -r "$1" "$R/failed-traces/"
	return 1
}
bt_events() { grep -cvE '^$| tring_padding: | tring_nop: ' "$1.txt"; }

note "kernel $K, $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)," \
	"$(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo), userland up at $(cut -d' ' -f1 /proc/uptime) s"

# --- tring, as installed -------------------------------------------------------
tring_tests() {
	local tr=/tmp/tring-trace written=0 f n
	t "tring: modprobe tring loads the DKMS-installed module" modprobe tring || return
	t "tring: the module is /lib/modules/$K/updates/dkms/tring.ko*" \
		bash -c "modinfo -n tring | grep -q '^/lib/modules/$K/updates/dkms/tring\.ko'"
	t "tring: tring-record on PATH is $PREFIX/bin/tring-record" \
		test "$(command -v tring-record)" = "$PREFIX/bin/tring-record"
	echo 4096 >$T/buffer_size_kb
	echo 1 >$T/events/enable
	tring-record -q -o $tr &
	local rec=$!
	recording $tr $rec
	$W
	echo 0 >$T/events/enable
	kill -INT $rec
	t "tring: tring-record records the workload (exit status 0)" wait $rec
	t "tring: babeltrace2 reads the trace" bt_read $tr
	for f in $T/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^events_written: //p' "$f")
		written=$((written + n))
		echo "$f: $(tr '\n' ' ' <"$f")"
	done
	n=$(bt_events $tr)
	note "tring: babeltrace2 shows $n events; tring counted $written written;" \
		"sched_switch $(grep -c ' sched_switch: ' $tr.txt), sys_read $(grep -c ' sys_read: ' $tr.txt)," \
		"exit_syscall $(grep -c ' exit_syscall: ' $tr.txt)"
	t "tring: babeltrace2's event count ($n) = tring's per_cpu/cpuN/stats ($written)" \
		test "$n" = "$written" -a "$n" -gt 1000
	t "tring: sched_switch, dd's sys_read, sys_write and exit_syscall events in the trace" \
		bash -c "grep -q ' sched_switch: ' $tr.txt && grep -q ' sys_read: ' $tr.txt && grep -q ' sys_write: ' $tr.txt && grep -q ' exit_syscall: ' $tr.txt"
	t "tring: rmmod tring" rmmod tring
	cp $tr/.tring-record.summary $R/tring-record.summary 2>/dev/null
}

# --- LTTng's analyses on a tring trace ----------------------------------------------
# python3-lttnganalyses (lttng-cputop, lttng-syscallstats, lttng-iousagetop)
# on a tring trace of a workload making the calls whose arguments the
# kernel's headers leave unnamed: sendto and recvfrom (on a socketpair),
# pselect6 (Python's select.select() with glibc), mmap. Every analysis
# runs lttnganalyses' I/O state, which reads recvfrom's size and sendto's
# len: a missing field stops it ("Cannot run analysis: 'size'"). The
# workload names itself netwl (/proc/self/comm) and writes its tid to
# /dev/shm/netwl.pid: lttng-cputop and lttng-syscallstats keep the name a
# thread had when they first saw it (here the shell's, from which it was
# forked), so they find it by name or by tid.
ANALYSES_N=200
analyses_workload() {
	cat >/dev/shm/netwl.py <<'PY'
import mmap, os, select, socket, sys, time
with open('/proc/self/comm', 'w') as f:
    f.write('netwl')
with open('/dev/shm/netwl.pid', 'w') as f:
    f.write(str(os.getpid()))
time.sleep(0.2)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    a.send(b'x' * 4096)
    if select.select([b], [], [], 5.0)[0] != [b]:
        sys.exit('netwl: nothing to read')
    b.recvfrom(8192)
    m = mmap.mmap(-1, 4096)
    m.close()
time.sleep(0.2)
PY
	python3 /dev/shm/netwl.py $ANALYSES_N
}

# analysis NAME TRACE: lttng-NAME on TRACE into TRACE.NAME; it succeeds
# and says nothing of an analysis it could not run.
analysis() {
	lttng-"$1" --no-progress "$2" >"$2.$1" 2>&1
	local rc=$?
	sed "s/^/#   lttng-$1: /" "$2.$1" | head -n 60
	[ $rc = 0 ] && ! grep -q "Cannot run analysis\|^Error" "$2.$1"
}

# cputop_netwl TRACE: lttng-cputop names netwl.
cputop_netwl() {
	analysis cputop "$1" && grep -qE " netwl \(| \($(cat /dev/shm/netwl.pid)\) " "$1.cputop"
}

# syscallstats_netwl TRACE: lttng-syscallstats' section of netwl lists
# sendto, recvfrom and pselect6 ANALYSES_N times or more, and mmap.
syscallstats_netwl() {
	analysis syscallstats "$1" && awk -v n=$ANALYSES_N -v pid="$(cat /dev/shm/netwl.pid)" '
		/^netwl \(/ || index($0, "TID: " pid ")") { s = 1; next }
		/^-----/ { s = 0 }
		s && $1 == "-" && $2 ~ /^(sendto|recvfrom|pselect6|mmap)$/ &&
			$3 >= ($2 == "mmap" ? 1 : n) { f[$2] = 1 }
		END { exit !(f["sendto"] && f["recvfrom"] && f["pselect6"] && f["mmap"]) }' \
		"$1.syscallstats"
}

# iousagetop_netwl TRACE: lttng-iousagetop's per-process read and write
# tops list netwl.
iousagetop_netwl() {
	analysis iousagetop "$1" && awk '
		/^Per-process I\/O Read/ { s = "r"; next }
		/^Per-process I\/O Write/ { s = "w"; next }
		/^Per-/ || /^$/ { s = "" }
		s && / netwl \(/ { f[s] = 1 }
		END { exit !(f["r"] && f["w"]) }' "$1.iousagetop"
}

analyses_tests() {
	local tr=/tmp/analyses-trace rec
	case $K in
	6.1.*) ;;
	*)
		skip "LTTng analyses on a tring trace" "run on the 6.1 guests (the 6.12 table: make check's static syscall-names)"
		return ;;
	esac
	t "analyses: modprobe tring" modprobe tring || return
	tring-record -q -o $tr -e sched_switch -e syscall_entry -e exit_syscall &
	rec=$!
	recording $tr $rec
	t "analyses: the workload sends, selects, receives and maps $ANALYSES_N times" analyses_workload
	sleep 0.5
	kill -INT $rec
	t "analyses: tring-record records it (exit status 0)" wait $rec
	t "analyses: babeltrace2 reads the trace" bt_read $tr || { rmmod tring; return; }
	t "analyses: sys_sendto's len, sys_recvfrom's size, sys_mmap's len, sys_pselect6's n, by name" \
		bash -c "grep -q ' sys_sendto: .* len = 4096,' $tr.txt && grep -q ' sys_recvfrom: .* size = 8192,' $tr.txt &&
			grep -q ' sys_mmap: .* len = 4096,' $tr.txt && grep -q ' sys_pselect6: .*{ n = ' $tr.txt"
	t "analyses: lttng-cputop reads the trace and names netwl" cputop_netwl $tr
	t "analyses: lttng-syscallstats counts netwl's sendto, recvfrom, pselect6 and mmap" \
		syscallstats_netwl $tr
	t "analyses: lttng-iousagetop counts netwl's bytes read and written" \
		iousagetop_netwl $tr
	t "analyses: rmmod tring" rmmod tring
}

# --- LTTng -------------------------------------------------------------------------
lttng_tests() {
	local tr=/tmp/lttng-trace n s
	if ! modinfo lttng-tracer >/dev/null 2>&1; then
		case $K in
		6.1.*)
			t "LTTng: lttng-modules is DKMS-installed for $K (scripts/setup.sh)" false ;;
		*)
			skip "LTTng" "lttng-modules 2.13.9, Debian's only version, does not support Linux $K: LTTng runs on the 6.1 guests only" ;;
		esac
		return
	fi
	note "LTTng: lttng-modules $(modinfo -F version lttng-tracer) (Debian's, built by DKMS with tring's patch scripts/peers/lttng-modules-hrtimer-was-armed.patch)"
	t "LTTng: lttng-sessiond starts (with its consumerd)" lttng-sessiond --daemonize || return
	t "LTTng: lttng create" lttng create smoke --output=$tr &&
	t "LTTng: lttng enable-event -k sched_switch" lttng enable-event -k sched_switch &&
	t "LTTng: lttng enable-event -k --syscall -a" lttng enable-event -k --syscall -a &&
	t "LTTng: lttng start" lttng start &&
	{ $W; true; } &&
	t "LTTng: lttng stop" lttng stop &&
	t "LTTng: lttng destroy" lttng destroy
	t "LTTng: babeltrace2 reads the trace" bt_read $tr
	n=$(grep -c ' sched_switch: ' $tr.txt)
	s=$(grep -c ' syscall_entry_' $tr.txt)
	note "LTTng: $n sched_switch, $s syscall_entry_*, $(grep -c ' syscall_exit_' $tr.txt) syscall_exit_* events"
	t "LTTng: sched_switch events recorded ($n)" test "$n" -gt 0
	t "LTTng: syscall events recorded ($s)" test "$s" -gt 0
	lttng-sessiond --version | head -n 1
	kill $(pidof lttng-sessiond) 2>/dev/null
	# lttng-sessiond unloads its kernel modules as it exits: a tracer
	# started meanwhile sees /proc/kallsyms change under it (trace-cmd
	# then fails, "error in size of file '/proc/kallsyms'"). Wait for
	# its exit, 30 s at most.
	n=0
	while [ $n -lt 300 ] && pidof lttng-sessiond >/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
}

# --- trace-cmd -----------------------------------------------------------------------
tracecmd_tests() {
	local f=/tmp/trace.dat n
	t "trace-cmd: record -e sched_switch" \
		trace-cmd record -q -e sched:sched_switch -o $f $W || return
	trace-cmd report -i $f >$f.txt 2>$f.err
	t "trace-cmd: report" test $? = 0
	n=$(grep -c 'sched_switch:' $f.txt)
	note "trace-cmd $(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }'): $n sched_switch events"
	t "trace-cmd: report shows sched_switch events ($n)" test "$n" -gt 0
}

# --- perf ------------------------------------------------------------------------------
perf_tests() {
	local f=/tmp/perf.data n
	t "perf: record -e sched:sched_switch -a" \
		perf record -q -B -N -e sched:sched_switch -a -o $f $W || return
	perf script -F comm,tid,cpu,time,event,trace -i $f >$f.txt 2>$f.err
	t "perf: script" test $? = 0
	n=$(grep -c 'sched:sched_switch:' $f.txt)
	note "$(perf --version): $n sched_switch events"
	t "perf: script shows sched_switch events ($n)" test "$n" -gt 0
}

# recording DIR PID: wait until tring-record PID records into DIR (its
# metadata made, after its SIGINT handler is in place), or has exited.
recording() {
	while [ ! -f "$1/kernel/metadata" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
}

# timed NAME FUNCTION: run a group of tests, say how long it took
timed() {
	local s=$(date +%s.%N)
	$2
	note "$1: $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s wall time"
}
# shellcheck source=relay-tests.sh
. "$here/relay-tests.sh"
# ONLY (from /results/env): the groups to run, for a developer's run.
for g in ${ONLY:-tring relay LTTng trace-cmd perf}; do
	case $g in
	tring) timed tring tring_tests ;;
	relay) timed relay relay_tests ;;
	LTTng)
		timed "LTTng analyses" analyses_tests
		timed LTTng lttng_tests
		;;
	trace-cmd) timed trace-cmd tracecmd_tests ;;
	perf) timed perf perf_tests ;;
	esac
done
note "memory at the end: $(free -m | awk '/^Mem:/ { print $3 " MiB used, " $5 " MiB tmpfs, " $7 " MiB available" }')"

echo done >$R/done
sync
umount $R
echo b >/proc/sysrq-trigger
