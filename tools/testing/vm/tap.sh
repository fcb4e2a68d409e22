# SPDX-License-Identifier: GPL-2.0
#
# TAP for tring's test scripts, sourced by bash on the host and by the
# guests' busybox sh:
#   tap_ok STATUS DESCRIPTION   "ok N DESCRIPTION" if STATUS is 0,
#                               "not ok N DESCRIPTION" otherwise
#   tap_end                     the plan ("1..N"); fails if a test failed
#   recording DIR PID           wait until the tring-record PID records
#                               into DIR; fails if it exited first
#   fuzz_share                  "K N": this run's fuzz cases, the
#                               pairs int(I / 2) % N == K

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

# DIR/kernel/metadata is made once tring-record's streams are open, after
# its SIGINT handler is in place: a background job of a script starts
# with SIGINT ignored, so a Ctrl-C sent sooner would be lost, and events
# written sooner may precede the recording (its statedump still follows:
# --no-statedump where a count must not see it).
recording() {
	while [ ! -f "$1/kernel/metadata" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
}

# fuzz_share: "K N", this run's share of generated fuzz cases: the cases
# I with int(I / 2) % N == K (pairs of a whole and a broken one). "tring_fuzz=K/N" on the kernel command line sets it
# (make check splits the cases between its two debug kernels, so each
# runs on one of them every time, and all of them on each Debian
# kernel); "0 1", every case, without it.
fuzz_share() {
	local share

	share=$(sed -n 's/.*tring_fuzz=\([0-9]*\)\/\([0-9]*\).*/\1 \2/p' /proc/cmdline)
	echo "${share:-0 1}"
}

# all_share: "K[,K...] N", the generic events tring_generic_test.sh's
# "all" enables at once: the pairs I (as fuzz_share) with I % N one of
# the Ks. "tring_all=K,K/N" on the kernel command line sets it (make
# check gives the KCSAN kernel, where enabling is slowest, a third and
# the KASAN one the rest); the fuzz share without it.
all_share() {
	local share

	share=$(sed -n 's/.*tring_all=\([0-9,]*\)\/\([0-9]*\).*/\1 \2/p' /proc/cmdline)
	echo "${share:-$(fuzz_share)}"
}
