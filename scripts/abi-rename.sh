#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A module built against an older include/linux/tring.h must not load
# against today's tring.ko when the inline code's contract with an
# exported function changed: that function gets a new name (see the
# header). Builds, against KDIR and the tree's tring.ko (Module.symvers),
# one-line modules into build/abi-rename/:
#   v4   calls tring_reserve_slow_v4(), today's name: links (the call's
#        prototype does not matter to the link);
#   v3   calls tring_reserve_slow_v3(), what a module built against the
#        header before the contexts' bytes (no contexts after a header)
#        calls;
#   v2   calls tring_reserve_slow_v2(), what a module built against the
#        header before the cache kept its sub-buffer's last position
#        (struct tring_cpu.cur_last) calls;
#   v1   calls tring_reserve_slow(), what one built against the header
#        before the wide event header (6a66a68) calls: for those three,
#        modpost finds no such symbol in tring.ko, so no module is made.
#
# usage: abi-rename.sh KDIR      exit 0 when all hold

set -u
kdir=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/abi-rename
# ABI_SYMVERS: tring's Module.symvers of another build of it for KDIR
# (make check's sparse build: the guests' tree may be built meanwhile).
symvers=${ABI_SYMVERS:-$top/build/mod/$(basename "$(realpath "$kdir")")/Module.symvers}
fail=0

[ -f "$symvers" ] || make -C "$top" -s KDIR="$kdir" modules >/dev/null ||
	{ echo "not ok - tring builds for $kdir"; exit 1; }

# build NAME SYMBOL: a module calling SYMBOL as the inline reserve does
build() {
	local d=$out/$1

	rm -rf "$d"
	mkdir -p "$d"
	echo "obj-m := abi_$1.o" >"$d/Kbuild"
	cat >"$d/abi_$1.c" <<EOC
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
struct tring_cpu;
long $2(struct tring_cpu *cb, unsigned int id, unsigned int len);
static int __init abi_init(void)
{
	return $2(NULL, 0, 0) == 0 ? -EINVAL : -ENODEV;
}
module_init(abi_init);
MODULE_LICENSE("GPL");
EOC
	make -C "$kdir" M="$d" KBUILD_EXTRA_SYMBOLS="$symvers" modules \
		>"$d/build.log" 2>&1
}

if build v4 tring_reserve_slow_v4 && [ -f "$out/v4/abi_v4.ko" ]; then
	echo "ok - a module calling tring_reserve_slow_v4() builds against tring.ko"
else
	echo "not ok - a module calling tring_reserve_slow_v4() builds against tring.ko ($out/v4/build.log)"
	fail=1
fi
# refused VERSION SYMBOL WHAT: a module of an older header is not built
refused() {
	if ! build "$1" "$2" && [ ! -f "$out/$1/abi_$1.ko" ] &&
		grep -q "\"$2\" \[.*\] undefined" "$out/$1/build.log"; then
		echo "ok - a module of $3 ($2()) is refused: modpost finds no such symbol"
	else
		echo "not ok - a module of $3 ($2()) is refused ($out/$1/build.log)"
		fail=1
	fi
}
refused v3 tring_reserve_slow_v3 "the header before the contexts' bytes"
refused v2 tring_reserve_slow_v2 "the header before cur_last"
refused v1 tring_reserve_slow "the old header"
exit $fail
