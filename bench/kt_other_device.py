#!/usr/bin/python3
"""Baseline for bench/kt_holdout.sh: rank one device's Kernel Tuner configurations by another
device's measured times. Prints one JSON object: {"kendall_tau", "top1_error", "top5_error",
"configs"} with graphcost's definitions (src/eval/metrics.h): tau-b; top-K error = best measured
time among the K best by the reference / best measured overall - 1 (stable order on ties).
A failed configuration gets 10x the slowest successful time of its cache, as graphcost reads it.
usage: kt_other_device.py REFERENCE.json.gz TARGET.json.gz"""
import gzip
import json
import math
import sys

import numpy as np


def read_times(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        cache = json.load(f)["cache"]
    times = {}
    for key, record in cache.items():
        t = record.get("time")
        ok = isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0
        times[key] = float(t) if ok else None
    slowest = max(t for t in times.values() if t is not None)
    return {k: (t if t is not None else 10 * slowest) for k, t in times.items()}


def kendall_tau_b(p, m):
    n = len(p)
    s = tied_p = tied_m = 0
    for begin in range(0, n, 512):
        dp = np.sign(p[begin:begin + 512, None] - p[None, :])
        dm = np.sign(m[begin:begin + 512, None] - m[None, :])
        s += int((dp * dm).sum())
        tied_p += int((dp == 0).sum())
        tied_m += int((dm == 0).sum())
    pairs = n * (n - 1) / 2
    n1, n2 = (tied_p - n) / 2, (tied_m - n) / 2
    return (s / 2) / math.sqrt((pairs - n1) * (pairs - n2))


def top_k_error(p, m, k):
    order = np.argsort(p, kind="stable")
    return float(m[order[:k]].min() / m.min() - 1)


def main():
    reference, target = read_times(sys.argv[1]), read_times(sys.argv[2])
    keys = sorted(set(reference) & set(target))
    p = np.array([reference[k] for k in keys])
    m = np.array([target[k] for k in keys])
    print(json.dumps({"kendall_tau": kendall_tau_b(p, m), "top1_error": top_k_error(p, m, 1),
                      "top5_error": top_k_error(p, m, 5), "configs": len(keys)}))


if __name__ == "__main__":
    main()
