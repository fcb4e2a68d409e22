# SPDX-License-Identifier: GPL-2.0
#
# Sourced by check-traces.sh: report_checks TRACE_DIR [SHOT.png] checks
# "tring-report html" on a guest's workload recording: the page is
# written; its figures (the JSON it carries, the same numbers as its
# tables) equal LTTng's analyses on the same trace, lttng-cputop's per
# task and per CPU usage and lttng-syscallstats' count of each task's
# each call (both --no-intersection: the whole trace); headless Chromium
# loads it without a console error, and with SHOT keeps a screenshot.

rp_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

# rp_json PAGE: the data the page carries
rp_json() {
	python3 -c '
import json, re, sys
s = open(sys.argv[1]).read()
m = re.search(r"id=\"tring-report-data\">(.*?)</script>", s, re.S)
print(json.dumps(json.loads(m.group(1).replace("<\\/", "</"))))' "$1"
}

# rp_cputop PAGE CPUTOP: every task of the page's table and every CPU
# at lttng-cputop's percentage (two decimals)
rp_cputop() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
page, top = json.loads(sys.argv[1]), open(sys.argv[2]).read()
tids = {int(m.group(2)): m.group(1) for m in re.finditer(r"([0-9.]+) %\s+.*? \((\d+)\)", top)}
cpus = {m.group(2): m.group(1) for m in re.finditer(r"([0-9.]+) % CPU (\d+)", top)}
bad = [t["tid"] for t in page["tasks"] if tids.get(t["tid"]) != "%.2f" % t["usage"]]
bad += ["CPU " + c for c, v in page["cpu_busy"].items() if cpus.get(c) != "%.2f" % v]
print(len(page["tasks"]), len(page["cpu_busy"]), " ".join(map(str, bad)))
sys.exit(1 if bad or not page["tasks"] else 0)
PY
}

# rp_syscalls PAGE STATS: each task's count of each call as
# lttng-syscallstats'
rp_syscalls() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
page = json.loads(sys.argv[1])
mine = {(x["tid"], x["call"]): x["count"] for x in page["syscalls_by_tid"]}
theirs, tid = {}, None
for line in open(sys.argv[2]):
    m = re.search(r"TID: (\d+)\)", line)
    if m:
        tid = int(m.group(1))
        continue
    m = re.match(r" - (\S+)\s+(\d+)\s", line)
    if m and tid is not None:
        theirs[(tid, m.group(1))] = int(m.group(2))
diff = [k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k)]
print(sum(mine.values()), sum(theirs.values()), len(mine), sorted(diff)[:5])
sys.exit(1 if diff or not mine else 0)
PY
}

report_checks() {
	local w=$1 shot=${2:-} page=$1.html data out bad st

	"$rp_top/build/tools/tring-report" html "$w" -o "$page" >"$page.log" 2>&1 &&
		grep -q 'id="tring-report-data"' "$page"
	tap_ok $? "report: tring-report html writes the page ($(tail -n 1 "$page.log"))"
	data=$(rp_json "$page" 2>/dev/null)
	lttng-cputop --no-progress --no-intersection --limit 1000 "$w" >"$w.cputop-all" 2>&1
	out=$(rp_cputop "$data" "$w.cputop-all" 2>&1)
	tap_ok $? "report: each task's and CPU's usage is lttng-cputop's (tasks, CPUs, differing: $out)"
	lttng-syscallstats --no-progress --no-intersection "$w" >"$w.syscallstats-all" 2>&1
	out=$(rp_syscalls "$data" "$w.syscallstats-all" 2>&1)
	tap_ok $? "report: each task's calls are lttng-syscallstats' (ours, theirs, pairs, differing: $out)"
	# A damaged metadata: refused with a message (bt2 alone aborts).
	bad=$(mktemp -d)
	cp -r "$w" "$bad/meta"
	sed -i 's/^struct event_header {/struct event_header { damaged;/' "$bad/meta/kernel/metadata"
	"$rp_top/build/tools/tring-report" html "$bad/meta" -o "$bad/page.html" >"$page.bad" 2>&1
	st=$?
	[ "$st" = 1 ] && grep -q "not a trace babeltrace2 can read" "$page.bad" && [ ! -e "$bad/page.html" ]
	tap_ok $? "report: a damaged trace is refused with a message (exit $st)"
	rm -rf "$bad"
	# Headless Chromium: the page loads, no console error, a picture.
	timeout 120 chromium-headless-shell --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1300,3600 --enable-logging=stderr --v=0 \
		--screenshot="${shot:-$page.png}" "file://$(realpath "$page")" >"$page.chromium" 2>&1 &&
		[ -s "${shot:-$page.png}" ] && ! grep -qiE 'CONSOLE.*(error|uncaught)|Uncaught' "$page.chromium"
	tap_ok $? "report: headless Chromium shows the page without a console error (${shot:-$page.png})"
}
