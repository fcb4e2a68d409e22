#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: tring against ftrace's ring buffer and relay, side by side,
# then the whole pipeline against LTTng, trace-cmd and perf.
#
# For each Debian kernel (6.1, 6.12) one guest runs
# tools/testing/vm/bench-guest.sh: the write side (tring_bench.ko: the
# same loop and payloads through every writer, interleaved rounds) and
# the read side (tring-record and ftrace's own readers draining the same
# data to tmpfs, against dd) and generic events (one kernel event
# through perf against the same tracepoint in ftrace and as a
# hand-written tring event; every generic event at once: time to
# enable, memory). Then the user-space twin gives native
# figures: ns/event on this CPU and instructions per event (callgrind),
# and QEMU counts the kernel's own write path: instructions per event
# of each writer's loop in a Debian 6.1 guest (tools/testing/insn).
# Last, scripts/bench-race.sh: the tracer race (tring-record, LTTng,
# trace-cmd, perf and no tracer on the same events and workloads, one
# guest per kernel with the host's Debian userland) and the ring buffers
# alone against LTTng's ring-buffer library. Then scripts/bench-probes.sh:
# dynamic probes (tring's kprobe, kretprobe and function entry against
# ftrace's, perf probe's and LTTng's on the same function, one guest per
# kernel, the same userland).
#
# Guest timings are software emulation, not native timings: the ratios
# measured beside each other in one guest run are what carry meaning.
#
# Output: a table on stdout and build/bench/bench-<date>.json.
# Environment: ROUNDS, EVENTS, FILL (see bench-guest.sh), TRING_BENCH_KERNELS
# (default "6.1 6.12"), INSN=0 to leave QEMU's instruction counts out
# (the kernel's write path and the race's), RACE=0 the race, PROBES=0 the
# probes; the race's own variables: scripts/bench-race.sh --help; the
# probes': scripts/bench-probes.sh --help (ROUNDS is shared; its CALLS,
# PROBES_SHORT).

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
OUT=$B/bench
stamp=$(date +%Y%m%d-%H%M%S)
json=$OUT/bench-$stamp.json
kernels=${TRING_BENCH_KERNELS:-6.1 6.12}

say() { echo "bench: $*" >&2; }

mkdir -p "$OUT"
say "setting up (Debian packages)"
"$top/scripts/setup.sh" >&2
make -C "$top" -s tools >/dev/null
make -C "$top/tools/testing/bench" -s >/dev/null

# median, ci95: the shared statistics
. "$top/scripts/stats.sh"

# w FILE IMPL PAYLOAD CPUS READER NESTED: median ns/event
w() {
	awk -v i="$2" -v p="$3" -v c="$4" -v r="$5" -v n="$6" \
		'$1 == "write" && $2 == i && $3 == p && $4 == c && $5 == r && $6 == n { print $8 }' "$1" | median
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }

# rr FILE A B PAYLOAD CPUS READER NESTED: median over rounds of A's time
# over B's in the same round (robust to the emulated machine's drift).
rr() {
	awk -v a="$2" -v b="$3" -v p="$4" -v c="$5" -v r="$6" -v n="$7" '
		$1 == "write" && $3 == p && $4 == c && $5 == r && $6 == n &&
		($2 == a || $2 == b) { t[$2, $NF] = $8; rounds[$NF] = 1 }
		END { for (k in rounds) if (t[b, k] > 0 && t[a, k] > 0)
			printf "%.4f\n", t[a, k] / t[b, k] }' "$1" |
		median | awk '{ if ($1 != "") printf "%.2f", $1; else print "-" }'
}

json_items=()

