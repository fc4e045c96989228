#!/usr/bin/python3
"""Unpaired (Welch) 95% intervals of each row's difference from the first row, from a Markdown
table of "mean ± sd" cells over n seeds (the `runs` column), as docs/results.md's ablation tables
hold them. For tables whose per-seed values are gone: a paired interval (graphcost sweep
--baseline) needs the seeds; this one needs only the means and sample standard deviations.
usage: bench/welch_from_table.py FILE.md   (every table with an `| id |` header and `c0..` rows)
       bench/welch_from_table.py --cells N MEAN1 SD1 MEAN2 SD2   (one comparison, n seeds each)
Needs python3-scipy (Debian) for the t quantile."""
import math
import re
import sys

from scipy import stats


def welch(m1, s1, n1, m2, s2, n2):
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    d, se = m2 - m1, math.sqrt(v1 + v2)
    if se == 0:
        return d, d, d
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    half = stats.t.ppf(0.975, df) * se
    return d, d - half, d + half


def text(d, lo, hi):
    mark = "*" if lo > 0 or hi < 0 else ""
    return f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]{mark}"


def tables(path):
    title = None
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#"):
            title = line.lstrip("# ")
        if not line.startswith("| id |"):
            continue
        metrics = [h.strip() for h in line.split("|")[4:-2]]
        rows = []
        for row in lines[i + 2:]:
            if not row.startswith("| c"):
                break
            cells = [c.strip() for c in row.split("|")[1:-1]]
            values = [tuple(float(x) for x in c.split("±")) for c in cells[3:3 + len(metrics)]]
            rows.append((cells[0], cells[1], int(cells[2]), values))
        print(f"## {title}")
        base = rows[0]
        for rid, name, n, values in rows[1:]:
            parts = []
            for k, metric in enumerate(metrics):
                (m1, s1), (m2, s2) = base[3][k], values[k]
                parts.append(f"{metric} {text(*welch(m1, s1, base[2], m2, s2, n))}")
            print(f"{rid} {name} vs {base[0]}: " + " | ".join(parts))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--cells":
        n = int(sys.argv[2])
        m1, s1, m2, s2 = map(float, sys.argv[3:])
        print(text(*welch(m1, s1, n, m2, s2, n)))
    elif len(sys.argv) == 2:
        tables(sys.argv[1])
    else:
        sys.exit(__doc__)
