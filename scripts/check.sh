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
#                 kselftests; any kernel splat fails the kernel's run
#  6. harness     a planted WARN must fail a guest run
#
# Ends with "N passed, N failed" summed over every suite; exits non-zero
# on any failure. Logs: build/check/.
#
# TRING_CHECK_ONLY="static twin debian-6.1 ..." runs only the named parts
# (static, twin, tools, harness and the kernels' names): for development;
# "make check" itself runs everything.

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
OUT=$B/check
VM=$top/tools/testing/vm
RESULTS=$OUT/results
# A guest run takes 30 s to 2 min; a hung one fails after this long.
GUEST_TIMEOUT=${TRING_GUEST_TIMEOUT:-420}

rm -rf "$OUT"
mkdir -p "$OUT/logs"
: >"$RESULTS"
start=$(date +%s)

say() { echo "check: $*"; }

# want PART: is PART selected by TRING_CHECK_ONLY (everything when unset)?
want() {
	[ -z "${TRING_CHECK_ONLY:-}" ] && return 0
	case " $TRING_CHECK_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# record SUITE PASSED FAILED [NOTE]
record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$RESULTS"
	if [ "$3" != 0 ]; then
		say "$1: $2 passed, $3 FAILED ${4:-}"
	else
		say "$1: $2 passed ${4:-}"
	fi
}

# one SUITE NAME CMD...: a command that is one test; log in logs/NAME.log
one() {
	local suite=$1 name=$2
	shift 2
	if "$@" >"$OUT/logs/$name.log" 2>&1; then
		record "$suite" 1 0 "$name"
		return 0
	fi
	record "$suite" 0 1 "$name (build/check/logs/$name.log)"
	tail -n 20 "$OUT/logs/$name.log" | sed 's/^/    /'
	return 1
}

# counts LOG: the last "N passed, N failed" line of a log, as "N N"
counts() {
	tr -d '\r' <"$1" | grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' |
		tail -n 1 | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/'
}

# suite SUITE LOGNAME CMD...: a command that prints "N passed, N failed"
suite() {
	local name=$1 log=$2 p f
	shift 2
	"$@" >"$OUT/logs/$log.log" 2>&1
	local rc=$?
	read -r p f <<<"$(counts "$OUT/logs/$log.log")"
	if [ -z "${p:-}" ]; then
		record "$name" 0 1 "no result line (build/check/logs/$log.log)"
		tail -n 20 "$OUT/logs/$log.log" | sed 's/^/    /'
		return
	fi
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	record "$name" "$p" "$f" "(build/check/logs/$log.log)"
	[ "$f" = 0 ] || grep -E 'not ok|FAIL' "$OUT/logs/$log.log" | head -n 20 | sed 's/^/    /'
}

# --- 1. setup --------------------------------------------------------------
say "setting up (Debian packages, debug kernels)"
if ! "$top/scripts/setup.sh" >"$OUT/logs/setup.log" 2>&1; then
	cat "$OUT/logs/setup.log"
	echo "0 passed, 1 failed"
	exit 1
fi
KDEBUG=$("$VM/build-debug-kernel.sh" 2>"$OUT/logs/debug-kernel.log")
KKASAN=$("$VM/build-debug-kernel.sh" "$VM/kasan.config" \
	2>"$OUT/logs/kasan-kernel.log")
if [ -z "$KDEBUG" ] || [ -z "$KKASAN" ]; then
	cat "$OUT/logs/debug-kernel.log" "$OUT/logs/kasan-kernel.log"
	echo "0 passed, 1 failed"
	exit 1
fi

newest() { ls -d $1 2>/dev/null | sort -V | tail -n 1; }
K61=$(newest '/boot/vmlinuz-6.1.*')
K612=$(newest '/boot/vmlinuz-6.12.*')
# name image kdir
KERNELS=(
	"debian-6.1 $K61 /lib/modules/${K61#/boot/vmlinuz-}/build"
	"debian-6.12 $K612 /lib/modules/${K612#/boot/vmlinuz-}/build"
	"debug-6.1 $KDEBUG/arch/x86/boot/bzImage $KDEBUG"
	"kasan-6.1 $KKASAN/arch/x86/boot/bzImage $KKASAN"
)