for series in $kernels; do
	k=$(guest_kernel "$series") || { say "no Debian $series kernel"; continue; }
	read -r image kdir <<<"$k"
	release=${image#/boot/vmlinuz-}
	guest_modules "$kdir" >/dev/null
	cat >"$OUT/plan-bench" <<EOP
run_step load sh -c 'insmod /lib/tring/tring.ko && insmod /lib/tring/tring_bench.ko'
run_step bench env ROUNDS=${ROUNDS:-5} EVENTS=${EVENTS:-200000} FILL=${FILL:-200000} /tests/bench-guest.sh
run_step unload sh -c 'rmmod tring_bench && rmmod tring'
EOP
	say "Debian $release: running the guest benchmark (several minutes)"
	rc=0
	guest_boot "$image" "$kdir" "$OUT/plan-bench" "$OUT/guest-$series" 3600 \
		"$VM/bench-guest.sh" "$VM/tap.sh" "$B/tools/tring-record" \
		"$B/bench-tools/ftrace_read" || rc=$?
	if [ "$rc" = 1 ]; then
		say "the $series guest failed: $OUT/guest-$series/console.log"
		continue
	fi
	[ "$rc" = 0 ] || say "the $series guest kernel reported a problem: $OUT/guest-$series/splats.txt"
	res=$OUT/guest-$series/results
	f=$res/bench.txt
	cp "$f" "$OUT/bench-$stamp-$series.txt"

	echo
	echo "== Linux $release, $(cat "$res/nproc") vCPUs, clocksource $(cat "$res/clocksource"), QEMU $(cat "$res/qemu") TCG (emulated) =="
	echo
	echo "Write side: ns/event, median of ${ROUNDS:-5} interleaved rounds of ${EVENTS:-200000} events per CPU;"
	echo "ratios: median over rounds of each peer's time over trace_write_inline()'s in the same round."
	printf '%-7s %-4s %-6s %-6s | %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s\n' \
		payload cpus reader nested inline reserve ft_res ft_write relay floor \
		ft_res/ ft_wr/ relay/ inline/
	printf '%-7s %-4s %-6s %-6s | %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s\n' \
		'' '' '' '' '' '' '' '' '' '' inline inline inline floor
	while read -r p c r n; do
		ti=$(w "$f" tring_inline "$p" "$c" "$r" "$n")
		tr=$(w "$f" tring_reserve "$p" "$c" "$r" "$n")
		fr=$(w "$f" ftrace_reserve "$p" "$c" "$r" "$n")
		fw=$(w "$f" ftrace_write "$p" "$c" "$r" "$n")
		rl=$(w "$f" relay "$p" "$c" "$r" "$n")
		fl=$(w "$f" floor "$p" "$c" "$r" "$n")
		printf '%-7s %-4s %-6s %-6s | %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s\n' \
			"$p" "$c" "$r" "$n" "$ti" "$tr" "$fr" "$fw" "$rl" "$fl" \
			"$(rr "$f" ftrace_reserve tring_inline "$p" "$c" "$r" "$n")" \
			"$(rr "$f" ftrace_write tring_inline "$p" "$c" "$r" "$n")" \
			"$(rr "$f" relay tring_inline "$p" "$c" "$r" "$n")" \
			"$(rr "$f" tring_inline floor "$p" "$c" "$r" "$n")"
		json_items+=("$(jrow kernel="$release" side=write payload:n="$p" cpus="$c" \
			reader:n="$r" nested:n="$n" ns_per_event.tring_inline:n="$ti" \
			ns_per_event.tring_reserve:n="$tr" ns_per_event.ftrace_reserve:n="$fr" \
			ns_per_event.ftrace_write:n="$fw" ns_per_event.relay:n="$rl" \
			ns_per_event.floor:n="$fl")")
	done < <(awk '$1 == "write" { print $3, $4, $5, $6 }' "$f" | awk '!seen[$0]++')

	s1=$(w "$f" tring_inline 8 1 0 0)
	sa=$(w "$f" tring_inline 8 all 0 0)
	echo
	echo "All CPUs at once vs one CPU alone (8-byte inline, per-CPU rate): $(ratio "$s1" "$sa");"
	echo "  the floor's own ratio in the same run: $(ratio "$(w "$f" floor 8 1 0 0)" "$(w "$f" floor 8 all 0 0)")"

	echo
	echo "Read side: draining $( (sed -n 's/^read tring-record bytes \([0-9]*\).*/\1/p' "$f" | head -n 1) ) bytes of one CPU to tmpfs, median of rounds:"
	printf '%-16s %10s %14s %14s %10s\n' reader MB/s 'CPU ms/MB' 'syscalls/MB' 'vs dd'
	dd_mbs=$(awk '$1 == "read" && $2 == "dd" && $6 > 0 { print $4 / $6 * 1000 }' "$f" | median)
	for rd in tring-record ftrace_splice ftrace_mmap dd; do
		grep -q "^read $rd bytes" "$f" || continue
		mbs=$(awk -v rd="$rd" '$1 == "read" && $2 == rd && $6 > 0 { print $4 / $6 * 1000 }' "$f" | median)
		cpu=$(awk -v rd="$rd" '$1 == "read" && $2 == rd && $4 > 0 { print ($8 + $10) / 1e6 / ($4 / 1048576) }' "$f" | median)
		sc=$(awk -v rd="$rd" '$1 == "read" && $2 == rd && $4 > 0 { print $12 / ($4 / 1048576) }' "$f" | median)
		printf '%-16s %10.1f %14.2f %14.1f %10s\n' "$rd" "${mbs:-0}" "${cpu:-0}" "${sc:-0}" "$(ratio "$mbs" "$dd_mbs")"
		json_items+=("$(jrow kernel="$release" side=read reader="$rd" mb_per_s:n="$mbs" \
			cpu_ms_per_mb:n="$cpu" syscalls_per_mb:n="$sc")")
	done
	grep -E '^read ftrace_[a-z]+ unsupported' "$f" | sed 's/^read /  (not in this kernel: /; s/ unsupported/)/' | sort -u || true
	lost=$(sed -n 's/^read tring-record .* lost \([0-9]*\).*/\1/p' "$f" | sort -u | tr '\n' ' ')
	echo "events lost by tring-record while draining: ${lost:-?}"

	echo
	echo "Sustained: 64-byte events written on CPU 0 into 1 MiB per CPU for one second at each"
	echo "rate (0: full speed), the reader draining from CPU 1 at the same time; events lost"
	echo "in each of 3 rounds, and the highest rate up to which no round lost any."
	echo "tring-default: tring-record as an operator runs it, with the module's default buffer"
	echo "($(awk '$1 == "default_buffer" { print $3 " KiB per CPU, sub-buffers of " $5 " KiB"; exit }' "$f")) and tring-record's default watermark:"
	rates=$(awk '$1 == "sustain" && $4 == "written" { print $3 }' "$f" | awk '!s[$0]++' | tr '\n' ' ')
	printf '%-16s' reader
	for rt in $rates; do printf ' %25s' "$( [ "$rt" = 0 ] && echo "full speed" || echo "$rt/s")"; done
	printf '%18s\n' 'no loss up to'
	for rd in tring-record tring-default ftrace_splice ftrace_mmap; do
		grep -q "^sustain $rd [0-9]* written" "$f" || continue
		printf '%-16s' "$rd"
		best=0
		clean=1
		for rt in $rates; do
			lost=$(awk -v rd="$rd" -v rt="$rt" '$1 == "sustain" && $2 == rd && $3 == rt { printf "%s%s", sep, $11; sep = "," }' "$f")
			got=$(awk -v rd="$rd" -v rt="$rt" '$1 == "sustain" && $2 == rd && $3 == rt && $9 > 0 { print ($5 + $7) / $9 * 1000 }' "$f" | median)
			printf ' %25s' "$lost @$(printf '%.2f' "${got:-0}")M"
			# Rates go up (full speed last): stop at the first loss.
			if echo ",$lost," | grep -qE ',[1-9]'; then
				clean=0
			elif [ "$clean" = 1 ]; then
				best=$(awk -v g="${got:-0}" -v b="$best" 'BEGIN { print (g > b) ? g : b }')
			fi
			json_items+=("$(jrow kernel="$release" side=sustained reader="$rd" rate:n="$rt" \
				m_events_per_s:n="$got" events_lost:nl="$lost")")
		done
		printf '%16.2fM/s\n' "$best"
	done

	if grep -q '^generic ' "$f"; then
		gm() { awk -v i="$1" '$1 == "generic" && $2 == i { print $4 }' "$f" | median; }
		echo
		echo "Generic events (a kernel event through perf): raw_syscalls/sys_enter hit by dd's"
		echo "1-byte read()/write(), $(awk '$1 == "generic" { print $6; exit }' "$f") calls per run; ns per event over no tracing,"
		echo "median of rounds ('none': ns per untraced call):"
		printf '%-34s %10s\n' event ns/event
		printf '%-34s %10s\n' "tring generic (perf)" "$(gm generic)" \
			"tring hand-written syscall_entry" "$(gm handwritten)" \
			"ftrace raw_syscalls/sys_enter" "$(gm ftrace)" "none" "$(gm none)"
		# generic_all enable_ms X disable_ms X events N cpus N mem_kib X
		read -r _ _ ge _ gd _ gv _ gc _ gk < <(grep '^generic_all ' "$f" | head -n 1) || true
		[ -n "${gk:-}" ] && echo "Every generic event at once: $gv events on $gc CPUs enabled in $ge ms, disabled in $gd ms;" &&
			echo "  slab + per-CPU memory up $gk KiB: $(awk -v m="$gk" -v e="$gv" -v c="$gc" 'BEGIN { if (e * c) printf "%d", m * 1024 / (e * c) }') bytes per event per CPU"
		gg=$(gm generic) gh=$(gm handwritten) gf=$(gm ftrace) gn=$(gm none)
		json_items+=("$(jrow kernel="$release" side=generic ns_per_event.generic:n="$gg" \
			ns_per_event.handwritten:n="$gh" ns_per_event.ftrace:n="$gf" \
			untraced_call_ns:n="$gn" enable_all_ms:n="${ge:-}" disable_all_ms:n="${gd:-}" \
			events:n="${gv:-}" cpus:n="${gc:-}" mem_kib:n="${gk:-}")")
	fi

	if grep -q '^select ' "$f"; then
		sm() { awk -v i="$1" '$1 == "select" && $2 == i { print $4 }' "$f" | median; }
		echo
		echo "Choosing what is recorded: the same tracepoint and calls; ns per event over no"
		echo "tracing, median of rounds; 'left out' by tracking/pid (set_event_pid) holding"
		echo "init only, or by a filter rejecting every call (id == 100000):"
		printf '%-40s %10s %16s\n' event ns/event "x its recorded"
		for pair in "tring_recorded tring hand-written syscall_entry, recorded" \
			    "tring_tracking   left out by tracking" \
			    "tring_filter   left out by a filter (fd == 99)" \
			    "tring_gen_recorded tring generic raw_syscalls:sys_enter" \
			    "tring_gen_tracking   left out by tracking" \
			    "tring_gen_filter   left out by a filter" \
			    "ftrace_recorded ftrace raw_syscalls/sys_enter" \
			    "ftrace_pid   left out by set_event_pid" \
			    "ftrace_filter   left out by a filter"; do
			impl=${pair%% *}
			case $impl in
			tring_gen_*) ref=tring_gen_recorded ;;
			tring_*) ref=tring_recorded ;;
			*) ref=ftrace_recorded ;;
			esac
			printf '%-40s %10s %16s\n' "${pair#* }" "$(sm "$impl")" "$(ratio "$(sm "$impl")" "$(sm "$ref")")"
		done
		echo "tring's left-out event against ftrace's: tracking $(ratio "$(sm tring_tracking)" "$(sm ftrace_pid)")x" \
			"(generic $(ratio "$(sm tring_gen_tracking)" "$(sm ftrace_pid)")x), filter $(ratio "$(sm tring_filter)" "$(sm ftrace_filter)")x" \
			"(generic $(ratio "$(sm tring_gen_filter)" "$(sm ftrace_filter)")x)"
		sel=()
		for impl in tring_recorded tring_tracking tring_filter tring_gen_recorded tring_gen_tracking tring_gen_filter ftrace_recorded ftrace_pid ftrace_filter; do
			sel+=("ns_per_event.$impl:n=$(sm "$impl")")
		done
		json_items+=("$(jrow kernel="$release" side=select "${sel[@]}")")
	fi
