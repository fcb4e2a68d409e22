#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every system call's arguments by name. For each KDIR, runs
# kernel/trace/tring_syscalls.awk on that kernel's headers as Kbuild does
# (the system call table of $(objtree), linux/syscalls.h of $(srctree))
# and checks the table it makes:
#   - no call has an argument without a name (a line marked "unnamed":
#     arg<i> by position, or six raw arguments);
#   - the fields LTTng's analyses read: recvfrom's size and sendto's len
#     (io.py: a missing one stops every analysis), and the calls x86
#     defines itself with their own arguments (mmap 6, rt_sigreturn 0,
#     modify_ldt 3, arch_prctl 2, iopl 1), pselect6's six.
# With -s SRC (a full kernel source tree, e.g. linux-source-6.1), the
# names the generator supplies for arguments the headers leave unnamed
# must be those of a SYSCALL_DEFINE<n>() of that call in SRC (x86's or a
# generic one).
#
# usage: syscall-names.sh [-s SRC] KDIR...      exit 0 when all hold

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
gen=$top/kernel/trace/tring_syscalls.awk
src=
fail=0
if [ "${1:-}" = -s ]; then
	src=$2
	shift 2
fi

check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		fail=1
	fi
}

# srctree KDIR: the source tree of build tree KDIR, as Kbuild finds it:
# KDIR itself (in-tree build), KDIR/source (O= build) or the tree
# KDIR's Makefile includes (Debian's linux-headers-*-amd64 -> -common).
srctree() {
	local d inc

	inc=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$1/Makefile" 2>/dev/null |
		head -n 1)
	for d in "$1" "$1/source" $inc; do
		if [ -f "$d/include/linux/syscalls.h" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# has TABLE CALL NARGS NAME...: CALL's line has NARGS and these names.
has() {
	local table=$1 call=$2 n=$3 line want
	shift 3
	want="TRING_SYSCALL([0-9]*, sys_$call, $n, [0-9]*"
	for a in "$@"; do
		want="$want, \"$a\""
	done
	line=$(grep -E "^TRING_SYSCALL\([0-9]+, sys_$call," "$table")
	echo "$line" | grep -q "^$want" ||
		{ echo "# sys_$call: $line (want $n: $*)"; return 1; }
}

# none_unnamed TABLE SYSCALLS_H: no argument is named by its position
# (arg<i> as the i+1-th argument, unless the kernel's own prototype in
# SYSCALLS_H says so: sysfs's arg1, prctl's arg2 are real names) and no
# line is marked unnamed; list those that are.
none_unnamed() {
	local bad=0 call i

	while read -r call i; do
		if [ "$i" = unnamed ] ||
		   ! sed -n "/^asmlinkage long sys_$call(/,/;/p" "$2" |
			grep -qw "arg$i"; then
			echo "# sys_$call: argument $((i + 1)) unnamed"
			bad=1
		fi
	done < <(awk -F', ' '/^TRING_SYSCALL\(/ {
		call = $2
		sub(/^sys_/, "", call)
		if (/unnamed/)
			print call, "unnamed"
		for (i = 5; i <= NF; i++) {
			a = $i
			gsub(/[")]/, "", a)
			sub(/ .*/, "", a)
			if (a == "arg" (i - 5))
				print call, i - 5
		}
	}' "$1" | sort -u)
	return "$bad"
}

# defined_in_source CALL "NAMES": a SYSCALL_DEFINE<n>(CALL, ...) of $src
# outside the other architectures names its arguments NAMES.
defined_in_source() {
	local call=$1 names=$2 found

	found=$(grep -rln --include='*.c' -E "^SYSCALL_DEFINE[0-6]\(${call}[,)]" \
			"$src" --exclude-dir=arch 2>/dev/null
		grep -rln --include='*.c' -E "^SYSCALL_DEFINE[0-6]\(${call}[,)]" \
			"$src/arch/x86" 2>/dev/null)
	[ -n "$found" ] || { echo "# $call: no SYSCALL_DEFINE in $src"; return 1; }
	# Each definition's argument names (every second word after the
	# call's name), one line each.
	# shellcheck disable=SC2086
	awk -v call="$call" '
		$0 ~ "^SYSCALL_DEFINE[0-6]\\(" call "[,)]" { d = ""; on = 1 }
		on { d = d " " $0 }
		on && /\)/ {
			sub(/\).*/, "", d)
			sub(/^[^(]*\(/, "", d)
			n = split(d, w, /,/)
			out = ""
			for (i = 3; i <= n; i += 2) {
				gsub(/^[ \t]+|[ \t]+$/, "", w[i])
				out = out (out == "" ? "" : " ") w[i]
			}
			print out
			on = 0
		}' $found | sort -u >"$tmp/defs"
	grep -qxF "$names" "$tmp/defs" ||
		{ echo "# $call: \"$names\"; the source has:"; sed 's/^/#   /' "$tmp/defs"; return 1; }
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for kdir in "$@"; do
	k=$(basename "$(realpath "$kdir")")
	table=$tmp/$k.h
	if ! s=$(srctree "$kdir"); then
		check "$k: linux/syscalls.h found" false
		continue
	fi
	check "$k: the table generated" sh -c "awk -f '$gen' \
		'$kdir/arch/x86/include/generated/asm/syscalls_64.h' \
		'$s/include/linux/syscalls.h' >'$table' &&
		[ \$(grep -c '^TRING_SYSCALL(' '$table') -gt 300 ]"
	check "$k: every argument named" none_unnamed "$table" \
		"$s/include/linux/syscalls.h"
	check "$k: recvfrom's size" has "$table" recvfrom 6 fd ubuf size
	check "$k: sendto's len" has "$table" sendto 6 fd buff len
	check "$k: pselect6's six" has "$table" pselect6 6 n inp outp exp tsp sig
	check "$k: mmap" has "$table" mmap 6 addr len prot flags fd off
	check "$k: rt_sigreturn" has "$table" rt_sigreturn 0
	check "$k: modify_ldt" has "$table" modify_ldt 3 func ptr bytecount
	check "$k: arch_prctl" has "$table" arch_prctl 2 option arg2
	check "$k: iopl" has "$table" iopl 1 level
done

if [ -n "$src" ]; then
	sed -n 's/^\tdefined\["sys_\([a-z0-9_]*\)"\] = "\(.*\)"$/\1 \2/p' "$gen" |
		while read -r call names; do
			check "source: $call's names" defined_in_source "$call" "$names" ||
				echo 1 >"$tmp/failed"
		done
	[ -f "$tmp/failed" ] && fail=1
fi
exit $fail
