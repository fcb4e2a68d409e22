#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check, with babeltrace2 on the host, the traces a guest recorded with
# tools/testing/selftests/tring/tring_trace_test.sh: the trace must be a
# CTF trace babeltrace2 reads unaided and must hold exactly what the
# guest did and what tring counted. Each recording is a directory laid
# out as an LTTng session's: the trace in DIR/kernel, tring-record's
# summary in DIR; babeltrace2 is given DIR and finds the trace.
#
# usage: check-traces.sh RESULTS_DIR     (the guest's /results)
# Prints TAP; exit 1 on failure.

set -u
res=$1
traces=$res/traces
. "$(dirname "$0")/tap.sh"

# check NAME CMD...: CMD's success is one test
check() {
	local name=$1
	shift
	"$@"
	tap_ok $? "$name"
}

# value FILE KEY: a key=value line of a tring-record summary
value() {
	sed -n "s/^$2=//p" "$1" | head -n 1
}

# expected FILE KEY: the values of one key in an .expect file
expected() {
	sed -n "s/^$2 //p" "$1"
}

bt() {
	babeltrace2 "$1" >"$1.bt" 2>"$1.bt.err"
}

# Events babeltrace2 printed, padding and no-op records aside.
bt_events() {
	grep -cvE '^$| tring_padding: | tring_nop: ' "$1.bt"
}

summary_sum() {
	local f=$1 key=$2
	sed -n "s/^cpu[0-9]*\.$key=//p" "$f" | awk '{ s += $1 } END { print s + 0 }'
}

echo "TAP version 13"

# --- workload ----------------------------------------------------------------
w=$traces/workload
ws=$w/.tring-record.summary
check "workload: babeltrace2 reads the trace" bt "$w"
check "workload: events were recorded" test "$(bt_events "$w")" -gt 100
check "workload: nothing lost" test "$(summary_sum "$ws" lost)" = 0

while read -r text; do
	check "workload: marker \"$text\"" \
		grep -qF "marker: { cpu_id = " "$w.bt"
	check "workload: marker text exact: \"$text\"" \
		grep -qF "text = \"$text\", tring_pad = { } }" "$w.bt"
done < <(expected "$w.expect" marker)

# Every sched_switch continues its CPU's previous one.
switch_pairs() {
	awk '/ sched_switch: / {
		cpu = $0; sub(/.*cpu_id = /, "", cpu); sub(/,.*/, "", cpu)
		prev = $0; sub(/.*prev_tid = /, "", prev); sub(/,.*/, "", prev)
		next_ = $0; sub(/.*next_tid = /, "", next_); sub(/,.*/, "", next_)
		if ((cpu in last) && last[cpu] != prev) bad++
		last[cpu] = next_; n++
	} END { print n + 0, bad + 0; exit !(n > 0 && bad == 0) }' "$w.bt"
}
check "workload: sched_switch events pair up per CPU" switch_pairs

while read -r pid; do
	check "workload: fork of child $pid" \
		grep -qE "sched_process_fork: .* child_tid = $pid, child_pid = $pid }" "$w.bt"
	check "workload: exec of /bin/sh by $pid" \
		grep -qE "sched_process_exec: .* tid = $pid, old_tid = $pid, filename = \"/bin/sh\", tring_pad = \\{ \\} }" "$w.bt"
	check "workload: exit of child $pid" \
		grep -qE "sched_process_exit: .* tid = $pid, " "$w.bt"
done < <(expected "$w.expect" child)

check "workload: sys_openat of $(expected "$w.expect" openat)" \
	grep -qE "sys_openat: .* filename = \"$(expected "$w.expect" openat)\", tring_pad = \\{ \\} }" "$w.bt"
check "workload: sys_execve of /bin/sh" \
	grep -qE "sys_execve: .* filename = \"/bin/sh\", tring_pad = \\{ \\} }" "$w.bt"
check "workload: sys_kill of $(expected "$w.expect" kill) with SIGTERM, by the shell" \
	grep -qE "sys_kill: .* pid = $(expected "$w.expect" kill), sig = 15 }" "$w.bt"
check "workload: the shell's echo wrote its 6 bytes: sys_write with count = 6" \
	grep -qE "sys_write: .* fd = 1, buf = [0-9]+, count = 6 }" "$w.bt"
check "workload: irq_handler_entry events carry the irq and the handler's name" \
	grep -qE "irq_handler_entry: .* irq = [0-9]+, name = \"[^\"]+\", tring_pad = \\{ \\} }" "$w.bt"
check "workload: exit_syscall events carry the id" \
	grep -qE "exit_syscall: .* id = [0-9]+, ret = -?[0-9]+ }" "$w.bt"
check "workload: softirq events carry vec" \
	grep -qE "softirq_entry: .* vec = [0-9] }" "$w.bt"
check "workload: sched_waking events carry tid and target_cpu" \
	grep -qE "sched_waking: .* tid = [0-9]+, prio = -?[0-9]+, target_cpu = [0-9]+ }" "$w.bt"
# The env Trace Compass and babeltrace2 key on.
meta_has() {
	grep -qxF "$1" "$w/kernel/metadata"
}
for kv in 'domain = "kernel";' 'tracer_name = "tring";' \
	"hostname = \"$(expected "$w.expect" hostname)\";" \
	"kernel_release = \"$(expected "$w.expect" release)\";" \
	"uuid = \"$(expected "$w.expect" bootid)\";"; do
	check "workload: metadata has $kv" meta_has "$(printf '\t%s' "$kv")"
