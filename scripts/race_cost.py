#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The race's cost per event, in time and in guest instructions.

usage: race_cost.py RACE.TXT [INSN.TXT] [--json ROWS]
       race_cost.py --explain
       race_cost.py --merge ROWS.JSONL COST.JSON KEY=VALUE...
       race_cost.py --as-insn RESULTS.TXT INSN.TXT

RACE.TXT: the guest's result lines (tools/testing/vm/userland/
bench-race.sh); INSN.TXT: the instruction counter's marks
(tools/testing/insn/tring_insn.c: "mark SEQ VCPU TAG K0 U0 K1 U1 ...").
Each storm run of the race ends its line with "mark TAG": the plugin
wrote every vCPU's counts when the storm started and stopped its clock,
so the run's instructions on each vCPU are the difference of the two
lines. Prints the cost table (--explain: its legend); --json ROWS
writes its rows as a JSON list (Python's json), one object per workload
and tracer with "instructions_per_event".

--as-insn: the result lines (the race's or the probes') with each run's
"ns N" replaced by the run's instructions on every vCPU between its two
marks, for the same tables in instructions (scripts/bench-probes.sh);
a run without its marks is left out.

--merge: scripts/bench-race.sh's JSON object for one kernel, on one
line: the KEY=VALUE pairs (kernel, cpus, clocksource, bufkb, subbufkb,
rounds, lttng, trace-cmd, perf, instruction_counter), "race": the
table rows of ROWS.JSONL (one JSON object a line), each race row with
its cost row's "instructions_per_event" and "cost" (null without), and
"cost": the cost rows.
"""
import json
import sys

import numpy as np

LEGEND = """\
Per workload, tracer and round, over the same round's untraced run, per event of the workload (one
count for every tracer of a round: the smallest among the round's lossless traces, as above):
ns/ev the workload's time; insn/ev the instructions on every vCPU, w on the workload's CPU (the
writer: CPU 0, the 1-CPU workloads only) and r on the others (the recorder's reader); slope~resid:
the cost per event fitted over the rounds' sizes (least-squares slope of the traced run's excess over
the events, its intercept, a fixed cost, left out) and the fit's RMS residual over the mean excess;
spread: (max - min) / median of the rounds' insn/ev; /tring: the ratio to tring's cost in the same
round (paired), median of the rounds. Medians of the lossless rounds [95% interval: bootstrap of
the median, with 7 rounds or more; "r": fewer rounds, the range min-max]. lossy: rounds in which
the tracer lost events (a dropped event costs less than a recorded one) or perf was throttled, left
out of those figures; all: the median over every round, lossy ones included. none: the untraced
run's own instructions per workload event."""

# Workloads whose work runs on CPU 0 alone (storm pins it there).
ONE_CPU = ('syscall-1cpu', 'pingpong', 'syscall-lat')
ORDER = ('none', 'tring-generic', 'tring', 'lttng', 'trace-cmd', 'perf')


def tracer_order(tracer):
    """The tables' order: ORDER, each tracer recording, tracking, filtering."""
    for i, suffix in enumerate(('-track', '-filter'), 1):
        if tracer.endswith(suffix):
            base = tracer[:-len(suffix)]
            break
    else:
        base, i = tracer, 0
    return (ORDER.index(base) if base in ORDER else len(ORDER), base, i)


def interval(v):
    """(lo, hi, kind): a 95% bootstrap interval of the median with 7
    values or more ("ci95"), else the range ("range"); None for none."""
    v = np.asarray(v, dtype=float)
    if len(v) == 0:
        return None
    if len(v) < 7:
        return float(v.min()), float(v.max()), 'range'
    rng = np.random.default_rng(1)
    idx = rng.integers(0, len(v), size=(10000, len(v)))
    lo, hi = np.percentile(np.median(v[idx], axis=1), [2.5, 97.5])
    return float(lo), float(hi), 'ci95'


def fit(xs, ys):
    """(slope, intercept, relative RMS residual) of ys over xs, or None
    when fewer than 3 points or the xs spread under 10%."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    if len(x) < 3 or x.min() <= 0 or x.max() < 1.1 * x.min():
        return None
    k, c = np.polyfit(x, y, 1)
    res = y - (k * x + c)
    scale = abs(y.mean()) or 1.0
    return float(k), float(c), float(np.sqrt(np.mean(res ** 2)) / scale)


def read_marks(path):
    """{tag: [per-vCPU (kernel, user) instructions between its first two
    marks]}; tags with fewer than two marks are left out."""
    first, out = {}, {}
    if not path:
        return out
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 6 or w[0] != 'mark':
                continue
            tag, counts = w[3], [int(x) for x in w[4:]]
            if tag == '0' or tag in out:
                continue
            if tag not in first:
                first[tag] = counts
            else:
                a = first[tag]
                out[tag] = [(counts[i] - a[i], counts[i + 1] - a[i + 1])
                            for i in range(0, len(a), 2)]
    return out


def read_runs(path, marks):
    """{(kind, workload, tracer, round): run} from the result lines; a
    "sel" run's 'caused' is the events the storm caused, recorded or not
    (two per call, info syscalls)."""
    runs, throttled, caused = {}, set(), 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[:2] == ['info', 'syscalls'] and len(w) > 2 and w[2].isdigit():
                caused = 2 * int(w[2])
            if len(w) >= 5 and w[0] == 'throttle' and int(w[4]) > 0:
                throttled.add((w[1], w[3], w[2]))
            if len(w) < 6 or w[1] in ('0', '-') or w[4] != 'ns':
                continue
            kv = dict(zip(w[4::2], w[5::2]))
            lost = sum(int(kv[k]) for k in ('lost', 'trace_lost')
                       if kv.get(k, '-').isdigit())
            # The tag ends the line (getppid_events, before it, has two
            # values: the pairs are off by one after it).
            tag = w[-1] if w[-2] == 'mark' else None
            run = {'ns': float(kv['ns']), 'lost': lost,
                   'events': int(kv['events']) if kv.get('events', '-').isdigit() else 0,
                   'insn': marks.get(tag), 'caused': caused}
            runs[(w[0], w[2], w[3], int(w[1]))] = run
    for kind, wl, r in throttled:
        run = runs.get((kind, wl, 'perf', int(r)))
        if run:
            run['throttled'] = True
    return runs


def lossy(run):
    return run['lost'] > 0 or run.get('throttled', False)


def workload_events(runs, kind, wl, rnd):
    """The round's event count: the smallest lossless trace's (sel: the
    events the storm caused)."""
    if kind == 'sel':
        run = runs.get((kind, wl, 'none', rnd))
        return run['caused'] if run else 0
    n = [r['events'] for (k, w, t, i), r in runs.items()
         if (k, w, i) == (kind, wl, rnd) and t != 'none' and r['events'] > 0
         and not lossy(r)]
    return min(n) if n else 0


def sides(run, wl):
    """(total, writer, reader) instructions of a run, or None."""
    if not run or not run['insn']:
        return None
    per = [k + u for k, u in run['insn']]
    if wl in ONE_CPU:
        return sum(per), per[0], sum(per[1:])
    return sum(per), sum(per), None


def per_round(runs, kind, wl, tracer):
    """[(round, events, lossy, ns excess, insn excesses (t, w, r))]."""
    out = []
    for (k, w, t, rnd), run in sorted(runs.items(), key=lambda x: x[0][3]):
        if (k, w, t) != (kind, wl, tracer):
            continue
        base = runs.get((kind, wl, 'none', rnd))
        n = workload_events(runs, kind, wl, rnd)
        if not base or n <= 0:
            continue
        a, b = sides(run, wl), sides(base, wl)
        ins = None
        if a and b:
            ins = tuple(None if x is None else x - y for x, y in zip(a, b))
        out.append((rnd, n, lossy(run), run['ns'] - base['ns'], ins))
    return out


def summary(values):
    """{median, lo, hi, interval, n} of values, or None."""
    iv = interval(values)
    if not iv:
        return None
    return {'median': float(np.median(values)), 'lo': iv[0], 'hi': iv[1],
            'interval': iv[2], 'n': len(values)}


def cost(rows, pick):
    """Per-event costs of the rounds pick() takes a value from."""
    good = [(r[1], pick(r)) for r in rows if not r[2] and pick(r) is not None]
    every = [pick(r) / r[1] for r in rows if pick(r) is not None]
    out = summary([v / n for n, v in good]) or {}
    if good:
        f = fit([n for n, _ in good], [v for _, v in good])
        if f:
            out.update(slope=f[0], intercept=f[1], residual=f[2])
        vals = [v / n for n, v in good]
        med = float(np.median(vals))
        if med:
            out['spread'] = (max(vals) - min(vals)) / abs(med)
    if every:
        out['all_rounds'] = float(np.median(every))
    return out


def paired(rows, ref, pick):
    """The round-by-round ratio of rows' cost to ref's (both lossless)."""
    mine = {r[0]: pick(r) / r[1] for r in rows if not r[2] and pick(r) is not None}
    theirs = {r[0]: pick(r) / r[1] for r in ref if not r[2] and pick(r) is not None}
    v = [mine[i] / theirs[i] for i in mine if i in theirs and theirs[i] > 0]
    return summary(v)


def reference(kind, tracer):
    """(the tracer a row is compared with, the ratio's name), or None:
    a race row with tring, a gen row with tring's generic events, a sel
    row (TRACER-track, TRACER-filter) with the same tracer recording."""
    if kind == 'sel':
        base = tracer.rsplit('-', 1)[0]
        if tracer.endswith(('-track', '-filter')):
            return base, 'over_recorded'
        return None
    if kind == 'gen':
        return (('tring-generic', 'over_generic')
                if tracer not in ('tring-generic', 'none') else None)
    return ('tring', 'over_tring') if tracer not in ('tring', 'none') else None


def analyse(runs, kind, wl, tracer):
    rows = per_round(runs, kind, wl, tracer)
    ref = reference(kind, tracer)
    ref_rows = per_round(runs, kind, wl, ref[0]) if ref else None
    pick = {'ns': lambda r: r[3],
            'insn': lambda r: r[4][0] if r[4] else None,
            'insn_writer': lambda r: r[4][1] if r[4] else None,
            'insn_reader': lambda r: r[4][2] if r[4] else None}
    row = {'kind': kind, 'workload': wl, 'tracer': tracer,
           'rounds': len(rows), 'lossy_rounds': sum(1 for r in rows if r[2])}
    for key, p in pick.items():
        row[key] = cost(rows, p)
        if ref and key in ('ns', 'insn'):
            row[key + '_' + ref[1]] = paired(rows, ref_rows, p)
    return row


def untraced(runs, kind, wl):
    """The untraced run's own instructions per workload event."""
    v = []
    for (k, w, t, rnd), run in runs.items():
        n = workload_events(runs, kind, wl, rnd)
        s = sides(run, wl)
        if (k, w, t) == (kind, wl, 'none') and s and n:
            v.append(s[0] / n)
    return summary(v)


def fmt(s, key='median', digits=1):
    if not s or s.get(key) is None:
        return '-'
    return '%.*f' % (digits, s[key])


def fmt_iv(s, digits=1):
    if not s or 'lo' not in s:
        return '-'
    return '[%.*f,%.*f]%s' % (digits, s['lo'], digits, s['hi'],
                              '' if s['interval'] == 'ci95' else 'r')


def fmt_fit(s):
    if not s or 'slope' not in s:
        return '-'
    return '%.1f~%.1f%%' % (s['slope'], 100 * s['residual'])


def print_table(rows, base):
    print('%-13s %-9s %8s %17s %8s %13s | %8s %19s %7s %7s %13s %6s %15s %6s %7s'
          % ('workload', 'tracer', 'ns/ev', 'interval', 'all', '/tring',
             'insn/ev', 'interval', 'w', 'r', 'slope~resid', 'spread',
             '/tring', 'lossy', 'all'))
    for row in rows:
        ns, ins = row['ns'], row['insn']
        if row['tracer'] == 'none':
            u = base.get(('race', row['workload']))
            print('%-13s %-9s %8s %17s %8s %13s | %8s %19s   (the untraced run: instructions per event)'
                  % (row['workload'], 'none', '', '', '', '', fmt(u), fmt_iv(u)))
            continue
        print('%-13s %-9s %8s %17s %8s %13s | %8s %19s %7s %7s %13s %6s %15s %6s %7s'
              % (row['workload'], row['tracer'], fmt(ns), fmt_iv(ns),
                 fmt(ns, 'all_rounds'),
                 fmt(row.get('ns_over_tring'), digits=2) + ' '
                 + fmt_iv(row.get('ns_over_tring'), 2) if row.get('ns_over_tring') else '-',
                 fmt(ins), fmt_iv(ins), fmt(row['insn_writer']),
                 fmt(row['insn_reader']), fmt_fit(ins),
                 '%.1f%%' % (100 * ins['spread']) if 'spread' in ins else '-',
                 fmt(row.get('insn_over_tring'), digits=2) + ' '
                 + fmt_iv(row.get('insn_over_tring'), 2) if row.get('insn_over_tring') else '-',
                 '%d/%d' % (row['lossy_rounds'], row['rounds']),
                 fmt(ins, 'all_rounds')))


# The tables after the race's: kind, title, the ratio's column and key.
KIND_TABLES = (
    ('gen', ['One tracepoint pair, raw_syscalls sys_enter/sys_exit, under the 1-CPU storm (the generic events',
             'above), per event of the workload over the untraced run: time and instructions (all vCPUs;',
             "w: CPU 0). /generic: over tring's generic events' cost, paired by round, median [interval]."],
     '/generic', 'over_generic'),
    ('sel', ['Choosing what is recorded, per event the 1-CPU storm causes (recorded or not), over the untraced',
             'run: time and instructions (all vCPUs; w: CPU 0). x rec: over the same tracer recording every',
             'event, paired by round, median [interval as above].'],
     'x rec', 'over_recorded'),
)


def print_kind(kind, title, col, key, rows, base):
    """A kind's table: each tracer's cost and its paired ratio."""
    if not rows:
        return
    print()
    print('\n'.join(title))
    print('%-18s %8s %17s %8s %19s %7s %15s %15s' % (
        'tracer', 'ns/ev', 'interval', 'insn/ev', 'interval', 'w',
        col + ' (ns)', col + ' (insn)'))
    for row in rows:
        if row['tracer'] == 'none':
            u = base.get((kind, row['workload']))
            print('%-18s %8s %17s %8s %19s   (the untraced run: instructions per event)'
                  % ('none', '', '', fmt(u), fmt_iv(u)))
            continue
        rn, ri = row.get('ns_' + key), row.get('insn_' + key)
        print('%-18s %8s %17s %8s %19s %7s %15s %15s' % (
            row['tracer'], fmt(row['ns']), fmt_iv(row['ns']), fmt(row['insn']),
            fmt_iv(row['insn']), fmt(row['insn_writer']),
            fmt(rn, digits=2) + ' ' + fmt_iv(rn, 2) if rn else '-',
            fmt(ri, digits=2) + ' ' + fmt_iv(ri, 2) if ri else '-'))


def as_insn(results, insn):
    """The result lines with each run's "ns N" replaced by its
    instructions on every vCPU between its marks; a run without both
    marks is left out, other lines kept."""
    marks = read_marks(insn)
    with open(results) as f:
        for line in f:
            w = line.split()
            if 'ns' not in w[:5] or len(w) < 6 or w[1] in ('-',):
                sys.stdout.write(line)
                continue
            counts = marks.get(w[-1] if w[-2] == 'mark' else None)
            if not counts:
                continue
            i = w.index('ns')
            w[i + 1] = str(sum(k + u for k, u in counts))
            print(' '.join(w))


def merge(rows_path, cost_path, pairs):
    """The kernel's JSON object (see --merge)."""
    head = dict(p.split('=', 1) for p in pairs)
    obj = {'kernel': head.get('kernel'), 'emulated': True}
    for key in ('cpus', 'bufkb', 'subbufkb', 'rounds'):
        obj[key] = int(head[key]) if head.get(key, '').isdigit() else None
    obj['clocksource'] = head.get('clocksource')
    obj['instruction_counter'] = head.get('instruction_counter') == 'yes'
    obj['peers'] = {k: head.get(k) for k in ('lttng', 'trace-cmd', 'perf')}
    with open(rows_path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    try:
        with open(cost_path) as f:
            cost_rows = json.load(f)
    except (OSError, ValueError):
        cost_rows = []
    by = {(c['workload'], c['tracer']): c for c in cost_rows}
    for row in rows:
        if 'workload' in row and 'tracer' in row:
            c = by.get((row['workload'], row['tracer']))
            row['instructions_per_event'] = c['instructions_per_event'] if c else None
            row['cost'] = c
    obj['race'] = rows
    obj['cost'] = cost_rows
    json.dump(obj, sys.stdout)
    sys.stdout.write('\n')


def main():
    args = sys.argv[1:]
    if not args or args[0] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if args else 1)
    if args[0] == '--explain':
        print(LEGEND)
        return
    if args[0] == '--merge' and len(args) >= 3:
        merge(args[1], args[2], args[3:])
        return
    if args[0] == '--as-insn' and len(args) == 3:
        as_insn(args[1], args[2])
        return
    out = None
    if '--json' in args:
        i = args.index('--json')
        out = args[i + 1]
        del args[i:i + 2]
    marks = read_marks(args[1] if len(args) > 1 else None)
    runs = read_runs(args[0], marks)
    keys = list(dict.fromkeys((k, w) for k, w, _, _ in runs if k in ('race', 'gen', 'sel')))
    rows, base = [], {}
    for kind, wl in keys:
        tracers = sorted({t for k, w, t, _ in runs if (k, w) == (kind, wl)},
                         key=tracer_order)
        base[kind, wl] = untraced(runs, kind, wl)
        rows += [analyse(runs, kind, wl, t) for t in tracers]
    print_table([r for r in rows if r['kind'] == 'race'], base)
    for kind, title, col, key in KIND_TABLES:
        print_kind(kind, title, col, key, [r for r in rows if r['kind'] == kind], base)
    if out:
        for row in rows:
            row['instructions_per_event'] = row['insn'].get('median')
            if row['tracer'] == 'none':
                # Not a tracer: the workload's own instructions instead.
                row['instructions_per_event'] = None
                row['untraced_instructions_per_event'] = base[row['kind'], row['workload']]
        with open(out, 'w') as f:
            json.dump(rows, f)


if __name__ == '__main__':
    main()
