# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# check-traces.sh, the contexts' part: sourced by it, with its check(),
# value(), bt(), AWK_FIELD and $traces.

# --- ctx: per-event contexts and call stacks (tring_context_test.sh) ---------
# ctx-values: tring_ctx_work ns's process and two threads, in a new PID
# and network namespace, each wrote "ctx pid= tid= vpid= vtid= pidns=
# netns= comm=" as it knows itself: the contexts of its marker must say
# the same. ctx-stacks: named by tring-report from kallsyms and maps.
# ctx-nmi: the stress test's writers in every context through a kprobe.
# ctx-perf: software counters, per CPU never decreasing. ctx-hotplug: a
# counter after its CPU went offline and came back. ctx-inst: an
# instance's contexts.
REPORT=${TRING_REPORT:-$(dirname "$0")/../../../build/tools/tring-report}
BINS=${TRING_BINARIES:-$(dirname "$0")/../../../build/selftests}
cv=$traces/ctx-values
if [ -d "$cv" ]; then
	check "ctx-values: babeltrace2 reads the trace" bt "$cv"
	got=$(awk "$AWK_FIELD"'
	/ marker: / {
		t = $0; sub(/.*text = "ctx /, "", t); sub(/".*/, "", t)
		n = split(t, kv, " ")
		for (i = 1; i <= n; i++) { split(kv[i], p, "="); w[p[1]] = p[2] }
		# new= says which namespaces the workload made (1 PID, 2
		# network): both, on every kernel; pidns= and netns= their
		# inodes, as /proc/thread-self/ns shows them (0 if it
		# could not).
		ok = f("pid") == w["pid"] && f("tid") == w["tid"] &&
		     f("vpid") == w["vpid"] && f("vtid") == w["vtid"] &&
		     w["pidns"] != 0 && f("pid_ns") == w["pidns"] &&
		     w["netns"] != 0 && f("net_ns") == w["netns"] &&
		     f("preemptible") == 1 && f("interruptible") == 1 &&
		     f("procname") == "\"" w["comm"] "\"" &&
		     w["new"] == 3 && f("vpid") != f("pid") &&
		     f("ppid") != "" && f("hostname") != ""
		if (ok) good++; else { bad++; print "# " $0 > "/dev/stderr" }
	}
	END { printf "good=%d bad=%d", good, bad }' "$cv.bt")
	check "ctx-values: every marker's pid, tid, vpid, vtid, procname, pid_ns, net_ns as its thread said, in a new PID and network namespace ($got, want good=3 bad=0)" \
		test "$got" = "good=3 bad=0"
fi
# ctx-inst: an instance with contexts (tring_context_test.sh, instance):
# its inline writer in a shell that wrote its pid to ctx-inst.expect;
# only the 10 events after the change (seq 100 to 109), each the shell's.
ci=$traces/ctx-inst
if [ -f "$ci.expect" ]; then
	check "ctx-inst: babeltrace2 reads the trace" bt "$ci"
	got=$(awk -v p="$(cat "$ci.expect")" "$AWK_FIELD"'
	/ test: / {
		s = f("seq") + 0
		if (s >= 100 && s <= 109 && f("pid") == p &&
		    f("tid") == p && f("procname") == "\"sh\"")
			good++
		else {
			bad++
			print "# " $0 > "/dev/stderr"
		}
	}
	END { printf "good=%d bad=%d", good, bad }' "$ci.bt")
	check "ctx-inst: the 10 events after the change, each with the writing shell's pid, tid and name, none from before ($got, want good=10 bad=0)" \
		test "$got" = "good=10 bad=0"
fi
cs=$traces/ctx-stacks
if [ -f "$cs.expect" ]; then
	check "ctx-stacks: babeltrace2 reads the trace" bt "$cs"
	"$REPORT" stacks --binaries "$BINS" -e sys_openat "$cs" >"$cs.openat" 2>&1
	check "ctx-stacks: tring-report stacks -e sys_openat: the system call entry (do_syscall_64), ctx_opener and main" \
		grep -q "k do_syscall_64" "$cs.openat"
	grep -q "u ctx_opener" "$cs.openat" && grep -q "u main" "$cs.openat"
	tap_ok $? "ctx-stacks: sys_openat's user stack names ctx_opener and main"
	# tring_ctx_work's ctx_badfp_opener(): three frame pointers refused
	# (unmapped, kernel, unaligned): [ip, mark]; one frame that is its
	# own caller: [ip, 0x1234, mark].
	got=$(awk -v w="$(cat "$cs.expect")" '
	/ sys_openat: / && (index($0, "pid = " w ",") || index($0, "pid = " w " }")) &&
	    index($0, "filename = \"/dev/null\"") {
		s = $0; sub(/.*callstack_user = \[ /, "", s); sub(/ \].*/, "", s)
		n = split(s, a, ", ")
		if (a[n] !~ /= 0xFFFFFFFFFFFFFFFF$/) next
		if (n == 2) refused++
		else if (n == 3 && a[2] ~ /= 0x1234$/) loop++
	}
	END { printf "refused=%d loop=%d", refused, loop }' "$cs.bt")
	check "ctx-stacks: user stacks from bad frame pointers cut and marked ($got, want refused=3 loop=1)" \
		test "$got" = "refused=3 loop=1"
	"$REPORT" stacks --binaries "$BINS" -e sys_openat --folded "$cs" >"$cs.folded" 2>&1
	check "ctx-stacks: --folded: main;ctx_opener;...;do_syscall_64;..., outermost first" \
		grep -qE "(^|;)main;ctx_opener;.*do_syscall_64;.* [0-9]+$" "$cs.folded"
	"$REPORT" stacks -e sched_switch "$cs" >"$cs.switch" 2>&1
	check "ctx-stacks: sched_switch's stacks pass through __schedule" \
		grep -q "k __schedule" "$cs.switch"
	"$REPORT" stacks -e ptarget "$cs" >"$cs.probe" 2>&1
	check "ctx-stacks: the kprobe's stack names its caller, tring_test_probe_write" \
		grep -q "k tring_test_probe_write" "$cs.probe"
	check "ctx-stacks: 5 kprobe hits with a stack" \
		grep -q "^5 events with a stack of ptarget" "$cs.probe"
fi
cd_=$traces/ctx-depth
if [ -d "$cd_" ]; then
	check "ctx-depth: babeltrace2 reads the trace" bt "$cd_"
	got=$(awk '/ sched_switch: / { n++
		if (/callstack_kernel_length = 3, callstack_kernel = \[ \[0\] = 0x[0-9A-F]+, \[1\] = 0x[0-9A-F]+, \[2\] = 0xFFFFFFFFFFFFFFFF \]/) cut++ }
		END { printf "events=%d cut=%d", n, cut }' "$cd_.bt")
	check "ctx-depth: stack_depth=2 cuts every kernel stack to 2 frames and the mark ($got)" \
		test -n "$(echo "$got" | awk -F'[= ]' '$2 > 0 && $2 == $4')"
fi
cn=$traces/ctx-nmi
if [ -d "$cn" ]; then
	check "ctx-nmi: babeltrace2 reads the trace" bt "$cn"
	got=$(awk "$AWK_FIELD"'
	/ stress: / && /callstack_kernel = \[ \[0\] = / { n[f("ctx")]++ }
	END { printf "task=%d softirq=%d hardirq=%d ipi=%d nmi=%d", n[0], n[1], n[2], n[3], n[4] }' "$cn.bt")
	# The IPI handler is a hardirq too, and kprobes do not nest: one that
	# lands during another hit's handler is missed (counted as lost), so
	# it is reported, not required.
	check "ctx-nmi: events with a kernel stack from the task, softirq, hardirq and NMI contexts ($got)" \
		test -z "$(echo "$got" | sed 's/ ipi=[0-9]*//' | grep '=0\b')"
fi
# ctx-lttng-{plain,all}: LTTng's analyses give the same counts with every
# context on as without: the workload's openat calls (lttng-syscallstats,
# by its TID) and its thread in lttng-cputop. --no-intersection: the
# analyses otherwise start where every stream has begun, and a tring
# stream begins with its CPU's first event (LTTng's with the session):
# a CPU idle at the start cut off the other's first 47 calls (KASAN;
# see Documentation/trace/tring.rst, "LTTng's analyses").
cl=$traces/ctx-lttng
if [ -d "$cl-plain" ] && [ -d "$cl-all" ]; then
	for m in plain all; do
		pid=$(value "$cl-$m/.tring-record.summary" command_pid)
		lttng-syscallstats --no-progress --no-intersection "$cl-$m" \
			>"$cl-$m.syscallstats" 2>&1
		n=$(awk -v t="TID: $pid)" 'index($0, t) { s = 1; next } /^-----/ { s = 0 }
			s && $2 == "openat" { print $3 }' "$cl-$m.syscallstats")
		eval "n_$m=\${n:-none}"
		lttng-cputop --no-progress --no-intersection "$cl-$m" >"$cl-$m.cputop" 2>&1
		check "ctx-lttng: lttng-cputop counts the workload ($pid) in the trace $m" \
			grep -q " ($pid) " "$cl-$m.cputop"
	done
	# shellcheck disable=SC2154
	check "ctx-lttng: lttng-syscallstats counts the workload's openat calls alike with every context ($n_all) and without ($n_plain)" \
		test "$n_all" = "$n_plain" -a "$n_plain" != none
fi
cp_=$traces/ctx-perf
if [ -d "$cp_" ]; then
	check "ctx-perf: babeltrace2 reads the trace" bt "$cp_"
	got=$(awk "$AWK_FIELD"'
	/ sched_switch: / {
		c = f("cpu_id"); v = f("perf_cpu_cpu_clock") + 0; s = f("perf_cpu_context_switches") + 0
		if (c in last && (v < last[c] || s < lasts[c])) bad++
		if (v == 0) zero++
		last[c] = v; lasts[c] = s; n++
	}
	END { printf "events=%d decreasing=%d zero=%d", n, bad, zero }' "$cp_.bt")
	check "ctx-perf: cpu-clock and context-switches never decrease per CPU, never 0 ($got)" \
		test -n "$(echo "$got" | grep -E '^events=[1-9][0-9]* decreasing=0 zero=0$')"
fi
# ctx-hotplug: CPU 1 went offline and came back during the recording;
# its 5 markers after that carry a cpu-clock that counts (its perf event
# made anew when it came back: not 0, not stale).
ch=$traces/ctx-hotplug
if [ -d "$ch" ]; then
	check "ctx-hotplug: babeltrace2 reads the trace" bt "$ch"
	got=$(awk "$AWK_FIELD"'
	/ marker: / && /ctx hotplug after/ && f("cpu_id") == 1 {
		v = f("perf_cpu_cpu_clock") + 0
		if (v == 0) zero++
		else if (n && v <= last) stale++
		last = v; n++
	}
	END { printf "after=%d zero=%d stale=%d", n, zero, stale }' "$ch.bt")
	check "ctx-hotplug: CPU 1's markers after it came back carry a counting cpu-clock ($got)" \
		test -n "$(echo "$got" | grep -E '^after=5 zero=0 stale=0$')"
fi