done
trace_uuid() {
	sed -n '/^trace {/,/^}/s/^\tuuid = "\(.*\)";/\1/p' "$1/kernel/metadata"
}
check "workload: each recording has its own trace uuid" \
	test -n "$(trace_uuid "$w")" -a "$(trace_uuid "$w")" != "$(trace_uuid "$traces/loss")"

# The statedump: one, whole, naming what existed before the trace.
sd_count() {
	grep -c " $1: " "$w.bt"
}
check "workload: one lttng_statedump_start" test "$(sd_count lttng_statedump_start)" = 1
check "workload: one lttng_statedump_end" test "$(sd_count lttng_statedump_end)" = 1
check "workload: the statedump's events lie between its start and end" \
	awk '/ lttng_statedump_start: / { s = NR } / lttng_statedump_end: / { e = NR }
	     / lttng_statedump_(process_state|interrupt|block_device): / { if (!s || e) bad++; n++ }
	     END { exit !(n > 0 && !bad) }' "$w.bt"
# tid name pairs the statedump gave.
sd_threads() {
	sed -n 's/.* lttng_statedump_process_state: .* tid = \([0-9]*\), vtid = [0-9]*, pid = [0-9]*, vpid = [0-9]*, ppid = [0-9]*, vppid = [0-9]*, name = "\([^"]*\)", type = [01], mode = 5, submode = 1, status = [0-9]*, cpu = [0-9]* }$/\1 \2/p' "$w.bt" | sort -u
}
# Threads listed before and after the recording, by the same name.
lived() {
	sort -u "$w.threads-before" >"$w.tb"
	sort -u "$w.threads-after" | comm -12 "$w.tb" -
}
# Workqueue workers show their queue after their name in /proc: tids only.
missing=$(lived | cut -d' ' -f1 | sort -u | comm -23 - <(sd_threads | cut -d' ' -f1 | sort -u) |
	head -n 5 | tr '\n' ' ')
check "workload: the statedump names each of the $(lived | wc -l) threads /proc listed (missing: ${missing:-none})" \
	test -z "$missing" -a "$(lived | wc -l)" -gt 10
# A task's name is 15 characters; /proc shows kernel threads' whole.
missing=$(lived | grep -v '^[0-9]* kworker/' |
	awk '{ t = $1; sub(/^[0-9]+ /, ""); print t " " substr($0, 1, 15) }' | sort -u |
	comm -23 - <(sd_threads) | head -n 5 | tr '\n' ';')
check "workload: the statedump gives each thread its /proc name (differing: ${missing:-none})" \
	test -z "$missing"
sd_pid_check() {
	awk 'function f(k,   v) {
		v = $0; if (!sub(".* " k " = ", "", v)) return "?"
		sub(/[,}].*/, "", v); return v
	}
	/ lttng_statedump_process_state: / {
		n++
		# A thread being reaped (status 7, EXIT_DEAD) has left its
		# namespaces: its v-ids are 0, as in LTTng'"'"'s statedump.
		if (f("status") != 7 && (f("tid") != f("vtid") ||
		    f("pid") != f("vpid") || f("ppid") != f("vppid"))) bad++
		if (f("name") == "\"kthreadd\"" && f("type") != 1) bad++
		if (f("tid") == 1 && f("type") != 0) bad++
	} END { exit !(n > 0 && !bad) }' "$w.bt"
}
check "workload: statedump: vtid = tid, vpid = pid, vppid = ppid; kthreadd a kernel thread, pid 1 a user thread" \
	sd_pid_check
# Every interrupt /proc/interrupts lists with a handler.
missing=$(awk '$1 ~ /^[0-9]+:$/ { sub(/:/, "", $1); print $1 }' "$w.interrupts" | sort -u |
	comm -23 - <(sed -n 's/.* lttng_statedump_interrupt: .* irq = \([0-9]*\),.*/\1/p' "$w.bt" | sort -u) |
	tr '\n' ' ')
check "workload: the statedump names every numbered interrupt /proc/interrupts lists (missing: ${missing:-none})" \
	test -z "$missing"
