# SPDX-License-Identifier: GPL-2.0
#
# Sourced by check-traces.sh: ks_checks TRACE_DIR SHELL_TID [SHOT.png]
# checks tring's KernelShark plugin (tools/tring/kernelshark) on a trace a
# guest recorded, against babeltrace2's reading of the same trace:
# through KernelShark's own library (test_ks, ASan and UBSan), the exact
# event count, each CPU's and each event's count, every sched_switch's
# task its prev_tid, every next entry's its next_tid, the task of a
# known event (the test shell's sys_kill); a truncated stream and a
# damaged metadata are refused with a message, without a crash or a
# leak of ours. With SHOT, KernelShark itself under Xvfb opens the trace
# and a screenshot is kept there.
#
# TRACE_DIR: tring_trace_test.sh's workload recording, already printed
# by babeltrace2 into TRACE_DIR.bt. Prints TAP lines (tap.sh's tap_ok).


ks_self=$(realpath "${BASH_SOURCE[0]}")
ks_top=$(cd "$(dirname "$ks_self")/../../.." && pwd)
ks=$ks_top/build/kernelshark

ks_test() {
	"$ks/asan/test_ks" "$ks/asan/tring-ks.so" "$@"
}

# ks_bt_counts TRACE cpu|event: babeltrace2's events (padding and no-op
# records aside) by CPU or by name, as test_ks prints them
ks_bt_counts() {
	grep -vE '^$| tring_padding: | tring_nop: ' "$1.bt" |
		awk -v what="$2" '{
			if (what == "cpu") {
				# the packet context, printed first
				match($0, /\{ cpu_id = [0-9]+,/)
				c = substr($0, RSTART + 11, RLENGTH - 12); n[c]++
			}
			else { e = $4; sub(/:$/, "", e); n[e]++ }
		} END { for (k in n) print what, k, n[k] }' | sort
}

ks_counts() {
	awk -v what="$2" '$1 == what { print }' "$1" | sort
}

# ks_all OUT KEY: KEY's "N/M" has M > 0 and N = M
ks_all() {
	awk -v k="$2" '$1 == k { split($2, a, "/"); exit !(a[2] > 0 && a[1] == a[2]) }' "$1"
}

# ks_counted TRACE OUT: the counts and tasks against babeltrace2's
ks_counted() {
	local w=$1 out=$2 shell=$3 n comm

	n=$(grep -cvE '^$| tring_padding: | tring_nop: ' "$w.bt")
	[ "$(awk '$1 == "entries" { print $2 }' "$out")" = "$n" ]
	tap_ok $? "kernelshark: $(awk '$1 == "entries" { print $2 }' "$out") entries, babeltrace2's $n events"
	diff <(ks_bt_counts "$w" cpu) <(ks_counts "$out" cpu) >"$out.diff" 2>&1
	tap_ok $? "kernelshark: each CPU's entries are babeltrace2's ($(ks_counts "$out" cpu | tr '\n' ' '))"
	diff <(ks_bt_counts "$w" event) <(ks_counts "$out" event) >>"$out.diff" 2>&1
	tap_ok $? "kernelshark: each event's entries are babeltrace2's ($(ks_counts "$out" event | wc -l) events)"
	awk -v n="$n" '$1 == "matrix" { exit !($2 == n && $4 == n) }' "$out"
	tap_ok $? "kernelshark: the columns KernelShark's Python interface loads are the entries ($(grep '^matrix' "$out"))"
	ks_all "$out" switch-tasks
	tap_ok $? "kernelshark: every sched_switch's task is its prev_tid ($(awk '$1 == "switch-tasks" { print $2 }' "$out"))"
	ks_all "$out" next-tasks
	tap_ok $? "kernelshark: the entry after each sched_switch is its next_tid's ($(awk '$1 == "next-tasks" { print $2 }' "$out"))"
	# The shell's name: the last sched_switch away from it says it.
	comm=$(awk -v t="$shell" '/ sched_switch: / && index($0, "prev_tid = " t ",") {
		c = $0; sub(/.*prev_comm = "/, "", c); sub(/".*/, "", c) } END { print c }' "$w.bt")
	grep -qx "first sys_kill $shell $comm" "$out"
	tap_ok $? "kernelshark: the shell's sys_kill is the shell's, $shell $comm ($(grep '^first' "$out"))"
}

