#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Network of a real-userland guest (run-guest.sh), for PID 1 to run or
# source: bring up lo and, if the guest has a NIC (run-guest.sh gives it
# one, virtio-net, when TRING_GUEST_FWD, TRING_GUEST_NAT or
# TRING_GUEST_TAP is set), give it 10.0.2.15/24, statically. On QEMU's
# user-mode network 10.0.2.100:PORT reaches 127.0.0.1:HOSTPORT on the
# host, for each PORT:HOSTPORT of TRING_GUEST_FWD (restricted: nothing
# else answers), or 10.0.2.2 is the host's 127.0.0.1 (TRING_GUEST_NAT);
# on a tap (TRING_GUEST_TAP) 10.0.2.2 is the host's end of it. There is
# no default route either way. Without a NIC, only lo. Needs ip (iproute2) from the
# host's root; sets nothing in the caller's environment, prints only
# errors. Exit (or return) status: 0, or 1 if a step failed.

tring_guest_net() {
	local PATH=/usr/sbin:/usr/bin:/sbin:/bin nic
	ip link set lo up || return 1
	# Without udev the kernel's name stays: eth0, but take ens* too.
	nic=$(ip -o link show | awk -F': ' '$2 ~ /^(eth|ens|enp)[0-9a-z]*(@|$)/ { sub(/@.*/, "", $2); print $2; exit }')
	[ -n "$nic" ] || return 0
	ip addr replace 10.0.2.15/24 dev "$nic" && ip link set "$nic" up
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	if tring_guest_net; then
		unset -f tring_guest_net
		return 0
	fi
	unset -f tring_guest_net
	return 1
fi
tring_guest_net