# Every block device, with its device number as the kernel's dev_t.
while read -r name majmin; do
	dev=$(( (${majmin%:*} << 20) | ${majmin#*:} ))
	check "workload: statedump: block device $name ($majmin)" \
		grep -qE "lttng_statedump_block_device: .* dev = $dev, diskname = \"$name\", tring_pad = \\{ \\} }" "$w.bt"
done <"$w.blockdevs"

# LTTng's own analyses (python3-lttnganalyses) read the trace as an
# LTTng kernel trace: the session directory's kernel/, the event and
# field names they key on.
shell=$(expected "$w.expect" shell)
# lttng-irqstats through ours (tools/testing/vm/lttng-irqstats): the same
# with a correction for a trace that begins inside a soft interrupt.
lttng_analysis() {
	local name=$1 cmd=lttng-$1
	shift
	[ "$name" != irqstats ] || cmd=$(dirname "$0")/lttng-irqstats
	"$cmd" --no-progress "$w" >"$w.$name" 2>&1 &&
		! grep -q "Cannot run analysis\|^Error" "$w.$name" &&
		grep -qE "$@" "$w.$name"
}
check "workload: lttng-cputop reads the trace and names the test's shell ($shell)" \
	lttng_analysis cputop " \($shell\) "
# The shell's own section of lttng-syscallstats lists openat. By tid: the
# pid shows as "?" when the shell's first calls come before the statedump
# (tring-record runs in the background; slow kernels dump later).
shell_openat() {
	lttng_analysis syscallstats "TID: $shell\)" &&
		awk -v t="TID: $shell)" '
			index($0, t) { s = 1; next }
			/^-----/ { s = 0 }
			s && / - openat / { f = 1 }
			END { exit !f }' "$w.syscallstats"
}
check "workload: lttng-syscallstats counts the shell's openat calls" shell_openat
check "workload: lttng-irqstats counts soft interrupts" \
	lttng_analysis irqstats "<[A-Z]+_SOFTIRQ> +[0-9]+"

check "workload: babeltrace2 event count = tring's event count" \
	test "$(bt_events "$w")" = "$(summary_sum "$ws" events)"
check "workload: tring's event count = events the kernel committed" \
	test "$(summary_sum "$ws" events)" = "$(summary_sum "$ws" kernel_events_written)"
# KernelShark through tring's plugin (a screenshot where make check asks
# for one: TRING_KS_SHOT).
. "$(dirname "$0")/check-kernelshark.sh"
ks_checks "$w" "$shell" "${TRING_KS_SHOT:-}"
# tring-report html against LTTng's analyses (a screenshot where make
# check asks for one: TRING_REPORT_SHOT).
. "$(dirname "$0")/check-report.sh"
report_checks "$w" "${TRING_REPORT_SHOT:-}"

# --- loss ----------------------------------------------------------------------
l=$traces/loss
ls_=$l/.tring-record.summary
failed=$(expected "$l.expect" failed)
written=$(expected "$l.expect" written)
check "loss: babeltrace2 reads the trace" bt "$l"
check "loss: the burst lost events ($failed)" test "${failed:-0}" -gt 0
check "loss: tring counted them" test "$(value "$ls_" cpu0.discarded)" = "$failed"
check "loss: babeltrace2 reports exactly $failed discarded events" \
	grep -qE "discarded $failed events" "$l.bt.err"
check "loss: babeltrace2 shows every written event ($written)" \
	test "$(grep -c ' test: ' "$l.bt")" = "$written"
# The HTML report's losses: CPU 0's, exactly (rp_json: check-report.sh).
report_lost() {
	"$rp_top/build/tools/tring-report" html "$l" -o "$l.html" >/dev/null 2>&1 &&
		[ "$(rp_json "$l.html" | python3 -c 'import json, sys; print(json.load(sys.stdin)["lost"])')" = \
			"{'0': $failed}" ]
}
check "loss: tring-report html shows CPU 0's $failed lost events" report_lost

# --- overwrite -------------------------------------------------------------------
o=$traces/overwrite
os=$o/.tring-record.summary
written=$(expected "$o.expect" written)
ow=$(value "$os" cpu0.overwritten)
check "overwrite: babeltrace2 reads the trace" bt "$o"
check "overwrite: events were overwritten" test "${ow:-0}" -gt 0
check "overwrite: read + overwritten = written ($written)" \
	test "$(( $(grep -c ' test: ' "$o.bt") + ow ))" = "$written"
check "overwrite: no discarded events (nothing was refused)" \
	bash -c "! grep -qE 'discarded [0-9]+ events' '$o.bt.err'"

# A reader that stalled while the writer lapped it (tring_record_test).
g=$traces/overwrite_gap
written=$(expected "$g.expect" written)
ow=$(expected "$g.expect" overwritten)
check "overwrite gap: babeltrace2 reads the trace" bt "$g"
check "overwrite gap: read + overwritten = written ($written)" \
	test "$(( $(grep -c ' test: ' "$g.bt") + ${ow:-0} ))" = "$written"
gap=$(expected "$g.expect" gap)
check "overwrite gap: babeltrace2 reports the $gap overwritten packets" \
	grep -qE "discarded ${gap:-x} packets" "$g.bt.err"

# --- example: a module's own events in its instance ------------------------------
e=$traces/example
ticks=$(expected "$e.expect" ticks)
check "example: babeltrace2 reads the instance's trace" bt "$e"
check "example: the message, exact" \
	grep -qF "example_message: { cpu_id = " "$e.bt"
check "example: message text \"$(expected "$e.expect" message)\"" \
	grep -qF "text = \"$(expected "$e.expect" message)\", tring_pad = { } }" "$e.bt"
check "example: $ticks example_tick events, counting 0 to $((ticks - 1))" \
	test "$(sed -n 's/.* example_tick: .*count = \([0-9]*\),.*/\1/p' "$e.bt" | tr '\n' ' ')" = \
	"$(seq 0 $((ticks - 1)) | tr '\n' ' ')"

# --- generic: the kernel's own events, against ftrace's record -----------------
# tring_generic_test.sh enabled the same kernel events in tring and in
# ftrace around one workload; every value ftrace recorded must be in
# tring's trace, in the field of the same name.
gx=$traces/generic.expect
g=$traces/generic
if [ -f "$gx" ] && [ "$(cat "$gx")" != skip ]; then
	check "generic: babeltrace2 reads the trace" bt "$g"
	gs=$g/.tring-record.summary
	check "generic: nothing lost" test "$(summary_sum "$gs" lost)" = 0
	check "generic: babeltrace2 event count = tring's event count ($(summary_sum "$gs" events))" \
		test "$(bt_events "$g")" = "$(summary_sum "$gs" events)"
	check "generic: tring's event count = events the kernel committed" \
		test "$(summary_sum "$gs" events)" = "$(summary_sum "$gs" kernel_events_written)"
	check "generic: kmalloc events with the kernel's fields by name" \
		grep -qE ' kmalloc: \{ cpu_id = [0-9]+, [^}]*\}, \{ common_pid = [0-9]+, call_site = [0-9]+, ptr = 0x[0-9a-fA-F]+, bytes_req = [0-9]+, bytes_alloc = [0-9]+, gfp_flags = ' "$g.bt"
	for m in $(expected "$gx" module); do
		check "generic: module_load name = \"$m\" (a __data_loc string) as in ftrace" \
			grep -qE " module_load: .* name = \"$m\"" "$g.bt"
	done
	for l in $(expected "$gx" netlen); do
		check "generic: netif_rx on lo, len = $l as in ftrace" \
			grep -qE " netif_rx: .*len = $l, .*name = \"lo\"" "$g.bt"
	done
	ino=$(expected "$gx" ino)
	if expected "$gx" inode | grep -q " $ino\$"; then
		check "generic: writeback_mark_inode_dirty ino = $ino, name (char[32]) as in ftrace" \
			grep -qF "name = \"$(expected "$gx" inode | sed -n "s/ $ino\$//p" | head -n 1)\", ino = $ino," "$g.bt"
	fi
	sed -n 's/.* kmalloc: .*bytes_req = \([0-9]*\), bytes_alloc = \([0-9]*\),.*/\1 \2/p' "$g.bt" | sort -u >"$g.kmalloc"
	check "generic: every kmalloc (bytes_req bytes_alloc) ftrace saw, tring saw ($(expected "$gx" kmalloc | wc -l) pairs)" \
		test -z "$(expected "$gx" kmalloc | sort -u | comm -23 - "$g.kmalloc")"
	sed -n 's/.* hrtimer_start: .*, expires = \([0-9]*\),.*/\1/p' "$g.bt" | sort -u >"$g.expires"
	check "generic: every hrtimer_start expires ftrace saw, tring saw ($(expected "$gx" expires | wc -l) values)" \
		test -z "$(expected "$gx" expires | sort -u | comm -23 - "$g.expires")"
fi

# --- generic-mod: events of modules that came and went -------------------------
# tring_generic_life_test.sh: tring_tp_a fired 100 times, unloaded,
# tring_tp_b (another layout, perhaps the freed kernel id) 50 times,
# tring_tp_a loaded again 10 times: each with its own fields, in order.
gm=$traces/generic-mod
if [ -f "$gm.expect" ]; then
	check "generic-mod: babeltrace2 reads the trace" bt "$gm"
	check "generic-mod: nothing lost" test "$(summary_sum "$gm/.tring-record.summary" lost)" = 0
	check "generic-mod: tring_tp_a's 110 records, seq 0-99 then 0-9, name and tag decoded" \
		test "$(sed -n 's/.* tring_tp_a: .*seq = \([0-9]*\), name = "tring", tag = "tagA".*/\1/p' "$gm.bt" | tr '\n' ' ')" = \
		"$(seq 0 99 | tr '\n' ' ')$(seq 0 9 | tr '\n' ' ')"
	check "generic-mod: tring_tp_b's 50 records with its own fields (big = 2^32 + seq, small = seq)" \
		test "$(sed -n 's/.* tring_tp_b: .*big = \([0-9]*\), small = \([0-9]*\).*/\1-\2/p' "$gm.bt" | tr '\n' ' ')" = \
		"$(seq 0 49 | awk '{ printf "%.0f-%d ", 4294967296 + $1, $1 }')"
fi

# --- probe: dynamic probes, against ftrace's kprobe_events ------------------
# tring_probe_test.sh: tring_test_probe_target(i, seed - i, "probe-i")
# called N times under a kprobe (a, b, name and an argument that always
# faults) and a kretprobe (the return value, 3i + seed - i), the same
# definitions in ftrace's kprobe_events at once (probe.ftrace); then a
# filter "b < 0 && a >= 5" over 20 calls of seed 3.
px=$traces/probe.expect
p=$traces/probe
if [ -f "$px" ]; then
	pn=$(expected "$px" calls)
	ps=$(expected "$px" seed)
	check "probe: babeltrace2 reads the trace" bt "$p"
	check "probe: nothing lost" test "$(summary_sum "$p/.tring-record.summary" lost)" = 0
	check "probe: $pn kprobe events, $pn kretprobe events" \
		test "$(grep -c ' tentry: ' "$p.bt") $(grep -c ' tret: ' "$p.bt")" = "$pn $pn"
	sed -n 's/.* tentry: .* a = \([0-9]*\), b = \(-*[0-9]*\), name = "\([^"]*\)".*/\1 \2 \3/p' "$p.bt" >"$p.args"
	check "probe: every call's arguments decoded (a = i, b = $ps - i, name = \"probe-i\")" \
		test "$(cat "$p.args")" = "$(seq 0 $((pn - 1)) | awk -v s="$ps" '{ print $1, s - $1, "probe-" $1 }')"
	check "probe: the faulting argument is 0 and marked in _probe_faults (bit 3) in every event" \
		test "$(grep -c ' tentry: .*_probe_faults = 0x8, .* bad = 0,' "$p.bt")" = "$pn"
	check "probe: every return value decoded (ret = 2i + $ps), in call order" \
		test "$(sed -n 's/.* tret: .* ret = \(-*[0-9]*\) }.*/\1/p' "$p.bt" | tr '\n' ' ')" = \
		"$(seq 0 $((pn - 1)) | awk -v s="$ps" '{ printf "%d ", 2 * $1 + s }')"
	check "probe: the kretprobe's sum = what the calls returned ($(expected "$px" sum))" \
		test "$(sed -n 's/.* tret: .* ret = \(-*[0-9]*\) }.*/\1/p' "$p.bt" | awk '{ s += $1 } END { print s }')" = "$(expected "$px" sum)"
	# The probed address: the function's (kallsyms), or 4 bytes on where
	# kprobes steps over an endbr64 (x86's IBT), as ftrace's __probe_ip.
	ip=$(sed -n 's/.* tentry: .*_probe_ip = 0x\([0-9A-Fa-f]*\),.*/\1/p' "$p.bt" | sort -u)
	fa=$(expected "$px" addr)
	check "probe: every entry at one address, the function's (0x$ip; kallsyms 0x$fa)" \
		test -n "$ip" -a "$(echo "$ip" | wc -l)" = 1 -a -n "$fa" -a \
		\( "$((0x$ip))" = "$((0x$fa))" -o "$((0x$ip))" = "$((0x$fa + 4))" \)
	check "probe: every return of that function (_probe_func), with a return address" \
		test "$(sed -n 's/.* tret: .*_probe_func = 0x\([0-9A-Fa-f]*\),.*/\1/p' "$p.bt" | sort -u)" = "$ip" -a \
		"$(grep -c ' tret: .*_probe_ret_ip = 0x[0-9A-F]*[1-9A-F][0-9A-F]*,' "$p.bt")" = "$pn"
	if [ "$(expected "$px" ftrace)" = yes ]; then
		sed -n 's/.* tentry: .* a=\([0-9]*\) b=\(-*[0-9]*\) name="\([^"]*\)".*/\1 \2 \3/p' \
			"$traces/probe.ftrace" >"$p.ftrace-args"
		check "probe: the same arguments as ftrace's kprobe_events ($(wc -l <"$p.ftrace-args") calls)" \
			cmp -s "$p.args" "$p.ftrace-args"
		check "probe: the same return values as ftrace's kretprobe" \
			test "$(sed -n 's/.* tret: .* ret=\(-*[0-9]*\).*/\1/p' "$traces/probe.ftrace" | tr '\n' ' ')" = \
			"$(sed -n 's/.* tret: .* ret = \(-*[0-9]*\) }.*/\1/p' "$p.bt" | tr '\n' ' ')"
	fi
	pf=$traces/probe-filter
	check "probe: babeltrace2 reads the filtered trace" bt "$pf"
	check "probe: the filter kept a = 5 to 19 only" \
		test "$(sed -n 's/.* tentry: .* a = \([0-9]*\), b = .*/\1/p' "$pf.bt" | tr '\n' ' ')" = "$(seq 5 19 | tr '\n' ' ')"
	pc=$traces/probe-cmd
	check "probe: babeltrace2 reads tring-record --probe's trace" bt "$pc"
	check "probe: --probe --filter -- COMMAND: the command's calls with a >= 10 only (a = 10 to 29)" \
		test "$(sed -n 's/.* centry: .* a = \([0-9]*\) .*/\1/p' "$pc.bt" | tr '\n' ' ')" = "$(seq 10 29 | tr '\n' ' ')"
fi

# --- uprobe: uprobes and uretprobes, against ftrace's uprobe_events -------
# tring_uprobe_test.sh: tring_uprobe_target(i, seed - i) of the static
# program tring_uprobe_target called N times under a uprobe (a, b) and a
# uretprobe (ret = i + seed), ftrace's uprobe_events with the same
# definitions at once (uprobe.ftrace); then a uprobe on a copy of the
# program, unlinked while it ran M calls (uprobe-del).
ux=$traces/uprobe.expect
u=$traces/uprobe
if [ -f "$ux" ]; then
	un=$(expected "$ux" calls)
	us=$(expected "$ux" seed)
	check "uprobe: babeltrace2 reads the trace" bt "$u"
	check "uprobe: nothing lost" test "$(summary_sum "$u/.tring-record.summary" lost)" = 0
	check "uprobe: $un uprobe events, $un uretprobe events" \
		test "$(grep -c ' uentry: ' "$u.bt") $(grep -c ' uret: ' "$u.bt")" = "$un $un"
	check "uprobe: every event from the one process that called" \
		test "$(sed -n 's/.* u\(entry\|ret\): .*common_pid = \([0-9]*\),.*/\2/p' "$u.bt" | sort -u | wc -l)" = 1
	sed -n 's/.* uentry: .* a = \([0-9]*\), b = \(-*[0-9]*\) }.*/\1 \2/p' "$u.bt" >"$u.args"
	check "uprobe: every call's arguments decoded (a = i, b = $us - i)" \
		test "$(cat "$u.args")" = "$(seq 0 $((un - 1)) | awk -v s="$us" '{ print $1, s - $1 }')"
	sed -n 's/.* uret: .* ret = \(-*[0-9]*\) }.*/\1/p' "$u.bt" >"$u.rets"
	check "uprobe: every return value decoded (ret = i + $us), in call order" \
		test "$(tr '\n' ' ' <"$u.rets")" = "$(seq 0 $((un - 1)) | awk -v s="$us" '{ printf "%d ", $1 + s }')"
	check "uprobe: the uretprobe's sum = what the calls returned ($(expected "$ux" sum))" \
		test "$(awk '{ s += $1 } END { print s }' "$u.rets")" = "$(expected "$ux" sum)"
	# babeltrace2 prints hexadecimal in upper case, ftrace in lower.
	uip=$(sed -n 's/.* uentry: .*_probe_ip = 0x\([0-9A-Fa-f]*\),.*/0x\1/p' "$u.bt" | sort -u | tr A-F a-f)
	check "uprobe: one probed address ($uip), the uretprobe's function, with return addresses" \
		test -n "$uip" -a "$(echo "$uip" | wc -l) $(sed -n 's/.* uret: .*_probe_func = 0x\([0-9A-Fa-f]*\),.*/0x\1/p' "$u.bt" | sort -u | tr A-F a-f)" = "1 $uip" -a "$uip" != 0x0 -a \
		"$(grep -c ' uret: .*_probe_ret_ip = 0x[0-9A-F]*[1-9A-F][0-9A-F]*,' "$u.bt")" = "$un"
	if [ "$(expected "$ux" ftrace)" = yes ]; then
		sed -n 's/.* uentry: .* a=\([0-9]*\) b=\(-*[0-9]*\).*/\1 \2/p' \
			"$traces/uprobe.ftrace" >"$u.ftrace-args"
		check "uprobe: the same arguments as ftrace's uprobe_events ($(wc -l <"$u.ftrace-args") calls)" \
			cmp -s "$u.args" "$u.ftrace-args"
		check "uprobe: the same probed address as ftrace's" \
			grep -q " uentry: ($uip)" "$traces/uprobe.ftrace"
	fi
	ud=$traces/uprobe-del
	check "uprobe: babeltrace2 reads the unlinked program's trace" bt "$ud"
	check "uprobe: the unlinked program's $(expected "$ux" deleted) calls recorded" \
		test "$(grep -c ' udel: ' "$ud.bt")" = "$(expected "$ux" deleted)"
fi

# --- function: kernel function entry, named by the metadata ------------------
# tring_function_test.sh: the functions tring_test_probe_target and its
# caller tring_test_probe_write traced while test/probe's one write
# called the first N times; then a recording with the event enabled and
# an empty set (function-empty): no function event. The metadata's
# enumeration names ip and parent_ip; a caller outside the set is
# "<unknown>".
fx=$traces/function.expect
f=$traces/function
if [ -f "$fx" ]; then
	fnum=$(expected "$fx" calls)
	check "function: babeltrace2 reads the trace" bt "$f"
	check "function: nothing lost" test "$(summary_sum "$f/.tring-record.summary" lost)" = 0
	check "function: $fnum events of tring_test_probe_target, each called from tring_test_probe_write, by name" \
		test "$(grep -c ' function: .* ip = ( "tring_test_probe_target" : container = 0x[0-9A-F]* ), parent_ip = ( "tring_test_probe_write" : container = 0x[0-9A-F]* ) }' "$f.bt")" = "$fnum"
	check "function: one event of tring_test_probe_write, its caller unnamed (not in the set)" \
		test "$(grep -c ' function: .* ip = ( "tring_test_probe_write" : container = 0x[0-9A-F]* ), parent_ip = ( <unknown> : ' "$f.bt")" = 1
	check "function: no other function event ($((fnum + 1)) in all)" \
		test "$(grep -c ' function: ' "$f.bt")" = $((fnum + 1))
	check "function: one address for tring_test_probe_target, one return address into its caller" \
		test "$(sed -n 's/.* ip = ( "tring_test_probe_target" : container = \(0x[0-9A-F]*\) ), parent_ip = ( "tring_test_probe_write" : container = \(0x[0-9A-F]*\) ).*/\1 \2/p' "$f.bt" | sort -u | wc -l)" = 1
	if [ -n "$(expected "$fx" command)" ]; then
		fc=$traces/function-cmd
		check "function: babeltrace2 reads tring-record --function's trace" bt "$fc"
		check "function: --function GLOB -- COMMAND: the command's $(expected "$fx" command) calls, by name, no other" \
			test "$(grep -c ' function: .* ip = ( "tring_test_probe_target" : ' "$fc.bt") $(grep -c ' function: ' "$fc.bt")" = \
			"$(expected "$fx" command) $(expected "$fx" command)"
	fi
	if [ "$(expected "$fx" empty)" = yes ]; then
		fe=$traces/function-empty
		check "function: babeltrace2 reads the empty set's trace" bt "$fe"
		check "function: enabled with an empty set, no function event" \
			test "$(grep -c ' function: ' "$fe.bt")" = 0
	fi
fi

# --- function-exit: kernel function exit (fprobe), with the entries ---------
# tring_function_test.sh, on kernels with fprobe: ftrace/function_exit
# and ftrace/function both recorded on tring_test_probe_target, called N
# times as (i, SEED - i): it returns 2 * i + SEED. Both events' ip and
# parent_ip share one enumeration (declared once); the exits' caller is
# not in the set ("<unknown>"), at the entries' return address.
fxx=$traces/function-exit.expect
fx2=$traces/function-exit
if [ -f "$fxx" ]; then
	xnum=$(expected "$fxx" calls)
	xseed=$(expected "$fxx" seed)
	check "function-exit: babeltrace2 reads the trace" bt "$fx2"
	check "function-exit: nothing lost" test "$(summary_sum "$fx2/.tring-record.summary" lost)" = 0
	check "function-exit: $xnum function_exit events, no other, each of tring_test_probe_target by name" \
		test "$(grep -c ' function_exit: .* ip = ( "tring_test_probe_target" : container = 0x[0-9A-F]* ), parent_ip = ( <unknown> : container = 0x[0-9A-F]* ), retval = -*[0-9]* }' "$fx2.bt") $(grep -c ' function_exit: ' "$fx2.bt")" = "$xnum $xnum"
	check "function-exit: $xnum function events beside them" \
		test "$(grep -c ' function: .* ip = ( "tring_test_probe_target" : ' "$fx2.bt")" = "$xnum"
	seq 0 $((xnum - 1)) | awk -v s="$xseed" '{ print 2 * $1 + s }' >"$fx2.want"
	sed -n 's/.* function_exit: .* retval = \(-*[0-9]*\) }$/\1/p' "$fx2.bt" >"$fx2.got"
	check "function-exit: the return values in call order, 2 * i + $xseed" \
		cmp -s "$fx2.want" "$fx2.got"
	xa=$(sed -n 's/.* function_exit: .* ip = ( "tring_test_probe_target" : container = \(0x[0-9A-F]*\) ), parent_ip = ( <unknown> : container = \(0x[0-9A-F]*\) ).*/\1 \2/p' "$fx2.bt" | sort -u)
	xe=$(sed -n 's/.* function: .* ip = ( "tring_test_probe_target" : container = \(0x[0-9A-F]*\) ), parent_ip = ( <unknown> : container = \(0x[0-9A-F]*\) ).*/\1 \2/p' "$fx2.bt" | sort -u)
	check "function-exit: one ip and return address ($xa), those of the entries" \
		test -n "$xa" -a "$(echo "$xa" | wc -l)" = 1 -a "$xa" = "$xe"
	check "function-exit: the metadata declares tring_function_t once" \
		test "$(grep -c ':= tring_function_t;' "$fx2/kernel/metadata")" = 1
	if [ -n "$(expected "$fxx" set)" ]; then
		xs=$traces/function-exit-set
		check "function-exit: babeltrace2 reads the trace of the set changing" bt "$xs"
		got=$(sed -n 's/.* function_exit: .* ip = ( "tring_test_probe_target" : .* retval = \(-*[0-9]*\) }$/\1/p' "$xs.bt" | tr '\n' ' ')
		check "function-exit: the set changing, re-registered, the $(expected "$fxx" set) calls' exits (0 2 4; got $got)" \
			test "$got" = "0 2 4 "
	fi
fi

# --- wakeup: tring's reader wakeups, raised inside generic handlers -----------
# tring_generic_life_test.sh (kernels with ipi:ipi_send_cpu): 20000
# tring_tp_a generic events, a reader woken at every sub-buffer; the
# ipi_send_cpu each wakeup raises (callback tring_wakeup_fn, whose
# address the guest wrote) must be in the trace, not dropped by perf.
wk=$traces/wakeup
if [ -s "$wk.expect" ]; then
	fn=$(printf '%u' "0x$(cat "$wk.expect")")
	check "wakeup: babeltrace2 reads the trace" bt "$wk"
	nw=$(grep -c " ipi_send_cpu: .*callback = $fn[^0-9]" "$wk.bt")
	check "wakeup: the ipi_send_cpu of tring's own wakeups are recorded ($nw, of $(grep -c ' ipi_send_cpu: ' "$wk.bt") ipi_send_cpu)" \
		test "$nw" -gt 0
fi

# --- filter-rec: tring-record -e tring_tp:tring_tp_a --filter ------------------
# tring_generic_life_test.sh fired seq 0 to 99 with 'seq < 7 || name !=
# tring' in force: the trace holds seq 0 to 6 and nothing else.
fr=$traces/filter-rec
if [ -f "$fr.expect" ]; then
	check "filter-rec: babeltrace2 reads the trace" bt "$fr"
	got=$(sed -n 's/.* tring_tp_a: .*seq = \([0-9]*\),.*/\1/p' "$fr.bt" | tr '\n' ' ')
	check "filter-rec: the filtered trace holds seq $(cat "$fr.expect") only (it holds: $got)" \
		test "$got" = "$(cat "$fr.expect") " -a "$(bt_events "$fr")" = 7
fi

# --- filter-sys: tring-record -e sys_openat --filter ---------------------------
# tring_filter_test.sh created /tmp/selsys1 to 3 while other calls opened
# other files: the trace holds those three opens and nothing else.
fs=$traces/filter-sys
if [ -f "$fs.expect" ]; then
	check "filter-sys: babeltrace2 reads the trace" bt "$fs"
	got=$(grep -c ' sys_openat: .*filename = "/tmp/selsys[123]"' "$fs.bt")
	check "filter-sys: $got opens of /tmp/selsys1-3 and no other event (want $(cat "$fs.expect"), $(bt_events "$fs") events)" \
		test "$got" = "$(cat "$fs.expect")" -a "$(bt_events "$fs")" = "$(cat "$fs.expect")"
fi

# --- select: tring-record -e ----------------------------------------------------
# tring_select_test.sh: -e sched_switch (-e kmem:kmalloc with tracefs)
# while sched_waking was on: the trace holds the events chosen, each at
# least once, and no other.
sl=$traces/select
if [ -f "$sl.expect" ]; then
	check "select: babeltrace2 reads the trace" bt "$sl"
	names=$(sed -n 's/^\[[^]]*\] ([^)]*) [^ ]* \([a-z_0-9]*\): .*/\1/p' "$sl.bt" |
		grep -vE '^tring_(padding|nop)$' | sort -u | tr '\n' ' ')
	check "select: the trace holds exactly $(cat "$sl.expect") (it holds: $names)" \
		test "$names" = "$(tr ' ' '\n' <"$sl.expect" | sort | tr '\n' ' ')"
fi

# --- track: tring-record -- COMMAND and -p -------------------------------------
# tring_track_test.sh recorded a command's process tree (tring_track_work:
# threads, a grandchild, an early exit) while the same tree ran untracked
# beside it, then one process with -p. Every event must be about the
# tree: its tids are the command's and, from its fork events on, each
# child's (with -p, only the process itself: no follow); a switch about
# it as either task. The tree's markers and getcpu calls are counted.
# track_count BT ROOT FOLLOW: "tree=N getcpu=N out=N pself=N pkid=N bad=N"
# AWK_FIELD: awk's f(NAME), the value of field NAME in a babeltrace2 line.
AWK_FIELD='
	function f(name,   v) {
		v = $0
		if (!sub(".*[{ ]" name " = ", "", v))
			return ""
		sub(/[,} ].*/, "", v)
		return v
	}'
track_count() {
	awk -v root="$2" -v follow="$3" "$AWK_FIELD"'
	function out(what) { bad++; if (bad < 5) print "# not about the tree: " what > "/dev/stderr" }
	BEGIN { tree[root] = 1 }
	/ sched_process_fork: / {
		if (!(f("parent_tid") in tree) && !(f("parent_pid") in tree))
			out($0)
		if (follow) { tree[f("child_tid")] = 1; tree[f("child_pid")] = 1 }
		next
	}
	/ sched_process_(exit|exec): / { if (!(f("tid") in tree)) out($0); next }
	/ sched_switch: / {
		if (!(f("prev_tid") in tree) && !(f("next_tid") in tree)) out($0)
		next
	}
	/ marker: / {
		if (!(f("tid") in tree)) out($0)
		t = $0; sub(/.*text = "/, "", t); sub(/[ "].*/, "", t); n[t]++
		next
	}
	/ sys_getcpu: / { getcpu++ }
	END {
		printf "tree=%d getcpu=%d out=%d pself=%d pkid=%d bad=%d\n",
			n["tree"], getcpu, n["out"], n["pself"], n["pkid"], bad
	}' "$1"
}

tk=$traces/track
if [ -f "$tk.expect" ]; then
	check "track: babeltrace2 reads the trace of -- COMMAND" bt "$tk"
	check "track: nothing lost" test "$(summary_sum "$tk/.tring-record.summary" lost)" = 0
	got=$(track_count "$tk.bt" "$(head -n 1 "$tk.expect")" 1)
	want="$(sed -n 2p "$tk.expect") out=0 pself=0 pkid=0 bad=0"
	check "track: -- COMMAND: $got (want $want)" test "$got" = "$want"
	check "track: the tree's forks, exits and switches are there" \
		test "$(grep -cE ' sched_process_(fork|exit): | sched_switch: ' "$tk.bt")" -ge 24
fi
tp=$traces/track-p
if [ -f "$tp.expect" ]; then
	check "track-p: babeltrace2 reads the trace of -p" bt "$tp"
	read -r tpid tpwant <"$tp.expect"
	got=$(track_count "$tp.bt" "$tpid" 0)
	want="tree=0 getcpu=0 out=0 $tpwant pkid=0 bad=0"
	check "track-p: -p $tpid: $got (want $want)" test "$got" = "$want"
fi

# track-death: a tracked process that exited. Its exit is recorded, and
# after it the process's last sched_switch, the one that switches it out
# for good (do_task_dead()), is the last switch naming it.
td=$traces/track-death
if [ -f "$td.expect" ]; then
	check "track-death: babeltrace2 reads the trace" bt "$td"
	read -r dpid <"$td.expect"
	last=$(awk -v p="$dpid" "$AWK_FIELD"'
		/ sched_process_exit: / && f("tid") == p { exited = 1; last = "exit" }
		/ sched_switch: / && f("prev_tid") == p { last = (exited ? "out-after-exit" : "out") }
		/ sched_switch: / && f("next_tid") == p { last = "in" }
		END { print last }' "$td.bt")
	check "track-death: $dpid's last switch-out after its exit is kept (last seen: '$last')" \
		test "$last" = out-after-exit
fi

# --- ctx: per-event contexts and call stacks (tring_context_test.sh) ---------
. "$(dirname "$0")/check-traces-ctx.sh"

# --- generic-all: a second of every generic event on, under load --------------
ga=$traces/generic-all
if [ -d "$ga" ]; then
	gas=$ga/.tring-record.summary
	check "generic-all: babeltrace2 reads a second of every generic event on" bt "$ga"
	check "generic-all: babeltrace2 event count = tring's event count ($(summary_sum "$gas" events))" \
		test "$(bt_events "$ga")" = "$(summary_sum "$gas" events)"
	# The buffer records on after tring-record's final flush, and with
	# every event on it fills up and refuses events at once: those count
	# in the kernel's "discarded" but are no loss of the trace's.
	check "generic-all: events discarded as babeltrace2 reports them = as the last packets count them ($(summary_sum "$gas" discarded_in_trace))" \
		test "$(sed -n 's/.*discarded \([0-9]*\) events.*/\1/p' "$ga.bt.err" | awk '{ s += $1 } END { print s + 0 }')" = \
		"$(summary_sum "$gas" discarded_in_trace)"
	check "generic-all: the trace's discarded events are among the kernel's ($(summary_sum "$gas" discarded))" \
		test "$(summary_sum "$gas" discarded_in_trace)" -le "$(summary_sum "$gas" discarded)"
	kinds=$(sed -n 's/.* \([A-Za-z0-9_]*\): { cpu_id = .*/\1/p' "$ga.bt" | sort -u | wc -l)
	check "generic-all: $kinds kinds of event decoded (at least 20)" test "$kinds" -ge 20
fi

tap_end