# ks_refused TRACE OUT: a truncated stream, a damaged metadata: refused
# with a message, no crash, no ASan report
ks_refused() {
	local w=$1 out=$2 bad f k st

	bad=$(mktemp -d)
	cp -r "$w" "$bad/trunc"
	f=$(ls -S "$bad"/trunc/kernel/stream_* | head -n 1)
	truncate -s $(($(stat -c %s "$f") / 2 + 100)) "$f"
	cp -r "$w" "$bad/meta"
	sed -i 's/^struct event_header {/struct event_header { damaged;/' "$bad/meta/kernel/metadata"
	for k in trunc meta; do
		ks_test "$bad/$k/kernel/metadata" >"$out.$k" 2>&1
		st=$?
		[ "$st" = 1 ] && grep -q "tring-ks: .*not a trace babeltrace2 can read" "$out.$k" &&
			! grep -q "ERROR: \(Address\|Leak\)Sanitizer\|runtime error" "$out.$k"
		tap_ok $? "kernelshark: a $([ $k = trunc ] && echo "truncated stream" || echo "damaged metadata") is refused (exit $st, a message, no ASan report)"
	done
	rm -rf "$bad"
}

# ks_window (under Xvfb): KernelShark with the plugin on KS_TRACE, the
# plots of KS_CPUS and of KS_TASK; its window's title in KS_OUT.window, a
# screenshot in KS_SHOT
ks_window() {
	local cache pid i

	cache=$(mktemp -d)
	# Its "running as root" dialog is off (the ini of its cache dir).
	printf '[General]\nnoRootWarn=true\n' >"$cache/setting.ini"
	KS_USER_CACHE_DIR=$cache kernelshark -geometry 1380x860+0+0 -p "$KS_PLUGIN" \
		--cpu "$KS_CPUS" --pid "$KS_TASK" "$KS_TRACE/kernel/metadata" >"$KS_OUT.gui" 2>&1 &
	pid=$!
	for i in $(seq 150); do
		xwininfo -root -tree 2>/dev/null | grep -q '"Kernel Shark (' && break
		sleep 0.2
	done
	# The window is mapped: drawn once its event loop has run.
	sleep 2
	xwininfo -root -tree | grep -o '"Kernel Shark ([^"]*)"' >"$KS_OUT.window"
	xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$KS_SHOT" 2>/dev/null
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -rf "$cache"
}

ks_checks() {
	local w=$1 shell=$2 shot=${3:-} out=$1.ks supp
	local -x LSAN_OPTIONS ASAN_OPTIONS=fast_unwind_on_malloc=0

	if [ ! -x "$ks/asan/test_ks" ]; then
		tap_ok 1 "kernelshark: the plugin is built (libkshark-dev, libbabeltrace2-dev)"
		return
	fi
	# babeltrace2's CTF source leaks 16 bytes when a trace fails to open.
	supp=$(mktemp)
	echo "leak:bt_graph_add_source_component" >"$supp"
	LSAN_OPTIONS="suppressions=$supp"
	ks_test "$w/kernel/metadata" --first sys_kill --task "$shell" >"$out" 2>"$out.err"
	tap_ok $? "kernelshark: libkshark opens the trace through the plugin ($(grep -c 'ERROR: ' "$out.err") ASan reports)"
	ks_counted "$w" "$out" "$shell"
	ks_refused "$w" "$out"
	rm -f "$supp"
	[ -n "$shot" ] || return 0
	KS_CPUS=$(awk '$1 == "cpu" { printf "%s%s", n++ ? "," : "", $2 }' "$out") \
	KS_PLUGIN=$ks/tring-ks.so KS_TASK=$shell KS_TRACE=$w KS_OUT=$out KS_SHOT=$shot \
		timeout 120 xvfb-run -a -s "-screen 0 1400x900x24" \
		bash -c '. "$0"; ks_window' "$ks_self"
	# No reader but the plugin's opens a CTF trace: the title names it
	# once the data is loaded.
	grep -qF "(${w}/kernel/metadata)" "$out.window" 2>/dev/null &&
		! grep -q "tring-ks:" "$out.gui" && [ -s "$shot" ]
	tap_ok $? "kernelshark: its window came up with the trace loaded through the plugin, a screenshot ($shot)"
}
