# SPDX-License-Identifier: GPL-2.0
#
# Sourced by run-guest.sh and userland/run-guest.sh: a guest that hangs
# before its kernel starts init (seen once: an emulated CPU's timer
# interrupt never delivered, RCU stalls, 600 s to the timeout) is stopped
# after TRING_VM_BOOT_S seconds (default 180; the kernels here start
# init after 3 to 6 s of guest time) and booted once more.
#
#   boot_watch CONSOLE PID N   0 once CONSOLE shows the kernel about to
#                              run init, or PID ended by itself; 1 (PID
#                              killed) if neither within boot N's limit
#   boot_twice OUT CMD...      CMD (QEMU writing OUT/console.log, its
#                              output appended to OUT/qemu.log) watched,
#                              and run once more if it hung; CMD's
#                              status, 125 if both boots hung
#
# TRING_VM_BOOT_S may give each boot its own limit ("0 180": the first
# is stopped at once, the harness's test of the retry).

# The kernel about to run init: the initmem freed just before it (its
# "Run /init" line can be cut by init's own first output).
BOOT_INIT_RE='Freeing unused kernel image \(initmem\)|Run /[^ ]* as init process'

# boot_limit N: boot N's limit in seconds
boot_limit() {
	local limits
	read -r -a limits <<<"${TRING_VM_BOOT_S:-180}"
	if [ "$1" -le "${#limits[@]}" ]; then
		echo "${limits[$1 - 1]}"
	else
		echo "${limits[-1]}"
	fi
}

boot_watch() {
	local console=$1 pid=$2 limit t=0

	limit=$(boot_limit "$3")
	while kill -0 "$pid" 2>/dev/null; do
		grep -qaE "$BOOT_INIT_RE" "$console" 2>/dev/null && return 0
		if [ "$t" -ge "$limit" ]; then
			kill "$pid" 2>/dev/null
			return 1
		fi
		sleep 1
		t=$((t + 1))
	done
	return 0
}

boot_twice() {
	local out=$1 attempt pid booted status
	shift

	for attempt in 1 2; do
		"$@" </dev/null >>"$out/qemu.log" 2>&1 &
		pid=$!
		boot_watch "$out/console.log" "$pid" "$attempt"
		booted=$?
		wait "$pid"
		status=$?
		[ "$booted" = 1 ] || return "$status"
		echo "guest hung before init (boot $attempt, $(boot_limit "$attempt") s): console-hung-$attempt.log" >>"$out/qemu.log"
		# (None if QEMU was stopped before it opened it.)
		mv "$out/console.log" "$out/console-hung-$attempt.log" 2>/dev/null ||
			: >"$out/console-hung-$attempt.log"
	done
	return 125
}
