# SPDX-License-Identifier: GPL-2.0
#
# Sourced by run-guest.sh and userland/run-guest.sh: a guest that hangs
# before its kernel starts init (seen once: an emulated CPU's timer
# interrupt never delivered, RCU stalls, 600 s to the timeout) is stopped
# after TRING_VM_BOOT_S seconds (default 180; the kernels here start
# init after 3 to 6 s of guest time) and booted once more.
#
#   boot_watch CONSOLE PID N   0 once CONSOLE shows the kernel running
#                              init, or PID ended by itself; 1 (PID
#                              killed) if neither within boot N's limit
#
# TRING_VM_BOOT_S may give each boot its own limit ("0 180": the first
# is stopped at once, the harness's test of the retry).

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
		grep -qE "Run /[^ ]* as init process" "$console" 2>/dev/null && return 0
		if [ "$t" -ge "$limit" ]; then
			kill "$pid" 2>/dev/null
			return 1
		fi
		sleep 1
		t=$((t + 1))
	done
	return 0
}
