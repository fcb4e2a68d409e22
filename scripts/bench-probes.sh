#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, part 3: dynamic probes. In one guest run per Debian kernel
# (the host's userland, tools/testing/vm/userland/run-guest.sh), the same
# function hit the same number of times, untraced and under tring's
# kprobe, kretprobe and function entry event, ftrace's kprobe_events and
# function tracer (trace-cmd), perf probe and LTTng's --probe and
# --function (tools/testing/vm/userland/bench-probes.sh): the cost per
# hit over the untraced run, in guest ns.
#
# usage: bench-probes.sh OUTDIR [JSONFILE]
# Prints the tables; appends one JSON object per kernel to JSONFILE.
# Environment: TRING_BENCH_KERNELS (default "6.1 6.12"); ROUNDS (7),
# WARMUP (1), CALLS (50000), BUFKB (4096), SUBBUFKB (64), CHECK (1:
# round 1's traces read back), TRACERS (see the guest script);
# PROBES_SHORT=1: ROUNDS=3 unless given; PROBES_FULL=1: the contexts'
# rows on every kernel (by default on 6.1 only); PROBES_TIMEOUT (s,
# default 3600); PROBES_REPRINT=1 prints the tables of the results
# already in OUTDIR without booting a guest; INSN=0: no instruction
# counts (by default QEMU counts each run's guest instructions, and the
# tables give them beside the times: tools/testing/insn).

set -uo pipefail

case ${1:-} in
-h | --help | "")
	sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/testing/vm/lib.sh"
out=$1
json=${2:-}
kernels=${TRING_BENCH_KERNELS:-6.1 6.12}
say() { echo "bench: $*" >&2; }
if [ "${PROBES_SHORT:-0}" = 1 ]; then
	ROUNDS=${ROUNDS:-3}
fi

# median, ci95: the shared statistics
. "$top/scripts/stats.sh"

# added FILE TRACER: per round (the warm-up, round 0, left out), the
# tracer's ns per hit over the same round's untraced run; "x" for a
# round where it lost events or missed hits (a dropped hit costs less
# than a recorded one)
added() {
	awk -v t="$2" '$1 == "probe" && $2 != "0" && $2 != "-" && $4 == "ns" {
			for (i = 4; i < NF; i++) v[$3, $2, $i] = $(i + 1)
			r[$2] = 1 }
		END { for (k in r) {
			if (v["none", k, "ns"] == "" || v[t, k, "ns"] == "") continue
			if (v[t, k, "lost"] + 0 > 0 || v[t, k, "missed"] + 0 > 0) { print k, "x"; continue }
			printf "%s %.1f\n", k, (v[t, k, "ns"] - v["none", k, "ns"]) / v[t, k, "calls"] } }' "$1" | sort -k1,1
}

# paired FILE A B [FLOOR]: per round, A's added cost over B's (each less
# FLOOR's added cost of the same round; none's, 0, by default); rounds
# where either is "x", or B's (less the floor) is not above 0, left out
paired() {
	join <(added "$1" "$2") <(added "$1" "$3") |
		join - <(added "$1" "${4:-none}") |
		awk '$2 != "x" && $3 != "x" && $4 != "x" && $3 - $4 > 0 { printf "%.3f\n", ($2 - $4) / ($3 - $4) }'
}

# ctx_paired FILE A AREF B BREF: per round, (A - AREF) / (B - BREF):
# what a context adds to tring's event over what it adds to the peer's;
# rounds with a loss in any, or where the peer's addition is not above
# 0, left out
ctx_paired() {
	join <(added "$1" "$2") <(added "$1" "$3") | join - <(added "$1" "$4") |
		join - <(added "$1" "$5") |
		awk '$2 != "x" && $3 != "x" && $4 != "x" && $5 != "x" && $4 - $5 > 0 {
			printf "%.3f\n", ($2 - $3) / ($4 - $5) }'
}

