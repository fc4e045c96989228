#!/usr/bin/env python3
"""graphcost's model-guided search as a Kernel Tuner strategy against Kernel Tuner's random
sampling, replayed on the shared Kernel Tuner caches: how many measurements each needs before the
best time found is within 1%, 5% and 10% of the cache's optimum, over several seeds.

    nice -n 10 env PYTHONPATH=build/python:KERNEL_TUNER_CHECKOUT:PYTHON_CONSTRAINT_CHECKOUT \\
        /usr/bin/python3 bench/kernel_tuner_replay.py --seeds 10 --budget 200

Runs in whichever kernel_tuner the path holds: Kernel Tuner itself (1.4.0), or the stand-in
(tests/python/kernel_tuner_standin, its strategy interface and simulation mode). Each cache
(.json or .json.gz) is first written as plain JSON into a temporary folder
(graphcost.kernel_tuner.write_plain_cache), since Kernel Tuner reads only that, then replayed
with kernel_tuner.tune_cache, whose search space is the cache's configurations that did not fail:
the optimum is the best of those. Prints `figure: name: value unit` lines; a search that does not
get within a threshold inside the budget counts as budget + 1 measurements in the mean (a lower
bound then), and the lines say how many seeds got there. Without caches or a kernel_tuner module
it prints `figure: kt_replay: skipped (reason)` and exits 3 (bench/bench_skip.py).
"""
import argparse
import glob
import os
import sys
import tempfile
import time

from bench_skip import skip

try:
    import numpy as np

    import graphcost.kernel_tuner as gkt
    import kernel_tuner
    from kernel_tuner.util import read_cache
except ImportError as e:
    skip("kt_replay", f"{e}: put build/python and a Kernel Tuner (or "
                      "tests/python/kernel_tuner_standin) on PYTHONPATH")

THRESHOLDS = (0.01, 0.05, 0.10)


def reach(results, optimum, budget):
    """Measurements until the best time is within each threshold of the optimum."""
    best = np.inf
    out = {t: budget + 1 for t in THRESHOLDS}
    for n, r in enumerate(results, start=1):
        if "__error__" not in r:
            best = min(best, r["time"])
        for t in THRESHOLDS:
            if out[t] > budget and best <= optimum * (1 + t):
                out[t] = n
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caches", nargs="*",
                        default=sorted(glob.glob(os.path.join(here, "..", "..", "shared", "data",
                                                              "kernel_tuner", "*", "*.json.gz"))))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--strategy", default="model", help="graphcost's strategy to compare")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--prior", action="store_true",
                        help="also the strategy with a prior from the kernel's other caches "
                             "(strategy option pretrained: the cache's folder, itself left out)")
    args = parser.parse_args()
    if not args.caches:
        skip("kt_replay", "no Kernel Tuner caches found in ../shared/data/kernel_tuner")
    work = tempfile.TemporaryDirectory(prefix="kt_replay-")
    for source in args.caches:
        folder = os.path.join(work.name, os.path.basename(os.path.dirname(os.path.abspath(source))))
        os.makedirs(folder, exist_ok=True)
        path = gkt.write_plain_cache(source, folder)
        cache = read_cache(path, open_cache=False)
        times = [r["time"] for r in cache["cache"].values() if "__error__" not in r]
        optimum = min(times)
        name = f"{os.path.basename(folder)}_{cache['device_name'].split()[-1]}"
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
        rows = {}
        labels = ["random_sample", args.strategy] + ([args.strategy + "_prior"] if args.prior else [])
        for label in labels:
            reached = {t: [] for t in THRESHOLDS}
            start = time.perf_counter()
            for seed in range(args.seeds):
                np.random.seed(seed)  # Kernel Tuner's strategies draw from numpy's generator
                # The prior reads graphcost's own readers: the source folder, .json.gz as it is.
                # Without one, "none": the plain caches written beside this one would be the
                # default prior (caches_at_hand).
                prior = ({"pretrained": os.path.dirname(os.path.abspath(source)),
                          "device": cache["device_name"]}
                         if label.endswith("_prior") else {"pretrained": "none"})
                strategy = ("random_sample" if label == "random_sample"
                            else gkt.Strategy(args.strategy, batch=args.batch, seed=seed, **prior))
                results, _ = kernel_tuner.tune_cache(path, strategy=strategy, quiet=True,
                                                     strategy_options={"max_fevals": args.budget})
                for t, n in reach(results, optimum, args.budget).items():
                    reached[t].append(n)
            rows[label] = (reached, (time.perf_counter() - start) / args.seeds)
        print(f"{name}: {len(times)} configurations that did not fail (of {len(cache['cache'])}), "
              f"optimum {optimum:.4g} ms, "
              f"budget {args.budget}, {args.seeds} seeds")
        for label, (reached, seconds) in rows.items():
            for t in THRESHOLDS:
                n = np.array(reached[t])
                got = int((n <= args.budget).sum())
                print(f"figure: kt_replay_{name}_{label}_reach_{int(t * 100)}pct: {n.mean():.1f} "
                      f"measurements ({got}/{args.seeds} seeds within budget)")
            print(f"figure: kt_replay_{name}_{label}_seconds_per_search: {seconds:.2f} s")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