# --- 2. static checks ------------------------------------------------------
static_checks() {
	say "static checks"
	CHECKPATCH=$B/linux-source-6.1/scripts/checkpatch.pl
	KDOC=/usr/lib/linux-kbuild-6.1/scripts/kernel-doc
	KFILES=$(cd "$top" && echo kernel/trace/*.[ch] include/linux/tring.h \
		include/uapi/linux/tring.h $(ls samples/tring/*.c 2>/dev/null))
	for f in $KFILES; do
		one static "checkpatch-$(echo "$f" | tr / _)" \
			perl "$CHECKPATCH" --no-tree --strict --quiet -f "$top/$f"
	done
	one static kernel-doc sh -c "cd '$top' && $KDOC -none -Werror $KFILES"
	sparse_clean() {
		make -C "$top" -s sparse KDIR="$1" 2>&1 | tee /dev/stderr |
			grep -E 'warning:|error:' && return 1
		return 0
	}
	one static sparse-6.1 sparse_clean "${KERNELS[0]##* }"
	one static sparse-6.12 sparse_clean "${KERNELS[1]##* }"
	one static proto-mismatch "$top/scripts/proto-mismatch.sh" \
		"${KERNELS[0]##* }"
}
want static && static_checks

# --- 3. user-space twin, 4. tools --------------------------------------------
if want twin; then
	say "user-space twin of the core (unit, stress, ASan+UBSan, TSan)"
	suite twin twin make -C "$top" -s twin-test
fi
if want tools; then
	say "tools"
	suite tools tools make -C "$top/tools/tring" -s O="$B/tools" test
fi

# --- 5. kernels ------------------------------------------------------------
one build selftests make -C "$top" -s selftests
one build tools-static make -C "$top" -s tools
SELFTESTS="$(ls "$B"/selftests/tring_* 2>/dev/null) $top/tools/testing/selftests/tring/tring_trace_test.sh"
one build bench-tools make -C "$top/tools/testing/bench" -s O="$B/bench-tools"
TOOLS="$(ls "$B"/tools/tring-record "$B"/bench-tools/ftrace_read 2>/dev/null) $VM/bench-guest.sh $VM/bench-smoke.sh"

# Count a guest's results into the kernel's suite.
guest_results() {
	local name=$1 dir=$2 p=0 f=0 step rc tp tf
	for step in $(cat "$dir/results/steps" 2>/dev/null); do
		rc=$(cat "$dir/results/$step.rc" 2>/dev/null || echo missing)
		tp=$(grep -cE '^ok ' "$dir/results/$step.out" 2>/dev/null)
		tf=$(grep -cE '^not ok ' "$dir/results/$step.out" 2>/dev/null)
		if [ "$tp" = 0 ] && [ "$tf" = 0 ]; then
			# Not a TAP program: the step is one test.
			[ "$rc" = 0 ] && tp=1 || tf=1
		elif [ "$rc" != 0 ] && [ "$tf" = 0 ]; then
			tf=1
		fi
		[ "$tf" = 0 ] || grep -E '^not ok |^# .*(Expected|FAIL|line)' \
			"$dir/results/$step.out" | head -n 20 | sed "s/^/    $step: /"
		p=$((p + tp))
		f=$((f + tf))
	done
	echo "$p $f"
}

run_kernel() {
	local name=$1 image=$2 kdir=$3 mod dir p f splats
	local mods=$B/mod/$(basename "$(realpath "$kdir")")
	if ! one "$name" "module-build-$name" make -C "$top" -s KDIR="$kdir"; then
		return
	fi
	dir=$OUT/guest-$name
	"$VM/mkinitramfs.sh" "$OUT/$name.cpio.gz" "$VM/plan-check" "$mods" \
		$SELFTESTS $TOOLS
	say "$name: booting guest ($(basename "$image"))"
	if ! "$VM/run-guest.sh" "$image" "$OUT/$name.cpio.gz" "$dir" \
		"$GUEST_TIMEOUT"; then
		record "$name" 0 1 "guest did not finish: $(tail -n 1 "$dir/qemu.log") (build/check/guest-$name/console.log)"
		tail -n 30 "$dir/console.log" | sed 's/^/    /'
		return
	fi
	read -r p f <<<"$(guest_results "$name" "$dir")"
	record "$name" "$p" "$f" "kselftests, clocksource $(cat "$dir/results/clocksource" 2>/dev/null)"
	suite "$name" "traces-$name" "$VM/check-traces.sh" "$dir/results"
	if splats=$(SPLAT_SYSTEM_MAP=$kdir/System.map \
		"$VM/splat.sh" "$dir/console.log" "$dir/results/dmesg.txt"); then
		record "$name" 1 0 "no kernel splat"
	else
		record "$name" 0 1 "kernel splat (build/check/guest-$name/console.log)"
		echo "$splats" | head -n 20 | sed 's/^/    /'
	fi
}

for k in "${KERNELS[@]}"; do
	want "${k%% *}" || continue
	# shellcheck disable=SC2086
	run_kernel $k
done

# --- 6. the harness catches a planted splat ----------------------------------
say "harness: a planted WARN must fail a guest run"
harness_catches_warn() {
	local dir=$OUT/guest-planted name image kdir

	read -r name image kdir <<<"${KERNELS[0]}"
	"$VM/mkinitramfs.sh" "$OUT/planted.cpio.gz" "$VM/plan-planted-warn" \
		"$B/mod/$(basename "$(realpath "$kdir")")" &&
	"$VM/run-guest.sh" "$image" "$OUT/planted.cpio.gz" "$dir" 300 ||
		return 1
	set -- $(guest_results planted "$dir")
	echo "guest steps: $1 passed, $2 failed"
	# The guest's own steps pass...
	[ "$1" -gt 0 ] && [ "$2" = 0 ] || return 1
	# ...and the splat check still fails the run.
	! "$VM/splat.sh" "$dir/console.log" "$dir/results/dmesg.txt"
}
want harness && one harness planted-warn-detected harness_catches_warn

# The splat check lets through only the KCSAN reports on the NMI-safe
# clock's latch (see splat.sh): one there passes, the same report one
# byte past the latch fails, and so does any report without a System.map.
harness_latch_filter() {
	local map=$KDEBUG/System.map mono end log=$OUT/logs/latch-report.txt
	mono=$(awk '$3 == "tk_fast_mono" { print $1 }' "$map")
	end=$(sort "$map" | awk -v m="$mono" 'p { print $1; exit } $1 == m { p = 1 }')
	report() {
		printf '%s\n' '==================================================================' \
			'BUG: KCSAN: data-race in some_function+0x1/0x2' '' \
			"race at unknown origin, with read to 0x$1 of 8 bytes by task 1 on cpu 1:" \
			' some_function+0x1/0x2' '' \
			'==================================================================' >"$log"
	}
	report "$mono"
	SPLAT_SYSTEM_MAP=$map "$VM/splat.sh" "$log" || return 1
	! "$VM/splat.sh" "$log" || return 1
	report "$end"
	! SPLAT_SYSTEM_MAP=$map "$VM/splat.sh" "$log"
}
want harness && one harness kcsan-latch-filter harness_latch_filter

# --- summary -----------------------------------------------------------------
echo
printf '%-12s %8s %8s\n' suite passed failed
awk -F'\t' '{ p[$1] += $2; f[$1] += $3; if (!($1 in o)) { o[$1] = n++; k[n - 1] = $1 } }
	END { for (i = 0; i < n; i++) printf "%-12s %8d %8d\n", k[i], p[k[i]], f[k[i]] }' "$RESULTS"
read -r P F <<<"$(awk -F'\t' '{ p += $2; f += $3 } END { print p + 0, f + 0 }' "$RESULTS")"
echo "time: $(( $(date +%s) - start ))s"
echo "$P passed, $F failed"
[ "$F" = 0 ]
