# SPDX-License-Identifier: GPL-2.0
#
# Booting tring's test kernels: sourced (bash) by scripts/check.sh,
# scripts/run.sh and scripts/bench.sh, the one place that knows how to
# find a kernel, build the module for it, pack an initramfs, boot it
# under QEMU and judge its console.
#
# The caller sets $top (the project's root) before sourcing.

B=$top/build
VM=$top/tools/testing/vm

# guest_kernel NAME: print "IMAGE KDIR" of a test kernel. NAME is
# debian-6.1, debian-6.12 (or a bare 6.1, 6.12: the newest installed
# Debian kernel of that series), debug-6.1 (KCSAN, lockdep) or kasan-6.1
# (KASAN, lockdep, fault injection, kmemleak). The debug kernels are
# built from linux-source-6.1 the first time (minutes; progress on
# stderr) and cached in build/.
guest_kernel() {
	local series image tree

	case $1 in
	debug-6.1 | kasan-6.1)
		tree=$("$VM/build-debug-kernel.sh" "$VM/${1%-6.1}.config") || return 1
		echo "$tree/arch/x86/boot/bzImage $tree"
		;;
	debian-* | [0-9]*)
		series=${1#debian-}
		# Never the host's kernel (uname -r): the installed ones.
		image=$(ls -d /boot/vmlinuz-"$series".* 2>/dev/null | sort -V | tail -n 1)
		if [ -z "$image" ]; then
			echo "no Debian $series kernel in /boot (scripts/setup.sh installs it)" >&2
			return 1
		fi
		echo "$image /lib/modules/${image#/boot/vmlinuz-}/build"
		;;
	*)
		echo "unknown test kernel '$1'" >&2
		return 1
		;;
	esac
}

# guest_moddir KDIR: where "make KDIR=KDIR" puts the modules (the
# Makefile's MODDIR).
guest_moddir() {
	echo "$B/mod/$(basename "$(realpath "$1")")"
}

# guest_modules KDIR: build the modules for KDIR (warnings are errors),
# one build of a tree at a time: make check's two lanes can both ask for
# one kernel's (an up-to-date tree is a quick no-op).
guest_modules() {
	local lock

	lock="$(guest_moddir "$1").lock"
	mkdir -p "$(dirname "$lock")"
	flock "$lock" make -C "$top" -s KDIR="$1" modules
}

# guest_extra_ko KDIR: the kernel's own modules the tests load besides
# tring's: kyber-iosched, a module with trace events that loads without
# hardware (tring_generic_life_test.sh), where the kernel has it.
guest_extra_ko() {
	ls "$(dirname "$1")"/kernel/block/kyber-iosched.ko* \
		"$1"/block/kyber-iosched.ko 2>/dev/null | head -n 1
}

# guest_boot IMAGE KDIR PLAN OUTDIR TIMEOUT_S [FILE...]: pack an
# initramfs with the modules built for KDIR, PLAN and FILEs (for /tests),
# boot IMAGE with it and check its logs for kernel splats.
# TRING_VM_SMP, TRING_VM_MEM: vCPUs and memory (run-guest.sh);
# TRING_VM_CMDLINE: more of the kernel command line.
# Returns 0 when the guest finished cleanly; 1 when it did not finish
# (OUTDIR/qemu.log says why, OUTDIR/console.log has the kernel's
# output); 2 when it finished but the kernel reported a problem: the
# splats are in OUTDIR/splats.txt.
guest_boot() {
	local image=$1 kdir=$2 plan=$3 out=$4 timeout_s=$5
	shift 5

	TRING_VM_EXTRA_KO=$(guest_extra_ko "$kdir") \
		"$VM/mkinitramfs.sh" "$out.cpio.gz" "$plan" "$(guest_moddir "$kdir")" "$@" ||
		return 1
	"$VM/run-guest.sh" "$image" "$out.cpio.gz" "$out" "$timeout_s" \
		"${TRING_VM_CMDLINE:-}" || return 1
	SPLAT_SYSTEM_MAP=$kdir/System.map "$VM/splat.sh" "$out/console.log" \
		"$out/results/dmesg.txt" >"$out/splats.txt" || return 2
	return 0
}

