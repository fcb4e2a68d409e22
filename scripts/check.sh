#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of tring, on four kernels.
#
#  1. setup       Debian packages (idempotent), the cached debug kernels
#  2. static      checkpatch --strict, sparse, kernel-doc, a changed
#                 tracepoint prototype leaves its event out
#  3. twin        the buffer core built in user space: unit, stress,
#                 ASan+UBSan, TSan (tools/testing/tring)
#  4. tools       tring-record's unit tests (tools/tring)
#  5. per kernel  Debian 6.1, Debian 6.12, debug 6.1 (KCSAN, lockdep),
#                 debug 6.1 (KASAN with vmalloc checks, lockdep):
#                 module build with -Werror, then a guest runs the
#                 kselftests (the KCSAN one leaves out what its 4-vCPU
#                 run or the KASAN one runs: see part_debug); any kernel
#                 splat fails the kernel's run
#  6. more runs   debian-6.1-mt, debian-6.12-mt: the stress and data
#                 tests on multi-threaded guests (the main Debian runs
#                 are single-threaded: see part_debian);
#                 kasan-6.1-faults: allocation failures injected into
#                 loading, buffer rebuilds, instances and event enabling,
#                 then kmemleak; debug-6.1-smp4: the stress, lifecycle and
#                 data (hotplug) tests on 4 vCPUs
#  7. userland    make install through DKMS; 6.1 and 6.12 guests with the
#                 host's real Debian userland: modprobe, tring-record,
#                 babeltrace2, LTTng/trace-cmd/perf smoke tests; uninstall
#  7b. persist    persist= on 6.1 and 6.12: a crash and a warm reboot,
#                 the trace read back as instances/last_boot; damaged
#                 regions (also under KASAN, persist-kasan-6.1)
#  8. race        the tracer race of make bench with tiny counts (Debian
#                 6.1, the host's userland, nothing installed): tring,
#                 LTTng, trace-cmd and perf each record a syscall storm
#  9. harness     a planted WARN must fail a guest run; a boot hung
#                 before init is retried; the splat filter's own test
# 10. insn        the QEMU plugin counting guest instructions: a loop's
#                 count exact (tools/testing/insn)
#
# The host's checks of each guest's traces (check-traces.sh) include
# KernelShark's plugin and the HTML report (tring-report html).
#
# Every step speaks TAP: each result is one "ok"/"not ok" line in its
# suite's file (build/check/tap/), and build/check/results.ktap nests
# them all. Ends with "N passed, N failed", the count of those lines;
# exits non-zero on any failure. Logs: build/check/.
#
# TRING_CHECK_ONLY="static twin debian-6.1 ..." runs only the named parts
# (static, twin, tools, harness, the kernels' and the runs' names): for
# development; "make check" itself runs everything.

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
OUT=$B/check
TAP=$OUT/tap
# A guest run takes 1.5 to 8 min here alone, up to twice that beside the
# other lane's (the debug kernels' runs overlap); a hung one fails after
# this long.
GUEST_TIMEOUT=${TRING_GUEST_TIMEOUT:-1800}

rm -rf "$OUT"
mkdir -p "$OUT/logs" "$TAP"
: >"$TAP/order"
start=$(date +%s)

say() { echo "check: $*"; }

# mark PART: PART starts now in this lane (the summary prints each part's
# seconds, up to the lane's next mark). The two lanes (see "The lanes"
# below) keep their marks apart.
LANE=main
mark() { echo "$1 $(date +%s)" >>"$OUT/marks-$LANE"; }
mark setup

