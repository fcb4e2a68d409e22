#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the twin's test programs for each variant given and sum their TAP
# results. Usage: twin_run.sh <output dir> <variant>...
#
# Prints one TAP stream: every program's test lines, renumbered and
# named <variant>/<program>, and on top of them one failing line for a
# run that ends in anything but exit status 0 or 1 (a crash, a timeout,
# a sanitizer report: each sanitizer is given its own exit status below).
# Logs are kept in <output dir>/logs. The last line printed is the
# comment "# N passed, N failed"; the exit status is 1 if anything failed.

O=$1
shift
PROGS="twin_unit twin_stress twin_filter twin_persist twin_probe twin_probe_eval"
LOGS=$O/logs
mkdir -p "$LOGS"

# Sanitizers: report, then exit with a status of their own.
export ASAN_OPTIONS="exitcode=86:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:exitcode=87"
export TSAN_OPTIONS="exitcode=66:halt_on_error=0:second_deadlock_stack=1"
: "${TWIN_STRESS_SECONDS:=2}"
# ThreadSanitizer slows the writers down, which widens the windows between
# their steps where a nested writer lands: give its run longer (a 20 s run
# found a race the 2 s runs had missed).
: "${TWIN_TSAN_STRESS_SECONDS:=5}"
: "${TWIN_TIMEOUT:=300}"

passed=0
failed=0
echo "TAP version 13"
t_all=$(date +%s.%N)
for v in "$@"; do
	for p in $PROGS; do
		log=$LOGS/$v-$p.log
		t0=$(date +%s.%N)
		secs=$TWIN_STRESS_SECONDS
		[ "$v" = tsan ] && secs=$TWIN_TSAN_STRESS_SECONDS
		TWIN_STRESS_SECONDS=$secs \
			timeout -k 10 "$TWIN_TIMEOUT" "$O/$v/$p" >"$log" 2>&1
		rc=$?
		t1=$(date +%s.%N)
		np=$(grep -c '^ok ' "$log")
		nf=$(grep -c '^not ok ' "$log")
		extra=""
		case $rc in
		0|1)	;;
		66)	extra="ThreadSanitizer report" ;;
		86)	extra="AddressSanitizer report" ;;
		87)	extra="UndefinedBehaviorSanitizer report" ;;
		124|137) extra="timed out after ${TWIN_TIMEOUT}s" ;;
		*)	extra="exit status $rc" ;;
		esac
		if [ -z "$extra" ] && ! grep -q '^1\.\.[0-9]' "$log"; then
			extra="no TAP plan: the program did not finish"
		fi
		if [ -z "$extra" ] && [ "$rc" = 1 ] && [ "$nf" = 0 ]; then
			extra="exit status 1 without a failed test"
		fi
		sed -nE "s|^(not )?ok [0-9]+( -)? ?|\1ok $v/$p: |p" "$log" |
			awk -v n="$((passed + failed))" '{ sub(/ok /, "ok " ++n " ") } 1'
		[ -n "$extra" ] && nf=$((nf + 1)) &&
			echo "not ok $((passed + failed + nf + np)) $v/$p: $extra"
		passed=$((passed + np))
		failed=$((failed + nf))
		printf '# %-18s ok %d, not ok %d  (%.1f s)%s\n' \
			"$v/$p:" "$np" "$nf" "$(echo "$t1 - $t0" | bc)" \
			"${extra:+  [$extra]}"
		# Failures, with their diagnostics, and the stress summaries.
		grep -E '^(# FAIL|# undefined|# (discard|overwrite),)' \
			"$log" | head -40 | sed 's/^#*/#    /'
		if [ -n "$extra" ]; then
			grep -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|runtime error|SUMMARY' \
				"$log" | head -5 | sed 's/^/#    /'
		fi
	done
done
printf '# logs in %s; %.0f s\n' "$LOGS" "$(echo "$(date +%s.%N) - $t_all" | bc)"
echo "1..$((passed + failed))"
echo "# $passed passed, $failed failed"
[ "$failed" = 0 ]
