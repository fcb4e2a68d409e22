# SPDX-License-Identifier: GPL-2.0
#
# Streaming to LTTng's relay daemon (tring-record -o net://), in the
# real-userland guest; sourced by guest-tests.sh, whose t, note, skip,
# bt_read and bt_events it uses. Debian's lttng-relayd and babeltrace2
# run in the guest on its loopback (127.0.0.1 only), and, when the host
# runs one for several guests at once (RELAY_HOST in /results/env), on
# the host through QEMU's user-mode network (10.0.2.100, forwarded to
# the host's 127.0.0.1).
#
# Each step has a time budget (timeout), so a hang fails the step instead
# of the guest.

RL=/tmp/relay
FAKE=$here/fake-relay.py
HN=$(hostname)

relay_up() {
	# relay_up PORT DIR: lttng-relayd on 127.0.0.1 PORT (control),
	# PORT+1 (data), PORT+2 (live); waits until it listens.
	local p=$1 dir=$2 i
	lttng-relayd -b -o "$dir" -C "tcp://127.0.0.1:$p" \
		-D "tcp://127.0.0.1:$((p + 1))" -L "tcp://127.0.0.1:$((p + 2))" \
		>>/tmp/relayd.log 2>&1 || return 1
	for i in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

relay_pid() { pgrep -f "lttng-relayd .*-C tcp://127.0.0.1:$1 " | head -n 1; }

# The trace the relay wrote for session NAME (HOST/NAME-DATE/kernel).
relay_trace() { ls -d "$1/$HN/$2"*/kernel 2>/dev/null | head -n 1; }

# Event names and counts of a trace's text (babeltrace2's), sorted.
event_counts() {
	sed -n 's/^\[[^]]*\] ([^)]*) [^ ]* \([a-z_0-9:]*\): .*/\1/p' "$1" |
		grep -vE '^tring_(padding|nop)$' | sort | uniq -c
}

# --- the same recording to a directory and to the relay ---------------------------
# dd's own system calls (-- COMMAND tracks it): the same in both runs.
relay_same() {
	local loc=/tmp/rl-local net n
	local rec="tring-record -q --no-statedump -e sys_* -e exit_syscall"
	t "relay: local recording of dd (-- COMMAND)" \
		timeout 120 $rec -o $loc -- dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none || return
	t "relay: the same recording streamed to lttng-relayd (-o net://127.0.0.1)" \
		timeout 120 $rec -o net://127.0.0.1 --session same \
		-- dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none || return
	net=$(relay_trace $RL same)
	t "relay: the relay filed it as HOST/same-DATE/kernel ($net)" test -n "$net" || return
	bt_read $loc && bt_read "$net" || { t "relay: babeltrace2 reads both" false; return; }
	event_counts $loc.txt >/tmp/rl-local.counts
	event_counts "$net.txt" >/tmp/rl-net.counts
	n=$(bt_events "$net")
	note "relay: streamed $n events; by type: $(tr -s ' \n' ' ' </tmp/rl-net.counts)"
	t "relay: the relay's trace holds dd's 2000 reads and writes ($n events)" \
		test "$n" -gt 2000
	t "relay: event for event (types and counts) as the local recording" \
		diff /tmp/rl-local.counts /tmp/rl-net.counts
	cp -r "$net" $R/relay-same 2>/dev/null
}

# --- live: a viewer sees the markers while recording runs ---------------------------
# Markers every 0.2 s; the time each shows in babeltrace2's live output
# (line-buffered, followed by tail) against when it was written.
live_markers() {
	local out=$1 i follow
	: >/tmp/live.seen
	tail -n +1 -F "$out" 2>/dev/null | grep --line-buffered -o '"live-[0-9]*"' |
		while read -r m; do echo "$m $(date +%s%N)"; done >/tmp/live.seen &
	follow=$!
	for i in $(seq 1 20); do
		echo "live-$i" >$T/trace_marker
		echo "\"live-$i\" $(date +%s%N)"
		sleep 0.2
	done >/tmp/live.written
	for i in $(seq 150); do
		grep -q '"live-20"' /tmp/live.seen && break
		sleep 0.2
	done
	pkill -f "tail -n +1 -F $out" 2>/dev/null
	kill $follow 2>/dev/null
	# Milliseconds from writing to showing, per marker, sorted.
	awk 'NR == FNR { w[$1] = $2; next } ($1 in w) { print int(($2 - w[$1]) / 1e6) }' \
		/tmp/live.written /tmp/live.seen | sort -n >/tmp/live.lat
	test "$(wc -l </tmp/live.lat)" = 20
}

relay_live() {
	local out=/tmp/live.txt rec view i lats
	tring-record -q -o net://127.0.0.1 --live=200000 --session live \
		-e marker -e sched_switch -d 90 2>/tmp/live-rec.err &
	rec=$!
	for i in $(seq 100); do
		babeltrace2 -i lttng-live net://127.0.0.1 2>/dev/null | grep -q "/host/$HN/live " && break
		sleep 0.2
	done
	timeout 120 stdbuf -oL babeltrace2 -i lttng-live \
		"net://127.0.0.1/host/$HN/live" \
		--params='session-not-found-action="end"' >$out 2>/tmp/live-view.err &
	view=$!
	sleep 2
	t "relay: a live viewer shows all 20 markers while the recording runs" live_markers $out
	lats=$(tr '\n' ' ' </tmp/live.lat)
	note "relay: live delay from writing a marker to babeltrace2 printing it (ms, sorted; --live=200000): $lats"
	t "relay: the recording was still running then" kill -0 $rec
	kill -INT $rec
	t "relay: tring-record --live stops on SIGINT (exit 0)" wait $rec
	t "relay: the viewer ends when the session does" wait $view
	cat /tmp/live-rec.err /tmp/live-view.err 2>/dev/null | head -n 20 | sed 's/^/# /'
}

# --- faults ---------------------------------------------------------------------------
# expect_fail STATUS PATTERN CMD...: CMD exits STATUS within its budget
# and says PATTERN on standard error.
expect_fail() {
	local want=$1 pat=$2 st
	shift 2
	timeout 60 "$@" 2>/tmp/rl-err.txt
	st=$?
	sed 's/^/# /' /tmp/rl-err.txt | head -n 5
	[ "$st" = "$want" ] && grep -q "$pat" /tmp/rl-err.txt
}

fake_relay() {
	local mode=$1 pat=$2 pid
	python3 "$FAKE" "$mode" 5362 >/tmp/fake.out 2>&1 &
	pid=$!
	for i in $(seq 300); do grep -q ready /tmp/fake.out 2>/dev/null && break; sleep 0.1; done
	t "relay: a relay that answers '$mode': exit 2, '$pat'" \
		expect_fail 2 "$pat" tring-record -q -o net://127.0.0.1:5362 -d 1
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}

relay_faults() {
	local rec st i
	t "relay: nothing listening (net://127.0.0.1:1): exit 2, the URL and the reason" \
		expect_fail 2 "net://127.0.0.1:1: cannot connect to 127.0.0.1 port 1: Connection refused" \
		tring-record -q -o net://127.0.0.1:1 -d 1
	t "relay: a bad URL: exit 1" expect_fail 1 "bad relay URL" tring-record -o net://host:0
	t "relay: --live without net://: exit 1" expect_fail 1 "need -o net://" tring-record --live -o /tmp/x
	fake_relay garbage "protocol"
	fake_relay major "protocol 3.0"
	fake_relay minor "protocol 2.3"
	fake_relay silent "no answer from the relay"
	fake_relay close "connection closed by the relay"
	fake_relay refuse "creating the session: the relay refused (status 1)"
	# The relay killed mid-run: a message, exit 3, no hang; what reached
	# it reads.
	relay_up 5352 /tmp/relay-cut || { t "relay: a second lttng-relayd starts" false; return; }
	tring-record -q -o net://127.0.0.1:5352:5353 --session cut -w 1 \
		-e sched_switch -e 'sys_*' 2>/tmp/cut.err &
	rec=$!
	# Recording: the relay has the metadata and a stream per CPU.
	for i in $(seq 300); do
		[ -s "$(relay_trace /tmp/relay-cut cut)/metadata" ] &&
			[ -e "$(relay_trace /tmp/relay-cut cut)/stream_1" ] && break
		sleep 0.1
	done
	# Small storms (each a full workload): enough to stream before and to
	# write after the kill, and what reached the relay reads quickly.
	STORM=2000 $W
	kill -9 "$(relay_pid 5352)"
	STORM=2000 $W
	sleep 1
	kill -INT $rec 2>/dev/null
	timeout 30 tail --pid=$rec -f /dev/null
	wait $rec
	st=$?
	sed 's/^/# /' /tmp/cut.err | head -n 8
	t "relay: relay killed mid-run: exit 3 ($st), a message naming the relay" \
		bash -c "test $st = 3 && grep -q 'net://127.0.0.1:5352:5353: .*' /tmp/cut.err"
	t "relay: what reached the killed relay reads in babeltrace2" \
		bt_read "$(relay_trace /tmp/relay-cut cut)"
}

# --- many machines: the host's relay ----------------------------------------------------
# RELAY_HOST=PORT in /results/env: the host runs lttng-relayd for every
# guest, reached at 10.0.2.100:PORT (control), PORT+1 (data), PORT+2
# (live). Stream live until the host's relay lists this guest's session
# and PEERS other hosts' at the same time (180 s budget), then until the
# host has seen them all at once (60 s budget), then stop.
relay_host() {
	local p=$RELAY_HOST rec i listed=0 end
	"$here/guest-net.sh" || { t "relay: the guest's network comes up" false; return; }
	tring-record -q -o "net://10.0.2.100:$p:$((p + 1))" --live --session fleet \
		-e sched_switch -e marker 2>/tmp/fleet.err &
	rec=$!
	end=$(($(date +%s) + 180))
	for i in $(seq 100000); do
		[ "$(date +%s)" -lt $end ] || break
		echo "fleet $i" >$T/trace_marker
		listed=$(babeltrace2 -i lttng-live "net://10.0.2.100:$((p + 2))" 2>/dev/null |
			grep -c '/fleet ')
		[ "$listed" -gt "${PEERS:-0}" ] && break
		sleep 0.5
	done
	babeltrace2 -i lttng-live "net://10.0.2.100:$((p + 2))" 2>&1 | sed 's/^/# host relay: /'
	t "relay: the host's relay lists this guest's session and ${PEERS:-0} other at once ($listed)" \
		test "$listed" -gt "${PEERS:-0}"
	# Until the host has listed every guest's session at once (it writes
	# /results/all-listed then), so the others see this one too; 60 s
	# at most.
	for i in $(seq 600); do
		[ -s /results/all-listed ] && break
		sleep 0.1
	done
	kill -INT $rec
	t "relay: streaming to the host's relay ends cleanly (exit 0)" wait $rec
	sed 's/^/# /' /tmp/fleet.err | head -n 5
}

relay_tests() {
	t "relay: modprobe tring" $MODLOAD || return
	ip link set lo up
	echo 4096 >$T/buffer_size_kb
	[ -z "${RELAY_HOST:-}" ] || relay_host
	relay_up 5342 $RL || { t "relay: lttng-relayd starts on 127.0.0.1" false; return; }
	relay_same
	relay_live
	relay_faults
	kill "$(relay_pid 5342)" 2>/dev/null
	cp /tmp/relayd.log $R/ 2>/dev/null
	t "relay: rmmod tring" rmmod tring
}
