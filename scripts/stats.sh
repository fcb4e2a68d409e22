# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks' shared statistics (sourced by scripts/bench.sh,
# bench-race.sh and bench-probes.sh; needs $top, the tree's top).

# median: the median of the numbers on stdin, NumPy's (of an even count,
# the mean of the middle two), all its digits (awk would print a
# computed 1385484.5 as 1.38548e+06, which sort -n then takes for
# 1.38548); "" for none.
median() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (!NR) print ""
		else if (NR % 2) print a[(NR + 1) / 2]
		else printf "%.15g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ci95 [DECIMALS]: "LOW HIGH", the 95% interval of the median of the
# values on stdin (bootstrap, scripts/race-stats.py) with 7 values or
# more, their range (min, max) with 3 to 6; "- -" with fewer.
ci95() { /usr/bin/python3 "$top/scripts/race-stats.py" ci95 "$@"; }

# jrow FIELD...: one JSON object, written by Python's json from typed
# NAME=VALUE fields (scripts/jrow.py); the rows of the benchmarks' JSON.
# When a field is refused (its reason on stderr), a line that is not
# JSON instead, so that the step reading the rows stops there, loudly.
jrow() { /usr/bin/python3 "$top/scripts/jrow.py" "$@" || echo "jrow.py refused: $*"; }
