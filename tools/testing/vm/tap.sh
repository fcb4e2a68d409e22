# SPDX-License-Identifier: GPL-2.0
#
# TAP for tring's test scripts, sourced by bash on the host and by the
# guests' busybox sh:
#   tap_ok STATUS DESCRIPTION   "ok N DESCRIPTION" if STATUS is 0,
#                               "not ok N DESCRIPTION" otherwise
#   tap_end                     the plan ("1..N"); fails if a test failed

tap_n=0
tap_failed=0

tap_ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $2"
	fi
}

tap_end() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}