done

echo
echo "== Native (user-space twin on this machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')) =="
echo "Scaling: 1, 2 and every host CPU's writers at once, each a thread writing its own ring, as CPUs"
echo "do (tools/testing/tring/twin_bench --threads N,... takes up to 64); target: events/s per writer"
echo "at N writers at least 0.9x one writer's."
if make -C "$top/tools/testing/tring" -s O="$B/twin" bench >"$OUT/native-$stamp.txt" 2>&1 &&
   make -C "$top/tools/testing/tring" -s O="$B/twin" callgrind >>"$OUT/native-$stamp.txt" 2>&1; then
	cat "$OUT/native-$stamp.txt"
else
	echo "(the twin's benchmark failed: $OUT/native-$stamp.txt)"
fi

# The fast path in the real kernel, counted by QEMU (Debian 6.1 guest,
# tools/testing/insn/fastpath.sh), beside the twin's callgrind figure.
if [ "${INSN:-1}" != 0 ]; then
	echo
	echo "== The write path in the kernel: guest instructions per event (QEMU's count, Debian 6.1) =="
	echo "tring_bench.ko's loops on CPU 0 at 20,000 and 60,000 events, the slope of CPU 0's kernel"
	echo "instructions; floor: the loop's clock read and payload copy alone (the twin's floor above is"
	echo "another loop: compare each with its own)."
	if "$top/tools/testing/insn/fastpath.sh" "$OUT/fastpath" >"$OUT/fastpath-$stamp.txt" 2>&1; then
		awk '{ v[$1, $2] = $5; if (!seen[$1]++) o[++n] = $1 }
			END {
				printf "%-16s %9s %9s %9s   %s\n", "writer", "8 bytes", "64 B", "256 B", "beyond the floor"
				for (i = 1; i <= n; i++) {
					w = o[i]
					printf "%-16s %9s %9s %9s", w, v[w, 8], v[w, 64], v[w, 256]
					if (w != "floor")
						printf "   %.1f, %.1f, %.1f", v[w, 8] - v["floor", 8],
							v[w, 64] - v["floor", 64], v[w, 256] - v["floor", 256]
					printf "\n"
				}
			}' "$OUT/fastpath-$stamp.txt"
		while read -r impl len _ _ ipe _; do
			json_items+=("$(jrow side=fastpath_instructions kernel=6.1 writer="$impl" \
				payload:n="$len" instructions_per_event:n="$ipe")")
		done <"$OUT/fastpath-$stamp.txt"
	else
		echo "(the count failed: $OUT/fastpath-$stamp.txt)"
	fi
fi

race_json=$OUT/race-$stamp.json
: >"$race_json"
if [ "${RACE:-1}" != 0 ]; then
	"$top/scripts/bench-race.sh" "$OUT" "$race_json"
fi
probes_json=$OUT/probes-$stamp.json
: >"$probes_json"
if [ "${PROBES:-1}" != 0 ]; then
	"$top/scripts/bench-probes.sh" "$OUT" "$probes_json"
fi

printf '%s\n' "${json_items[@]}" >"$OUT/results-$stamp.jsonl"
/usr/bin/python3 "$top/scripts/bench-json.py" "$stamp" "$OUT/results-$stamp.jsonl" \
	"$race_json" "$probes_json" "$OUT/native-$stamp.txt" >"$json"
echo
echo "JSON: $json"