# want PART: is PART selected by TRING_CHECK_ONLY (everything when unset)?
want() {
	[ -z "${TRING_CHECK_ONLY:-}" ] && return 0
	case " $TRING_CHECK_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# tap SUITE ok|fail|skip DESCRIPTION: one result, as a TAP line of the
# suite; a skip is an "ok" line with a SKIP directive, counted apart.
tap() {
	local f=$TAP/$1.tap n=1

	if [ -f "$f" ]; then
		n=$(($(wc -l <"$f") + 1))
	else
		echo "$1" >>"$TAP/order"
	fi
	if [ "$2" = ok ]; then
		echo "ok $n $3" >>"$f"
	elif [ "$2" = skip ]; then
		case $3 in
		*"# "[Ss][Kk][Ii][Pp]*) echo "ok $n $3" ;;
		*) echo "ok $n $3 # SKIP" ;;
		esac >>"$f"
	else
		echo "not ok $n $3" >>"$f"
		say "$1: FAILED: $3"
	fi
}

# tap_log SUITE PREFIX LOG RC: the results a TAP producer wrote to LOG
# (its top-level "ok"/"not ok" lines), held to its plan ("1..N") and to
# its exit status RC: a missing plan, a plan it did not run or a
# non-zero exit status without a failed test is one more failure.
tap_log() {
	local suite=$1 prefix=$2 log=$3 rc=$4 line plan="" ran=0 failed=0 not desc

	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line =~ ^(not )?ok( [0-9]+)?( -)?\ ?(.*)$ ]]; then
			ran=$((ran + 1))
			not=${BASH_REMATCH[1]}
			desc=${BASH_REMATCH[4]}
			if [ -n "$not" ]; then
				failed=$((failed + 1))
				tap "$suite" fail "$prefix: $desc"
			elif [[ $desc =~ \#\ *[Ss][Kk][Ii][Pp] ]]; then
				tap "$suite" skip "$prefix: $desc"
			else
				tap "$suite" ok "$prefix: $desc"
			fi
		fi
	done <"$log"
	if [ -z "$plan" ]; then
		tap "$suite" fail "$prefix: no TAP plan: did not finish (exit status $rc)"
		failed=$((failed + 1))
	elif [ "$plan" != "$ran" ]; then
		tap "$suite" fail "$prefix: planned $plan tests, ran $ran"
		failed=$((failed + 1))
	elif [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
		tap "$suite" fail "$prefix: exit status $rc"
		failed=$((failed + 1))
	fi
	[ "$failed" = 0 ] || grep -aE '^not ok |^# .*(Expected|FAIL| line [0-9])' "$log" |
		head -n 20 | sed "s/^/    $prefix: /"
}

# one SUITE NAME CMD...: a command that is one test; log in logs/NAME.log
one() {
	local suite=$1 name=$2
	shift 2
	if "$@" >"$OUT/logs/$name.log" 2>&1; then
		tap "$suite" ok "$name"
		return 0
	fi
	tap "$suite" fail "$name (build/check/logs/$name.log)"
	tail -n 20 "$OUT/logs/$name.log" | sed 's/^/    /'
	return 1
}

# tap_run SUITE NAME CMD...: a command that prints TAP; log in logs/NAME.log
tap_run() {
	local suite=$1 name=$2
	shift 2
	"$@" >"$OUT/logs/$name.log" 2>&1
	tap_log "$suite" "$name" "$OUT/logs/$name.log" $?
}

# --- 1. setup --------------------------------------------------------------
# What the debug kernels' build needs first (setup.sh --kernel): they
# build in the background while the rest installs.
say "setting up (Debian packages; the debug kernels build in the background)"
# early_failure LOG: a step before any test failed: its log, one failure.
early_failure() {
	cat "$1"
	echo "0 passed, 1 failed"
	exit 1
}
"$top/scripts/setup.sh" --kernel >"$OUT/logs/setup.log" 2>&1 ||
	early_failure "$OUT/logs/setup.log"
# The debug kernels, built once (minutes) and cached, for the parts that
# use them (all of them in "make check"). On a fresh machine they build in
# the background at the lowest CPU priority, from here on: during the
# rest of the setup (mostly downloads) and while the parts that need
# none run (a guest on one emulation thread, checkpatch and sparse leave
# a core idle); each part that boots one waits for its kernel. The
# source is unpacked first, on its own: checkpatch comes from it.
KBUILD_PID=
KDEBUG=
KKASAN=
kernels_wanted() {
	local p
	for p in kasan-6.1 kasan-6.1-faults persist-kasan-6.1; do
		want "$p" && echo kasan-6.1 && break
	done
	for p in debug-6.1 debug-6.1-smp4 harness; do
		want "$p" && echo debug-6.1 && break
	done
}
KWANTED=$(kernels_wanted)
# kernel_state NAME: "cached" if kernel NAME was built before this run,
# else when this run's build made it ready (seconds after its start), or
# "not built".
KSTART=$(date +%s)
KCACHED=
for k in $KWANTED; do
	[ -f "$("$VM/build-debug-kernel.sh" --path "$VM/${k%-6.1}.config")/.tring-done" ] &&
		KCACHED="$KCACHED $k"
done
kernel_state() {
	local f

	case " $KCACHED " in *" $1 "*) echo cached && return ;; esac
	f=$("$VM/build-debug-kernel.sh" --path "$VM/${1%-6.1}.config")/.tring-done
	[ -f "$f" ] && echo "built, ready after $(($(stat -c %Y "$f") - KSTART)) s" ||
		echo "not built"
}
if [ -n "$KWANTED" ]; then
	# One after the other: the two share the unpacked source.
	(
		renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
		"$VM/build-debug-kernel.sh" --extract >"$OUT/logs/linux-source.log" 2>&1
		for k in $KWANTED; do
			guest_kernel "$k" >/dev/null 2>"$OUT/logs/$k-kernel.log" || exit 1
		done
	) </dev/null &
	KBUILD_PID=$!
fi
"$top/scripts/setup.sh" >>"$OUT/logs/setup.log" 2>&1 ||
	early_failure "$OUT/logs/setup.log"
QEMU=$(qemu_version)
# The source for checkpatch: unpacked by the background job (waited for
# here, not through the cache's lock, which a build holds), or here.
ksrc=$("$VM/build-debug-kernel.sh" --src)
while [ -n "$KBUILD_PID" ] && kill -0 "$KBUILD_PID" 2>/dev/null &&
	! grep -qs . "$ksrc/.tring-version"; do
	sleep 2
done
"$VM/build-debug-kernel.sh" --extract >>"$OUT/logs/linux-source.log" 2>&1 ||
	early_failure "$OUT/logs/linux-source.log"
# wait_kernel NAME: wait until the background build has made kernel NAME
# (kasan-6.1 is built first, for lane B, which reaches it first),
# then set KDEBUG or KKASAN to its build tree. A kernel that did not
# build fails that kernel's parts.
wait_kernel() {
	local k=$1 t t0=$(date +%s) dir

	dir=$("$VM/build-debug-kernel.sh" --path "$VM/${k%-6.1}.config")
	if [ -n "$KBUILD_PID" ] && [ ! -f "$dir/.tring-done" ]; then
		mark "wait-$k"
		say "waiting for the $k kernel to build"
		while kill -0 "$KBUILD_PID" 2>/dev/null && [ ! -f "$dir/.tring-done" ]; do
			sleep 2
		done
		say "$k kernel ready (waited $(($(date +%s) - t0)) s)"
	fi
	# Built, or the background job ended: it builds no more.
	if ! t=$(guest_kernel "$k" 2>>"$OUT/logs/$k-kernel.log"); then
		cat "$OUT/logs/$k-kernel.log"
		tap "$k" fail "the $k kernel did not build (build/check/logs/$k-kernel.log)"
		return 1
	fi
	case $k in
	debug-6.1) KDEBUG=${t##* } ;;
	kasan-6.1) KKASAN=${t##* } ;;
	esac
}

# --- 2. static checks ------------------------------------------------------
static_checks() {
	local f k
	mark static
	say "static checks"
	CHECKPATCH=$("$VM/build-debug-kernel.sh" --src)/scripts/checkpatch.pl
	KDOC=/usr/lib/linux-kbuild-6.1/scripts/kernel-doc
	KFILES=$(cd "$top" && echo kernel/trace/*.[ch] include/linux/tring.h \
		include/uapi/linux/tring.h $(ls samples/tring/*.c 2>/dev/null))
	for f in $KFILES; do
		one static "checkpatch-$(echo "$f" | tr / _)" \
			perl "$CHECKPATCH" --no-tree --strict --quiet -f "$top/$f"
	done
	one static kernel-doc sh -c "cd '$top' && $KDOC -none -Werror $KFILES"
	one static jrow "$top/scripts/jrow-test.sh"
	# Into build/sparse/, not the guests' module trees (the other lane
	# builds those).
	sparse_clean() {
		make -C "$top" -s sparse KDIR="$1" \
			MODDIR="$B/sparse/$(basename "$(realpath "$1")")" 2>&1 |
			tee /dev/stderr | grep -E 'warning:|error:' && return 1
		return 0
	}
	for k in 6.1 6.12; do
		one static "sparse-$k" sparse_clean "$(guest_kernel "$k" | cut -d' ' -f2)"
	done
	# The plain build is the 6.1 guests' (built before the lanes).
	k=$(guest_kernel 6.1 | cut -d' ' -f2)
	one static proto-mismatch env PROTO_PLAIN_LOG="$OUT/logs/modules-6.1.log" \
		PROTO_PLAIN_KO="$(guest_moddir "$k")/tring.ko" \
		"$top/scripts/proto-mismatch.sh" "$k"
	one static abi-rename env \
		ABI_SYMVERS="$B/sparse/$(basename "$(realpath "$k")")/Module.symvers" \
		"$top/scripts/abi-rename.sh" "$k"
	# Every system call's arguments by name on both Debian kernels, the
	# names supplied for those the headers leave unnamed checked against
	# the 6.1 source's SYSCALL_DEFINE<n>() where it is unpacked.
	k=$("$VM/build-debug-kernel.sh" --src)
	# shellcheck disable=SC2046
	one static syscall-names "$top/scripts/syscall-names.sh" \
		$([ -d "$k/arch/x86" ] && echo -s "$k") \
		"$(guest_kernel 6.1 | cut -d' ' -f2)" \
		"$(guest_kernel 6.12 | cut -d' ' -f2)"
}

# --- 3. the tests built, the twin and the tools' tests -------------------------
# Before the lanes split: the selftests, tring-record and the modules for
# both Debian kernels are built once here, so that no two parts build
# into the same tree at once (the modules beside the rest).
mark build
# modules_done K PID: the result of kernel K's module build, PID.
modules_done() {
	if wait "$2"; then
		tap build ok "modules-$1"
	else
		tap build fail "modules-$1 (build/check/logs/modules-$1.log)"
		tail -n 20 "$OUT/logs/modules-$1.log" | sed 's/^/    /'
	fi
}
# Both Debian kernels' modules in the background, beside the user-space
# builds (each kernel's into a tree of its own, build/mod/KERNEL).
guest_modules "$(guest_kernel 6.1 | cut -d' ' -f2)" >"$OUT/logs/modules-6.1.log" 2>&1 &
mod_61=$!
guest_modules "$(guest_kernel 6.12 | cut -d' ' -f2)" >"$OUT/logs/modules-6.12.log" 2>&1 &
mod_612=$!
one build selftests make -C "$top" -s selftests
one build tools-static make -C "$top" -s tools
one build kernelshark make -C "$top" -s kernelshark
# The shell kselftests (the C ones are built into $B/selftests).
SELFTESTS="$(ls "$B"/selftests/tring_* 2>/dev/null)"
for t in trace generic generic_life select track filter probe uprobe function context; do
	SELFTESTS+=" $top/tools/testing/selftests/tring/tring_${t}_test.sh"
done
one build bench-tools make -C "$top/tools/testing/bench" -s O="$B/bench-tools"
TOOLS="$(ls "$B"/tools/tring-record "$B"/bench-tools/ftrace_read 2>/dev/null) $VM/bench-guest.sh $VM/bench-smoke.sh $VM/tap.sh"
modules_done 6.1 "$mod_61"
modules_done 6.12 "$mod_612"
if want tools; then
	mark tools
	say "tools"
	tap_run tools tools make -C "$top/tools/tring" -s O="$B/tools" test
fi

# guest_results SUITE DIR: every step of a guest's plan, as TAP.
guest_results() {
	local step
	for step in $(cat "$2/results/steps" 2>/dev/null); do
		tap_log "$1" "$step" "$2/results/$step.out" \
			"$(cat "$2/results/$step.rc" 2>/dev/null || echo missing)"
	done
}

# run_kernel NAME KERNEL PLAN [traces] [TIMEOUT_S]: build the module for
# KERNEL (see guest_kernel), boot it with PLAN, count its steps' results
# and its splats; "traces": check with babeltrace2 the traces the guest
# recorded.
# The host's checks of a guest's traces (check-traces.sh: babeltrace2
# and LTTng's analyses, up to a minute) run beside the lane's next part;
# traces_collect, at the lane's end, waits for them and counts their
# results (in the guest's suite, after its own).
TRACES_PENDING=
traces_start() {
	local log=$OUT/logs/traces-$1.log

	# KernelShark's and the HTML report's screenshots of Debian 6.1's
	# workload trace.
	local shot= rshot=
	[ "$1" != debian-6.1 ] || shot=$OUT/kernelshark-debian-6.1.png rshot=$OUT/report-debian-6.1.png
	(TRING_KS_SHOT=$shot TRING_REPORT_SHOT=$rshot "$VM/check-traces.sh" "$2" >"$log" 2>&1
	 echo $? >"$log.rc") &
	TRACES_PENDING="$TRACES_PENDING $1:$!"
}
traces_collect() {
	local job log

	for job in $TRACES_PENDING; do
		wait "${job#*:}"
		log=$OUT/logs/traces-${job%%:*}.log
		tap_log "${job%%:*}" "traces-${job%%:*}" "$log" "$(cat "$log.rc" 2>/dev/null || echo missing)"
	done
	TRACES_PENDING=
}
run_kernel() {
	local name=$1 k image kdir plan=$3 dir=$OUT/guest-$1 rc t0=$(date +%s)
	local timeout_s=${5:-$GUEST_TIMEOUT}

	mark "$name"
	if ! k=$(guest_kernel "$2" 2>"$OUT/logs/kernel-$name.log"); then
		tap "$name" fail "no $2 kernel: $(cat "$OUT/logs/kernel-$name.log")"
		return
	fi
	read -r image kdir <<<"$k"
	one "$name" "module-build-$name" guest_modules "$kdir" || return
	say "$name: booting guest ($(basename "$image"), ${TRING_VM_SMP:-2} vCPUs, QEMU $QEMU -accel ${TRING_VM_ACCEL:-tcg})"
	guest_boot "$image" "$kdir" "$plan" "$dir" "$timeout_s" $SELFTESTS $TOOLS
	rc=$?
	if [ "$rc" = 1 ]; then
		tap "$name" fail "guest did not finish: $(guest_failure "$dir") (build/check/guest-$name/console.log)"
		tail -n 30 "$dir/console.log" | sed 's/^/    /'
		# The steps that ran, from the console.
		guest_salvage "$dir" && guest_results "$name" "$dir"
		return
	fi
	guest_results "$name" "$dir"
	[ "${4:-}" = traces ] && traces_start "$name" "$dir/results"
	if [ "$rc" = 0 ]; then
		tap "$name" ok "no kernel splat"
	else
		tap "$name" fail "kernel splat (build/check/guest-$name/console.log)"
		head -n 20 "$dir/splats.txt" | sed 's/^/    /'
	fi
	say "$name: clocksource $(cat "$dir/results/clocksource" 2>/dev/null), QEMU $(cat "$dir/results/qemu" 2>/dev/null), $(($(date +%s) - t0)) s"
}

# --- the parts ------------------------------------------------------------------
# Debian's kernels run on one host thread (-accel tcg,thread=single):
# with QEMU 10.0 a vCPU of a multi-threaded TCG guest can still run a
# stale translation of a tracepoint site another vCPU has just patched
# ("Oops: int3" at the site, the finished NOP in memory), which the
# event-toggling tests hit under load (6.12 three times, 6.1 once). One
# thread cannot interleave a vCPU with the patching, and costs no more
# time here.
part_debian() {
	want "$1" && TRING_VM_ACCEL=tcg,thread=single run_kernel "$1" "$1" \
		"$VM/plan-check" traces
}

# A Debian kernel with one host thread per vCPU after all, for the core's
# tests that switch no tracepoint (stress with self-NMIs, data with CPUs
# offline and back): the build under real concurrency. The stale
# translations above come from patching a tracepoint site; these tests
# patch none (scripts/toggle-experiment.sh is the experiment).
part_debian_mt() {
	want "$1-mt" && TRING_VM_ACCEL=tcg run_kernel "$1-mt" "$1" "$VM/plan-mt"
}

# make install (DKMS), then Debian 6.1 and 6.12 booted with the host's own
# Debian userland: modprobe tring, tring-record, babeltrace2, and the
# peers' smoke tests (LTTng on 6.1 only, trace-cmd, perf); make uninstall
# must leave nothing. TAP: tools/testing/vm/userland/test-userland.sh.
part_userland() {
	want userland || return 0
	mark userland
	say "userland: make install, guests with the host's userland, peers, make uninstall"
	tap_run userland userland "$VM/userland/test-userland.sh" "$OUT/userland"
}

# persist= on a Debian kernel: a crash and a warm reboot read back, the
# region damaged six ways, reserve_mem= on 6.12
# (tools/testing/vm/persist-test.sh; each guest has a 240 s budget,
# KASAN's 480 s, the whole a 1500 s one; about 2 minutes each here).
part_persist() {
	want "persist-$1" || return 0
	mark "persist-$1"
	say "persist-$1: crash and reboot with persist=, the trace read back (Debian $1)"
	tap_run persist "persist-$1" timeout 1500 "$VM/persist-test.sh" "$1" "$OUT/persist-$1"
}

# The tracer race of make bench with tiny counts (Debian 6.1).
part_race() {
	want race || return 0
	mark race
	say "race: the tracer race of make bench, tiny counts (Debian 6.1)"
	tap_run race race "$VM/userland/race-smoke.sh" "$OUT/race"
}

# The same plan on the KCSAN/lockdep kernel (and on 4 vCPUs: see
# part_debug_smp4, in the other lane). The filter
# fuzzers' generated cases are split between the two debug kernels
# (tring_fuzz=K/N: each runs every other pair of a whole and a broken
# case, so each case runs under KCSAN or KASAN every run, and under both
# Debian kernels); so are the generic events tring_generic_test.sh enables
# all at once (tring_all=K,K/N: KCSAN, where enabling is slowest, 0.11 s
# an event against KASAN's 0.04, a third of them, KASAN the rest; both
# Debian kernels all).
# Two steps of the plan are left out on this kernel (tring_skip=):
# - tring_lifecycle_test, when the 4-vCPU run is wanted (lane B's
#   part_debug_smp4): it runs the same test on the same kernel (KCSAN,
#   lockdep) with twice the CPUs, every CPU busy; the Debian kernels and
#   KASAN's run it on 2;
# - bench_smoke: the benchmark's own writers and readers, and the peers'
#   (ftrace's ring buffer, relay); KASAN's run has it. tring's writers
#   under KCSAN are the stress and data tests' (both runs).
# tring_track_bad=100: the track test writes 100 exiting processes'
# numbers, not 300 (a use after free there is KASAN's to find, whose run
# writes 300); tring_all=0/3: see above.
part_debug() {
	local skip=bench_smoke

	echo "$KWANTED" | grep -qw debug-6.1 && wait_kernel debug-6.1 || return 0
	want debug-6.1-smp4 && skip=$skip,tring_lifecycle_test
	want debug-6.1 && TRING_VM_CMDLINE="tring_fuzz=0/2 tring_all=0/3 tring_skip=$skip tring_track_bad=100" \
		run_kernel debug-6.1 debug-6.1 "$VM/plan-check" traces
}

# The KCSAN/lockdep kernel's plan on 4 vCPUs (plan-smp4). It takes
# longer: a hung one fails after twice as long.
part_debug_smp4() {
	echo "$KWANTED" | grep -qw debug-6.1 && want debug-6.1-smp4 &&
		wait_kernel debug-6.1 || return 0
	TRING_VM_SMP=4 run_kernel debug-6.1-smp4 debug-6.1 "$VM/plan-smp4" - \
		$((GUEST_TIMEOUT * 2))
}

# The same plan on the KASAN kernel, then fault injection, then damaged
# regions again and a region of 4 CPUs read by 2, under KASAN. Of the
# damages, the slots and the records: they reach the per-CPU recovery and
# the copy into the last boot's buffer. The other four (header, version,
# geometry, metadata) are refused by tring_persist_check_header() before
# anything else runs; that parser runs under ASan+UBSan in the twin on
# the same damages and on random ones (twin_persist.c), and in both
# Debian kernels' runs every time.
part_kasan() {
	echo "$KWANTED" | grep -qw kasan-6.1 && wait_kernel kasan-6.1 || return 0
	want kasan-6.1 && TRING_VM_CMDLINE="tring_fuzz=1/2 tring_all=1,2/3" \
		run_kernel kasan-6.1 kasan-6.1 "$VM/plan-check" traces
	want kasan-6.1-faults && SPLAT_ALLOW_ALLOC_FAILURES=1 run_kernel \
		kasan-6.1-faults kasan-6.1 "$VM/plan-faults" - $((GUEST_TIMEOUT * 2))
}

# The persistent region under KASAN (see part_kasan), in lane B after
# the KASAN plans.
part_persist_kasan() {
	echo "$KWANTED" | grep -qw kasan-6.1 && want persist-kasan-6.1 &&
		wait_kernel kasan-6.1 || return 0
	mark persist-kasan-6.1
	say "persist-kasan-6.1: damaged regions and fewer CPUs, read under KASAN"
	DAMAGED_KINDS="slots records" tap_run persist persist-kasan-6.1 \
		timeout 1800 "$VM/persist-test.sh" kasan-6.1 \
		"$OUT/persist-kasan-6.1" damaged cpus
}

# The harness part (part_harness): scripts/check-harness.sh.
. "$top/scripts/check-harness.sh"

# The guest-instruction counter of make bench (tools/testing/insn): a QEMU
# plugin of ours, built against the installed QEMU's header, counts a
# guest loop's instructions exactly.
part_insn() {
	want insn || return 0
	mark insn
	say "insn: the QEMU plugin that counts guest instructions (Debian 6.1)"
	tap_run insn insn "$top/tools/testing/insn/insn-test.sh" "$OUT/insn"
}

# --- the lanes ------------------------------------------------------------------
# Two lanes run side by side on the machine's two cores. A: the guests of
# Debian 6.1 (one emulation thread, then one per vCPU for debian-6.1-mt),
# the userland, 6.12's persistent region and the race, then the KCSAN
# kernel's plan and the harness. B: the single-threaded checks, Debian
# 6.12 (the same two runs), 6.1's persistent region, then the KASAN
# kernel's plans, the persistent region under KASAN, the KCSAN kernel on 4 vCPUs and the
# instruction counter. The debug kernels build in the background, KASAN
# first (lane B reaches it first); on a fresh machine each lane waits
# for its kernel, and the parts after the waits are split so that the
# lanes end together (each about 1,500 s after the split here). Each
# lane builds modules only for its own kernels, and each part's results
# go to files of their own.
lane_a() {
	LANE=a
	part_debian debian-6.1
	part_debian_mt debian-6.1
	part_userland
	part_persist 6.12
	part_race
	part_debug
	part_harness
	traces_collect
	mark end
}
lane_b() {
	LANE=b
	want static && static_checks
	if want twin; then
		mark twin
		say "user-space twin of the core (unit, stress, ASan+UBSan, TSan)"
		tap_run twin twin make -C "$top" -s twin-test
	fi
	part_debian debian-6.12
	part_debian_mt debian-6.12
	part_persist 6.1
	part_kasan
	part_persist_kasan
	part_debug_smp4
	part_insn
	traces_collect
	mark end
}
mark lanes
lane_a &
LANE_A=$!
lane_b &
LANE_B=$!
wait "$LANE_A" "$LANE_B"
wait "$KBUILD_PID" 2>/dev/null || true

# --- summary -----------------------------------------------------------------
{
	echo "KTAP version 1"
	echo "1..$(wc -l <"$TAP/order")"
	i=0
	for s in $(cat "$TAP/order"); do
		i=$((i + 1))
		echo "    KTAP version 1"
		echo "    1..$(wc -l <"$TAP/$s.tap")"
		sed 's/^/    /' "$TAP/$s.tap"
		grep -q '^not ok' "$TAP/$s.tap" && echo "not ok $i $s" || echo "ok $i $s"
	done
} >"$OUT/results.ktap"
echo
# count KIND FILE...: the results of one kind (passed, failed, skipped).
count() {
	local kind=$1
	shift
	case $kind in
	passed) cat "$@" | grep '^ok ' | grep -vic '# SKIP' ;;
	failed) cat "$@" | grep -c '^not ok ' ;;
	skipped) cat "$@" | grep '^ok ' | grep -ic '# SKIP' ;;
	esac
}
printf '%-18s %8s %8s %8s\n' suite passed failed skipped
for s in $(cat "$TAP/order"); do
	printf '%-18s %8d %8d %8d\n' "$s" "$(count passed "$TAP/$s.tap")" \
		"$(count failed "$TAP/$s.tap")" "$(count skipped "$TAP/$s.tap")"
done
P=$(count passed "$TAP"/*.tap)
F=$(count failed "$TAP"/*.tap)
S=$(count skipped "$TAP"/*.tap)
# The failures again, and each part's time, where a log's tail shows them.
awk 'FNR == 1 { s = FILENAME; sub(/.*\//, "", s); sub(/\.tap$/, "", s) }
	/^not ok / { print "failed: " s ": " $0 }' "$TAP"/*.tap | head -n 20
# The first lines of each guest's splats, and the last console lines of
# a guest that timed out, whichever part booted it (guest-NAME, or a
# part's own directory of guests: persist-6.1/damaged-geometry).
find "$OUT" -maxdepth 3 \( -name splats.txt -o -name qemu.log \) | sort |
	while read -r f; do
		d=${f%/*}
		n=${d#"$OUT"/}
		n=${n#guest-}
		# The harness's planted WARN is meant to be found.
		[ "$n" != planted ] || continue
		case $f in
		*/splats.txt) head -n 6 "$f" | sed "s|^|splat: $n: |" ;;
		*) ! grep -q 'timed out' "$f" ||
			tail -n 4 "$d/console.log" 2>/dev/null | cut -c1-160 |
			sed "s|^|timed out: $n: |" ;;
		esac
	done
mark end
# seconds LABEL FILE: each part's seconds, from the marks of one lane.
seconds() {
	awk -v l="$1" '{ if (NR > 1) printf "%s%s %ds", (NR > 2 ? ", " : "seconds " l ": "), p, $2 - t; p = $1; t = $2 }
		END { if (NR > 1) print "" }' "$2"
}
seconds "(before the lanes)" "$OUT/marks-main"
for k in $KWANTED; do
	echo "kernel $k: $(kernel_state "$k")"
done
for l in a b; do
	[ -f "$OUT/marks-$l" ] && seconds "(lane $l)" "$OUT/marks-$l"
done
echo "QEMU $QEMU (TCG); results: build/check/results.ktap"
echo "time: $(($(date +%s) - start))s"
echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