# ref TRACER: the tring row a tracer compares with
ref() {
	case $1 in
	tring-ctx-*) echo tring-kprobe ;;
	lttng-ctx-*) echo "tring-ctx-${1#lttng-ctx-}" ;;
	perf-kprobe-g) echo tring-ctx-stacks ;;
	tring-bare-noreader) echo tring-kprobe-bare ;;
	*-kretprobe | tring-retfloor) echo tring-kretprobe ;;
	*-function | tring-funcfloor) echo tring-function ;;
	# LTTng's kprobe records no argument: the bare one, where it ran.
	lttng-probe) if grep -q "^probe [0-9]* tring-kprobe-bare ns" "$f"; then
		echo tring-kprobe-bare; else echo tring-kprobe; fi ;;
	*) echo tring-kprobe ;;
	esac
}

# variants TRACER: tring rows measuring TRACER's event another way
variants() {
	case $1 in
	tring-kprobe-bare) echo tring-bare-noreader ;;	# no reader during the calls
	esac
}

# refs FILE TRACER: the tring rows a peer's targets compare: ref's, and
# its variants that ran
refs() {
	local rf v
	rf=$(ref "$2")
	echo "$rf"
	for v in $(variants "$rf"); do
		grep -q "^probe [0-9]* $v ns" "$1" && echo "$v"
	done
}

# floors FILE TRACER: the floors of its kind, each a row of the targets:
# the trap (a kretprobe's for the return probes, a kprobe's for the
# others); for function entry the trampoline (tring-funcfloor, where it
# ran) and none, the whole hit (the only row before tring-funcfloor)
floors() {
	case $2 in
	*-kretprobe) echo tring-retfloor ;;
	*-function)
		if grep -q "^probe [0-9]* tring-funcfloor ns" "$1"; then
			echo tring-funcfloor
		fi
		echo none ;;
	*) echo tring-floor ;;
	esac
}

# met_of RATIO: whether a ratio meets the 0.5 target ("-": none)
met_of() {
	awk -v r="${1:-}" 'BEGIN { if (r == "") print "-"; else if (r <= 0.5) print "met"; else print "NOT met" }'
}

