#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One JSON object on one line, from typed NAME=VALUE fields: the rows of
make bench's results (scripts/bench.sh, bench-race.sh, bench-probes.sh),
written with Python's json rather than assembled as text by the shell.

usage: jrow.py FIELD...

FIELD is one of:
  NAME=TEXT        a string
  NAME:n=NUMBER    a number (an integer when it has no point or exponent);
                   empty, "-" or "null": null
  NAME:nl=LIST     a list of numbers, separated by commas or blanks
  NAME:b=WORD      true for "true", "yes" or "met"; false for "false", "no",
                   "not" or "missed"
  NAME:rows=FILE   a list of the objects in FILE, one JSON object a line
A dot in NAME makes a nested object: ns_per_event.relay:n=12.5 gives
{"ns_per_event": {"relay": 12.5}}. Fields keep their order. A value that
is not what its type says stops it, naming the field, with status 2.
"""
import json
import math
import sys


def fail(field, why):
    print('jrow.py: %s: %s' % (field, why), file=sys.stderr)
    sys.exit(2)


def number(field, text):
    text = text.strip()
    if text in ('', '-', 'null'):
        return None
    try:
        if any(c in text for c in '.eE'):
            v = float(text)
            if not math.isfinite(v):
                raise ValueError
            return v
        return int(text)
    except ValueError:
        fail(field, 'not a number: %r' % text)


def boolean(field, text):
    if text in ('true', 'yes', 'met'):
        return True
    if text in ('false', 'no', 'not', 'missed'):
        return False
    return fail(field, 'not a truth value: %r' % text)


def rows(field, path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    except (OSError, ValueError) as e:
        fail(field, '%s:%s' % (path, e))
    return out


def value(field, kind, text):
    if kind == '':
        return text
    if kind == 'n':
        return number(field, text)
    if kind == 'nl':
        return [number(field, t) for t in text.replace(',', ' ').split()]
    if kind == 'b':
        return boolean(field, text)
    if kind == 'rows':
        return rows(field, text)
    return fail(field, 'unknown type %r' % kind)


def put(obj, field):
    if '=' not in field:
        fail(field, 'NAME=VALUE expected')
    name, text = field.split('=', 1)
    name, _, kind = name.partition(':')
    keys = name.split('.')
    if not all(keys):
        fail(field, 'an empty name')
    for k in keys[:-1]:
        obj = obj.setdefault(k, {})
        if not isinstance(obj, dict):
            fail(field, '%s is not an object' % k)
    obj[keys[-1]] = value(field, kind, text)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    obj = {}
    for field in sys.argv[1:]:
        put(obj, field)
    print(json.dumps(obj, separators=(',', ':')))


if __name__ == '__main__':
    main()
