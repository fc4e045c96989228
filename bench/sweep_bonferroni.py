#!/usr/bin/python3
"""Bonferroni-corrected intervals for a sweep's paired differences. `graphcost sweep --baseline`
writes, per variant and metric, the mean difference from the baseline paired by seed and its 95%
t interval (results.csv: METRIC_diff, _diff_low, _diff_high, _pairs). Each of those intervals
holds on its own; comparing K variants with one baseline, this widens each to the (1 - 0.05/K)
level (K = the variants in the file, or --comparisons K), from the standard error the 95%
interval implies, and says which intervals still exclude zero.
usage: bench/sweep_bonferroni.py [--comparisons K] RESULTS.csv [RESULTS.csv ...]
Needs python3-scipy (Debian) for the t quantile."""
import csv
import sys

from scipy import stats

USAGE = "usage: bench/sweep_bonferroni.py [--comparisons K] RESULTS.csv [RESULTS.csv ...]"


def main(argv):
    comparisons = None
    if len(argv) >= 2 and argv[0] == "--comparisons":
        comparisons, argv = int(argv[1]), argv[2:]
    if not argv:
        sys.exit(USAGE)
    for path in argv:
        try:
            rows = list(csv.DictReader(open(path)))
        except OSError as e:
            sys.exit(f"sweep_bonferroni: {path}: {e.strerror}")
        variants = [r for r in rows if any(k.endswith("_diff") and r[k] for k in r)]
        if not variants:
            sys.exit(f"sweep_bonferroni: {path}: no paired differences (was the sweep run with --baseline?)")
        k = comparisons or len(variants)
        print(f"{path}: {k} comparisons, each interval at {100 * (1 - 0.05 / k):.2f}%")
        print("| variant | metric | difference | 95% | Bonferroni | excludes zero |")
        print("|---|---|---|---|---|---|")
        for r in variants:
            for key in [c for c in r if c.endswith("_diff")]:
                metric = key[: -len("_diff")]
                if not r[key]:
                    continue
                d, lo, hi = float(r[key]), float(r[metric + "_diff_low"]), float(r[metric + "_diff_high"])
                n = int(r[metric + "_pairs"])
                se = (hi - lo) / 2 / stats.t.ppf(0.975, n - 1)
                half = stats.t.ppf(1 - 0.025 / k, n - 1) * se
                both = "yes" if d - half > 0 or d + half < 0 else ("95% only" if lo > 0 or hi < 0 else "no")
                print(f"| {r['combination']} | {metric} | {d:+.4f} | [{lo:+.4f}, {hi:+.4f}] | "
                      f"[{d - half:+.4f}, {d + half:+.4f}] | {both} |")


if __name__ == "__main__":
    main(sys.argv[1:])