# vals FILE TRACER KEY: KEY's values, one per round (warm-up left out)
vals() {
	awk -v t="$2" -v k="$3" '$1 == "probe" && $2 != "0" && $2 != "-" && $3 == t {
		for (i = 4; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

for series in $kernels; do
	k=$(guest_kernel "$series") || { say "no Debian $series kernel"; continue; }
	read -r image kdir <<<"$k"
	release=${image#/boot/vmlinuz-}
	dir=$out/probes-$series
	f=$dir/results/probes.txt
	if [ "${PROBES_REPRINT:-0}" = 1 ]; then
		[ -f "$f" ] || continue
	else
		guest_modules "$kdir" >/dev/null || { say "the modules do not build for $release"; continue; }
		make -C "$top" -s tools >/dev/null
		rm -rf "$dir"
		mkdir -p "$dir/results"
		# QEMU's instruction count (tools/testing/insn), unless INSN=0
		qargs=
		insn_ok "$release" || [ "${INSN:-1}" = 0 ] ||
			say "$release runs on one host thread, where QEMU's instruction counter crashes (tools/testing/vm/lib.sh, insn_ok): times only"
		if [ "${INSN:-1}" != 0 ] && insn_ok "$release" &&
			make -C "$top/tools/testing/insn" -s O="$B/insn" >"$dir.insn-build.log" 2>&1; then
			qargs="-plugin $B/insn/libtring_insn.so,out=$dir/results/insn.txt"
		fi
		{
			echo "MODDIR=$(guest_moddir "$kdir")"
			echo "TOOLS=$B/tools"
			[ -z "$qargs" ] || echo "INSNTOOLS=$B/insn"
			for v in ROUNDS WARMUP CALLS BUFKB SUBBUFKB CHECK TRACERS; do
				[ -z "${!v:-}" ] || echo "$v=\"${!v}\""
			done
			# Kernels other than 6.1 (no LTTng, whose contexts the
			# context rows are set against) run the targets' rows
			# only, unless TRACERS is given or PROBES_FULL=1.
			[ "$series" = 6.1 ] || [ -n "${TRACERS:-}" ] || [ "${PROBES_FULL:-0}" = 1 ] ||
				echo "CONTEXTS=0"
		} >"$dir/results/env"
		say "Debian $release: the probe benchmark (minutes)"
		echo "host $(nproc) CPUs; load average at the start $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/host.info"
		TRING_VM_QEMU_ARGS=$qargs "$top/tools/testing/vm/userland/run-guest.sh" "$release" "$dir" \
			"${PROBES_TIMEOUT:-3600}" "$top/tools/testing/vm/userland/bench-probes.sh" || true
		echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$dir/host.info"
	fi
	if [ ! -f "$dir/results/done" ]; then
		say "the $series probe guest did not finish: $dir/console.log, $dir/results/guest.log"
		[ -s "$f" ] || continue
	fi
	"$top/tools/testing/vm/splat.sh" "$dir/console.log" >/dev/null 2>&1 ||
		say "the $series guest kernel reported a problem: $dir/console.log"
	inf() { sed -n "s/^info $1 //p" "$f"; }
	rounds=$(awk '$1 == "probe" && $2 != "-" && $2 != "0" { print $2 }' "$f" | sort -u | grep -c . || true)
	# fi: the same lines with each run's instructions (every vCPU, between
	# its marks) in place of its ns: the same figures, in instructions.
	fi=
	if [ -s "$dir/results/insn.txt" ]; then
		fi=$dir/results/probes-insn.txt
		/usr/bin/python3 "$top/scripts/race_cost.py" --as-insn "$f" "$dir/results/insn.txt" >"$fi"
	fi
	# insn_of CMD ARGS...: CMD's figure over $fi, or "-" without counts
	insn_of() { if [ -n "$fi" ]; then "$1" "$fi" "${@:2}"; fi; }
	# target_row TRING PEER FLOOR: one row of the targets (and its JSON)
	target_row() {
		local rt lo hi it met
		rt=$(paired "$f" "$1" "$2" "$3" | median | awk 'NF { printf "%.2f", $1 }')
		read -r lo hi < <(paired "$f" "$1" "$2" "$3" | ci95 2)
		it=$(insn_of paired "$1" "$2" "$3" | median | awk 'NF { printf "%.2f", $1 }')
		met=$(met_of "$rt")
		printf '%-17s %-17s %-15s %8s %-12s %8s %s\n' "$1" "$2" "$3" "${rt:--}" "[$lo, $hi]" "${it:--}" "$met, $(met_of "$it")"
		[ -z "$json" ] || json_rows+=("$(jrow target="$1 vs $2" floor="$3" ratio:n="$rt" \
			ratio_interval:nl="$lo $hi" \
			met:b="$([ "$met" = met ] && echo true || echo false)" instructions_ratio:n="$it")")
	}

	echo
	echo "== Dynamic probes: Linux $(inf kernel), $(inf cpus) vCPUs, clocksource $(inf clocksource), QEMU TCG (emulated) =="
	sed 's/^/guest: /' "$dir/host.info" 2>/dev/null || true
	echo "tring $(inf tring); trace-cmd $(inf trace-cmd); perf $(inf perf); LTTng $(inf lttng | grep . || echo 'not run')"
	grep '^probe - ' "$f" | sed 's/^probe - \([^ ]*\) unsupported /\1: not run: /' || true
	for p in pentry pret; do
		[ -z "$(inf "perf_probe_$p")" ] || echo "perf's probe:$p made by $(inf "perf_probe_$p" | sed ':a; N; s/\n/; or by /; ta')"
	done
	[ -z "$(inf lttng_enable)" ] || echo "lttng enable-event said: $(inf lttng_enable)"
	echo "tring_test_probe_target() called $(inf calls) times from one write (\"N SEED fast\": no snprintf),"
	echo "on CPU 0; every tracer records to tmpfs with its reader running, $(inf bufkb) KiB per CPU (tring -b,"
	echo "trace-cmd -b, perf -m pages, LTTng --subbuf-size x --num-subbuf; sub-buffers of $(inf subbufkb) KiB"
	echo "where the tracer has them), discard mode; nice $(inf nice)."
	echo "$rounds interleaved rounds after a warm-up round (left out), each round's tracer order rotated."
	echo "ns/hit: (the calls' time traced - the same round's untraced time) / calls, guest ns, median of"
	echo "the rounds without loss (n: rounds used). /ref: the median over rounds of the ratio to the"
	echo "matching tring row in the same round. lost: per round, lost as the tracer reports it (perf:"
	echo "LOST and THROTTLE records), +missed: kprobes' misses (tracefs' kprobe_profile; tring counts"
	echo "its misses as lost). events: recorded per round, median, as the tracer reports it (trace-cmd:"
	echo "its saved stats, taken before its readers' last pages; LTTng: none, or the trace's with CHECK=1)."
	echo "insn/hit, /ref: the same in guest instructions, every vCPU, counted by QEMU between two marks"
	echo "around the write (tools/testing/insn; exact up to how the vCPUs interleave)."
	printf '%-17s %9s %2s %-16s %7s %9s %7s %10s %s\n' tracer ns/hit n ref /ref insn/hit /ref events 'lost(+missed) per round'
	json_rows=()
	for t in $(awk '$1 == "probe" && $2 != "-" { print $3 }' "$f" | awk '!s[$0]++'); do
		[ "$t" != none ] || {
			un=$(vals "$f" none ns | median | awk -v c="$(inf calls)" 'NF { printf "%.1f", $1 / c }')
			ui=$(insn_of vals none ns | median | awk -v c="$(inf calls)" 'NF { printf "%.1f", $1 / c }')
			printf '%-17s %9s %2s %-16s %7s %9s %7s %10s %s\n' none "${un}/call" - - - "${ui:--}" - - -
			continue
		}
		ne=$(added "$f" "$t" | awk '$2 != "x" { print $2 }' | median)
		nu=$(added "$f" "$t" | awk '$2 != "x"' | grep -c . || true)
		rf=$(ref "$t")
		rr=-
		[ "$rf" = "$t" ] || rr=$(paired "$f" "$t" "$rf" | median | awk 'NF { printf "%.2f", $1 }')
		ie=$(insn_of added "$t" | awk '$2 != "x" { print $2 }' | median)
		ri=-
		[ "$rf" = "$t" ] || ri=$(insn_of paired "$t" "$rf" | median | awk 'NF { printf "%.2f", $1 }')
		ev=$(vals "$f" "$t" events | grep -v '^-$' | median)
		lo=$(paste -d+ <(vals "$f" "$t" lost) <(vals "$f" "$t" missed) | sed 's/+-$//' | paste -sd, -)
		fails=$(grep -c "^probe [1-9][0-9]* $t FAILED" "$f" || true)
		printf '%-17s %9s %2s %-16s %7s %9s %7s %10s %s\n' "$t" "${ne:--}" "$nu" "$rf" "${rr:--}" "${ie:--}" "${ri:--}" "${ev:--}" "${lo:--}"
		[ "$fails" = 0 ] || echo "  ^ $t failed in $fails rounds (left out)"
		[ -z "$json" ] || json_rows+=("$(jrow tracer="$t" ns_per_hit:n="$ne" \
			instructions_per_hit:n="$ie" instructions_over_ref:n="$ri" rounds_used:n="$nu" \
			ref="$rf" over_ref:n="$rr" events:n="$ev" lost="$lo" failed_rounds:n="$fails")")
	done
	echo
	echo "Targets: tring's cost per hit beyond the floor (the trap or trampoline every tracer pays:"
	echo "tring's probe enabled, tracking leaving every hit out) at most 0.5x each peer's beyond the same"
	echo "floor; function entry also per whole hit (floor none). Median over rounds of the ratio within"
	echo "each round, in time (its interval: 95% bootstrap of the median from 7 rounds, else the range)"
	echo "and in instructions (insn)."
	printf '%-17s %-17s %-15s %8s %-12s %8s %s\n' tring peer floor ratio interval insn 'target <= 0.5 (time, insn)'
	for t in $(awk '$1 == "probe" && $2 != "-" { print $3 }' "$f" | awk '!s[$0]++'); do
		case $t in
		none | tring-*) continue ;;
		esac
		for rf in $(refs "$f" "$t"); do
			for fl in $(floors "$f" "$t"); do
				target_row "$rf" "$t" "$fl"
			done
		done
	done
	echo
	if ! grep -q '^probe [0-9]* tring-ctx-' "$f"; then
		echo "Contexts: not run on this kernel (on 6.1 only by default; PROBES_FULL=1 runs them everywhere)."
	else
		echo "Contexts: what each adds to tring's kprobe event (tring-ctx-X - tring-kprobe) over what the"
		echo "same context adds to the peer's (lttng-ctx-X - lttng-probe; perf -g: perf-kprobe-g - perf-kprobe),"
		echo "median over rounds of the ratio within each round; insn: the same ratio in instructions."
		printf '%-17s %9s %-17s %9s %8s %8s %s\n' tring added peer added ratio insn 'target <= 0.5 (time, insn)'
		for pair in ids:lttng-ctx-ids:lttng-probe kstack:lttng-ctx-kstack:lttng-probe \
			    ustack:lttng-ctx-ustack:lttng-probe perf:lttng-ctx-perf:lttng-probe \
			    stacks:perf-kprobe-g:perf-kprobe; do
			IFS=: read -r cx peer pref <<<"$pair"
			tr_=tring-ctx-$cx
			grep -q "^probe [0-9]* $tr_ ns" "$f" || continue
			ta=$(join <(added "$f" "$tr_") <(added "$f" tring-kprobe) |
				awk '$2 != "x" && $3 != "x" { print $2 - $3 }' | median)
			pa=$(join <(added "$f" "$peer") <(added "$f" "$pref") 2>/dev/null |
				awk '$2 != "x" && $3 != "x" { print $2 - $3 }' | median)
			rt=$(ctx_paired "$f" "$tr_" tring-kprobe "$peer" "$pref" | median | awk 'NF { printf "%.2f", $1 }')
			it=$(insn_of ctx_paired "$tr_" tring-kprobe "$peer" "$pref" | median | awk 'NF { printf "%.2f", $1 }')
			met=$(met_of "$rt")
			printf '%-17s %9s %-17s %9s %8s %8s %s\n' "$tr_" "${ta:--}" "$peer" "${pa:--}" "${rt:--}" "${it:--}" "$met, $(met_of "$it")"
			[ -z "$json" ] || json_rows+=("$(jrow target="$tr_ added vs $peer added" ratio:n="$rt" \
				met:b="$([ "$met" = met ] && echo true || echo false)" instructions_ratio:n="$it")")
		done
	fi
	case " $(awk '$1 == "probe" && $2 != "-" { print $3 }' "$f" | sort -u | tr '\n' ' ') " in
	*" lttng-function "*)
		echo "(lttng-function: LTTng's --function is a kretprobe recording an entry and a return event per"
		echo "call; tring-function records the entry alone through an ftrace_ops.)" ;;
	esac
	if [ -n "$json" ]; then
		printf '%s\n' "${json_rows[@]}" >"$dir/rows.jsonl"
		jrow kernel="$(inf kernel)" cpus:n="$(inf cpus)" emulated:b=true \
			calls:n="$(inf calls)" bufkb:n="$(inf bufkb)" rounds:n="$rounds" \
			nice:n=0 probes:rows="$dir/rows.jsonl" >>"$json"
	fi
done
