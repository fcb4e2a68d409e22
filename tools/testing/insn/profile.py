#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The functions a tring_insn.so profile (prof=FILE) spent its
instructions in, named from the guest's /proc/kallsyms.

usage: profile.py [--top N] KALLSYMS PROF

Each block's instructions go to the function its first instruction lies
in (the last symbol at or below it). Prints the total, then per
function its instructions, its share and its module, most first.
"""
import argparse
import bisect
import sys


def symbols(path):
    """Sorted (address, name, module) of the text symbols in KALLSYMS."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addr = int(parts[0], 16)
            if addr:
                mod = parts[3].strip("[]") if len(parts) > 3 else ""
                syms.append((addr, parts[2], mod))
    syms.sort()
    return syms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("kallsyms")
    ap.add_argument("prof")
    a = ap.parse_args()
    syms = symbols(a.kallsyms)
    if not syms:
        sys.exit("profile.py: no addresses in %s (kptr_restrict?)" % a.kallsyms)
    addrs = [s[0] for s in syms]
    per = {}
    total = 0
    with open(a.prof) as f:
        for line in f:
            vaddr, insns, runs = line.split()
            n = int(insns) * int(runs)
            total += n
            va = int(vaddr, 16)
            i = bisect.bisect_right(addrs, va) - 1
            key = ("(user)", "") if va < 1 << 63 else \
                (syms[i][1], syms[i][2]) if i >= 0 else ("?", "")
            per[key] = per.get(key, 0) + n
    print("%d instructions in the profiled span, every vCPU" % total)
    for (name, mod), n in sorted(per.items(), key=lambda kv: -kv[1])[:a.top]:
        print("%12d %5.1f%%  %s%s" % (n, 100.0 * n / max(total, 1), name,
                                      " [%s]" % mod if mod else ""))


if __name__ == "__main__":
    main()
