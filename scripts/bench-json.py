#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's JSON (scripts/bench.sh), written with Python's json.

usage: bench-json.py STAMP RESULTS.JSONL RACE.JSONL PROBES.JSONL NATIVE.TXT

Each .jsonl file holds one JSON object a line (the guest benchmark's
result rows; the race's and the probes' objects, one per kernel);
NATIVE.TXT is the twin's output, kept as text. Prints one object:
{"date", "host_cpus", "emulated", "race", "probes", "results",
"native"}. A line that does not parse stops it with its file and line.
"""
import json
import os
import sys


def rows(path):
    out = []
    try:
        f = open(path)
    except OSError:
        return out
    with f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                sys.exit('bench-json.py: %s:%d: %s' % (path, n, e))
    return out


def main():
    if len(sys.argv) != 6 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 1)
    stamp, results, race, probes, native = sys.argv[1:]
    try:
        with open(native) as f:
            text = f.read()
    except OSError:
        text = ''
    json.dump({'date': stamp, 'host_cpus': os.cpu_count(), 'emulated': True,
               'race': rows(race), 'probes': rows(probes),
               'results': rows(results), 'native': text}, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