# guest_salvage OUTDIR: when a guest died before sending its results,
# rebuild OUTDIR/results/ from the steps' output on its console (between
# TRING-STEP-BEGIN and TRING-STEP-END lines); a step that never ended
# gets exit status "died". Returns 1 if no step began.
guest_salvage() {
	local r=$1/results

	mkdir -p "$r"
	tr -d '\r' <"$1/console.log" | awk -v r="$r" '
		/^TRING-STEP-BEGIN / { step = $2; print step >> (r "/steps"); next }
		/^TRING-STEP-END / {
			rc = $3; sub(/^rc=/, "", rc)
			print rc > (r "/" step ".rc"); step = ""; next
		}
		step != "" { print > (r "/" step ".out") }
		END { if (step != "") print "died" > (r "/" step ".rc") }'
	[ -s "$r/steps" ]
}

# guest_failure OUTDIR: one line saying why a guest did not finish.
guest_failure() {
	tail -n 1 "$1/qemu.log" 2>/dev/null
}

# qemu_version: QEMU's version, e.g. 10.0.2.
qemu_version() {
	qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version \([^ ]*\).*/\1/p'
}

# host_relayd_up DIR PORT LOG [ADDR]: lttng-relayd on the host, on ADDR
# only (127.0.0.1 by default; control PORT, data PORT+1, live PORT+2),
# writing to DIR, its output in LOG; waits until its control port
# answers (10 s at most). A guest reaches 127.0.0.1 through
# run-guest.sh's TRING_GUEST_FWD or TRING_GUEST_NAT, a tap's address
# (host_tap_up) through TRING_GUEST_TAP. Stop it with host_relayd_down
# PORT [ADDR]. Status: 0, or 1 if it did not come up.
host_relayd_up() {
	local i a=${4:-127.0.0.1}

	command -v lttng-relayd >/dev/null || return 1
	lttng-relayd -b -o "$1" -C "tcp://$a:$2" \
		-D "tcp://$a:$(($2 + 1))" -L "tcp://$a:$(($2 + 2))" \
		>"$3" 2>&1 || return 1
	for i in $(seq 100); do
		(exec 3<>"/dev/tcp/$a/$2") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# host_relayd_down PORT [ADDR]: stop host_relayd_up's relay of that port.
host_relayd_down() {
	pkill -f "lttng-relayd .*-C tcp://${2:-127.0.0.1}:$1 " 2>/dev/null
}

# host_tap_up NAME ADDR/LEN: a tap device NAME on the host, up, with
# ADDR/LEN, for a guest's virtio NIC (run-guest.sh's TRING_GUEST_TAP):
# the guest's packets then go to the host kernel's own network stack,
# as a real NIC's would (with its offloads: checksums, segmentation),
# instead of QEMU's user-mode network. Needs root and /dev/net/tun.
# Status: 0, or 1 (nothing left behind) if the host cannot make it or
# the subnet is routed already. Remove it with host_tap_down NAME.
host_tap_up() {
	ip route get "${2%/*}" 2>/dev/null | grep -q '^local ' && return 1
	ip -4 route show to match "${2%/*}" 2>/dev/null | grep -qv '^default ' && return 1
	ip tuntap add dev "$1" mode tap 2>/dev/null || return 1
	if ip addr add "$2" dev "$1" && ip link set "$1" up; then
		return 0
	fi
	host_tap_down "$1"
	return 1
}

# host_tap_down NAME: remove host_tap_up's device.
host_tap_down() {
	ip link del "$1" 2>/dev/null
}

# insn_ok RELEASE: whether QEMU's instruction counter (tools/testing/insn)
# can run beside a userland guest of that kernel. QEMU 10.0.2 crashes
# (SIGSEGV in its generated code, at boot) when the plugin's inline
# per-vCPU scoreboard runs under round-robin TCG (-accel
# tcg,thread=single), which userland/run-guest.sh takes for 6.12. Nor
# would its split by vCPU hold there: 10.0.2's code generator takes a
# block's vCPU index to be a constant, the translating vCPU's, whenever
# the blocks are not made for parallel vCPUs (gen_cpu_index() in
# accel/tcg/plugin-gen.c), so one thread running two vCPUs would count
# a block shared by both on the one that translated it.
insn_ok() {
	case $("$VM/userland/run-guest.sh" --accel "$1") in
	*thread=single*) return 1 ;;
	esac
	return 0
}
