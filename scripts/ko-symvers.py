#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print Module.symvers lines for what a built module (.ko, .ko.xz, .ko.zst) exports.

usage: ko-symvers.py MODULE.ko[.xz|.zst]

The symbol versions (CRCs) are read from the module itself: each
exported symbol X has a __crc_X symbol pointing into the module's CRC
table (__kcrctab, or __kcrctab_gpl for a GPL-only export). A
module built out of tree against such a module then carries the same
versions the kernel checks at load time (KBUILD_EXTRA_SYMBOLS).
"""
import lzma
import struct
import subprocess
import sys


def load(path):
    if path.endswith('.xz'):
        return lzma.open(path).read()
    if path.endswith('.zst'):
        return subprocess.run(['zstd', '-dc', path], check=True,
                              stdout=subprocess.PIPE).stdout
    with open(path, 'rb') as f:
        return f.read()


def sections(elf):
    """(name, offset, size, link, entsize, type) per section of an ELF64 LE."""
    if elf[:4] != b'\x7fELF' or elf[4] != 2 or elf[5] != 1:
        sys.exit('not a 64-bit little-endian ELF file')
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)
    raw = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link, _info, _align, entsize = \
            struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
        raw.append((name, off, size, link, entsize, typ))
    stroff = raw[shstrndx][1]
    out = []
    for name, off, size, link, entsize, typ in raw:
        end = elf.index(b'\0', stroff + name)
        out.append((elf[stroff + name:end].decode(), off, size, link, entsize, typ))
    return out


def symbols(elf, secs):
    """(name, value, section index) of every symbol in .symtab."""
    for name, off, size, link, entsize, typ in secs:
        if typ != 2:        # SHT_SYMTAB
            continue
        stroff = secs[link][1]
        for i in range(size // entsize):
            st_name, _info, _other, shndx, value, _size = \
                struct.unpack_from('<IBBHQQ', elf, off + i * entsize)
            end = elf.index(b'\0', stroff + st_name)
            yield elf[stroff + st_name:end].decode(), value, shndx


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 1)
    path = sys.argv[1]
    elf = load(path)
    secs = sections(elf)
    module = path.split('/')[-1].split('.ko')[0]
    syms = list(symbols(elf, secs))
    for name, value, shndx in sorted(syms):
        if not name.startswith('__crc_') or shndx >= len(secs):
            continue
        sym = name[len('__crc_'):]
        crc, = struct.unpack_from('<I', elf, secs[shndx][1] + value)
        kind = 'EXPORT_SYMBOL_GPL' if secs[shndx][0] == '__kcrctab_gpl' \
            else 'EXPORT_SYMBOL'
        print('0x%08x\t%s\t%s\t%s\t' % (crc, sym, module, kind))


if __name__ == '__main__':
    main()
