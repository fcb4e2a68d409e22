# SPDX-License-Identifier: GPL-2.0
#
# make check's harness part, sourced by scripts/check.sh (its helpers,
# $OUT, $VM, $KDEBUG): the checks of the checking itself. A planted WARN
# must fail a guest run, a hung boot must be retried, and the splat
# filter passes its own test.

# A planted WARN: every step of the guest succeeds, and the splat check
# must still fail the run, on that WARN.
harness_catches_warn() {
	local k image kdir dir=$OUT/guest-planted step rc

	k=$(guest_kernel debian-6.1) || return 1
	read -r image kdir <<<"$k"
	guest_modules "$kdir" || return 1
	guest_boot "$image" "$kdir" "$VM/plan-planted-warn" "$dir" 300
	rc=$?
	for step in $(cat "$dir/results/steps"); do
		echo "guest step $step: exit status $(cat "$dir/results/$step.rc")"
		[ "$(cat "$dir/results/$step.rc")" = 0 ] || return 1
	done
	echo "guest_boot: $rc (2: splat found)"
	cat "$dir/splats.txt"
	[ "$rc" = 2 ] && grep -q 'tring_test_mod\.c' "$dir/splats.txt"
}
# A boot that does not reach init in time: stopped and booted again
# (boot-watch.sh). The first boot's limit is 0 s here; the second boots.
harness_boot_retry() {
	local k image kdir dir=$OUT/guest-boot-retry

	. "$VM/boot-watch.sh"

	k=$(guest_kernel debian-6.1) || return 1
	read -r image kdir <<<"$k"
	TRING_VM_BOOT_S="0 180" guest_boot "$image" "$kdir" "$VM/plan-boot" "$dir" 300
	cat "$dir/qemu.log"
	[ "$(grep -c 'guest hung before init' "$dir/qemu.log")" = 1 ] &&
		[ -e "$dir/console-hung-1.log" ] && [ "$(cat "$dir/results/booted.rc")" = 0 ] &&
		grep -qaE "$BOOT_INIT_RE" "$dir/console.log"
}
part_harness() {
	want harness || return 0
	mark harness
	say "harness: a planted WARN must fail a guest run; a hung boot is retried; the splat filter's test"
	one harness planted-warn-detected harness_catches_warn
	one harness boot-hang-retried harness_boot_retry
	[ -n "$KDEBUG" ] || wait_kernel debug-6.1
	tap_run harness splat-test "$VM/splat_test.sh" "$KDEBUG/System.map"
}
