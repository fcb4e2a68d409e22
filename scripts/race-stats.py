#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The race's statistics, fits and chart, with NumPy and Matplotlib.

usage: race-stats.py ci95 [SCALE]   values on stdin, one a line: the 95%
                                    interval of their median, "LO HI"
                                    (bootstrap, 10,000 resamples, fixed
                                    seed) with 7 values or more, their
                                    range with 3 to 6; "- -" with fewer
                                    than 3; SCALE: decimals (1)
       race-stats.py slope          "X Y" pairs on stdin: the least-squares
                                    slope of Y over X ("-" when the X do not
                                    spread over 10% or are fewer than 2, and
                                    when it is not above 0: output that does
                                    not grow with the events counted in it
                                    means a count or a file is short)
       race-stats.py chart SVG TITLE
                                    rows on stdin, "WORKLOAD|TRACER|V V ...|
                                    MEDIAN|LO HI": per workload, each tracer's
                                    per-round values (dots), median (bar) and
                                    interval (line), drawn into SVG

Run by scripts/bench-race.sh with Debian's python3-numpy and
python3-matplotlib (scripts/setup.sh installs them).
"""
import sys

import numpy as np

from race_cost import interval


def values():
    out = []
    for line in sys.stdin:
        line = line.strip()
        if line and line != '-':
            out.append(float(line.split()[0]))
    return np.array(out)


def ci95(decimals):
    """Percentile bootstrap of the median over the rounds (7 or more),
    or their range (3 to 6: a bootstrap of so few is no interval)."""
    v = values()
    if len(v) < 3:
        print('- -')
        return
    lo, hi, _ = interval(v)
    print('%.*f %.*f' % (decimals, lo, decimals, hi))


def slope():
    xy = np.array([[float(a) for a in line.split()[:2]]
                   for line in sys.stdin if line.strip()])
    if len(xy) < 2 or xy[:, 0].min() <= 0 or \
            xy[:, 0].max() < xy[:, 0].min() * 1.1:
        print('-')
        return
    k, _ = np.polyfit(xy[:, 0], xy[:, 1], 1)
    print('%.1f' % k if k > 0 else '-')


def chart(svg, title):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    rows = []
    for line in sys.stdin:
        f = line.rstrip('\n').split('|')
        if len(f) < 5:
            continue
        vals = [float(x) for x in f[2].split()]
        ci = f[4].split()
        ci = [float(x) for x in ci] if len(ci) == 2 and '-' not in ci else None
        rows.append((f[0], f[1], vals, float(f[3]), ci))
    if not rows:
        sys.exit('chart: no rows')
    workloads = list(dict.fromkeys(r[0] for r in rows))
    plt.rcParams['svg.fonttype'] = 'none'      # text stays text
    fig, axes = plt.subplots(len(workloads), 1, squeeze=False,
                             figsize=(7.5, 1.0 + 0.45 * len(rows) + 0.5 * len(workloads)))
    for ax, w in zip(axes[:, 0], workloads):
        mine = [r for r in rows if r[0] == w]
        for y, (_, tracer, vals, med, ci) in enumerate(mine):
            if ci:
                ax.plot(ci, [y, y], color='#888', linewidth=2, gid='ci-' + tracer)
            ax.scatter(vals, [y] * len(vals), s=14, color='#36c', alpha=0.6,
                       gid='rounds-' + tracer)
            ax.plot([med, med], [y - 0.25, y + 0.25], color='#c33',
                    linewidth=2, gid='median-' + tracer)
        ax.set_yticks(range(len(mine)))
        ax.set_yticklabels([r[1] for r in mine])
        ax.set_ylim(len(mine) - 0.4, -0.6)   # the first tracer on top
        ax.set_xlim(left=0)
        ax.set_title('%s: ns per event recorded' % w, fontsize=10, loc='left')
        ax.grid(axis='x', alpha=0.3)
    axes[-1, 0].set_xlabel('ns per event (dots: rounds; red: median; grey: interval, 95% bootstrap or under 7 rounds the range)')
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(svg)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 1)
    cmd = sys.argv[1]
    if cmd == 'ci95':
        ci95(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    elif cmd == 'slope':
        slope()
    elif cmd == 'chart' and len(sys.argv) == 4:
        chart(sys.argv[2], sys.argv[3])
    else:
        sys.exit('race-stats.py: unknown command (--help)')


if __name__ == '__main__':
    main()
