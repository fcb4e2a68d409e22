#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Damage a tring persistent region inside a guest's memory file.

usage: persist-corrupt.py FILE OFFSET KIND SEED

FILE holds the guest's RAM (run-guest.sh's TRING_VM_MEMFILE), the region
starts at byte OFFSET (its physical address). KIND: header (a byte of the
header, checksum left), version and geometry (a field changed, checksum
made right), metadata (both copies), slots (CPU 0's), records (bytes in
CPU 0's sub-buffers). The layout is kernel/trace/tring_persist.h's.
"""
import random
import struct
import sys
import zlib

HDR = struct.Struct('<QIIQ16sIIIIIIIIQQQQQQQQII')
FIELDS = ('magic version header_size region_size boot_id nr_cpus subbuf_shift '
          'nr_slots nr_phys clock layout_ids seg_max pad0 layout_off seg_off '
          'meta_off meta_max cpu_off cpu_stride slots_off data_off csum pad').split()
META = 24  # struct tring_persist_meta


def main():
    path, off, kind, seed = sys.argv[1], int(sys.argv[2], 0), sys.argv[3], int(sys.argv[4])
    rnd = random.Random(seed)
    with open(path, 'r+b') as f:
        f.seek(off)
        h = dict(zip(FIELDS, HDR.unpack(f.read(HDR.size))))

        def rewrite(**kw):
            h.update(kw)
            h['csum'] = 0
            h['csum'] = zlib.crc32(HDR.pack(*(h[k] for k in FIELDS))) & 0xffffffff
            f.seek(off)
            f.write(HDR.pack(*(h[k] for k in FIELDS)))

        cpu0 = h['cpu_off']
        if kind == 'header':
            f.seek(off + 20)
            b = f.read(1)[0]
            f.seek(off + 20)
            f.write(bytes([b ^ 0x10]))
        elif kind == 'version':
            rewrite(version=h['version'] + 1)
        elif kind == 'geometry':
            rewrite(subbuf_shift=h['subbuf_shift'] + 1)
        elif kind == 'metadata':
            for i in range(2):
                at = off + h['meta_off'] + i * h['meta_max'] + META + 100
                f.seek(at)
                b = f.read(1)[0]
                f.seek(at)
                f.write(bytes([b ^ 0x01]))
        elif kind == 'slots':
            for _ in range(8):
                at = cpu0 + h['slots_off'] + rnd.randrange(h['nr_slots'] * 32)
                f.seek(off + at)
                f.write(bytes([rnd.randrange(256)]))
        elif kind == 'records':
            data = cpu0 + h['data_off']
            for _ in range(64):
                at = data + rnd.randrange(h['nr_phys'] << h['subbuf_shift'])
                f.seek(off + at)
                f.write(bytes([rnd.randrange(256)]))
        else:
            sys.exit('unknown kind ' + kind)


if __name__ == '__main__':
    main()
