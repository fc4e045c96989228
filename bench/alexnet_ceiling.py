#!/usr/bin/env python3
"""How high can any ranker's Kendall tau go on a layout file whose runtimes are noisy?

Uses the configurations a file measures more than once. If m1 and m2 are two independent
measurements of the same configurations and a pair (i, j) is ordered wrongly by one measurement
with probability p_ij, the two measurements disagree on it with probability 2 p_ij (1 - p_ij).
Solving for p and using that p(d) = (1 - sqrt(1 - 2d)) / 2 is convex, the tau of the *true*
runtimes against one measurement is at most sqrt(tau(m1, m2)) (Jensen; ties count as in tau-b,
so this is approximate). No ranker, however good, can expect more against a measurement. The
argument needs independent measurements: repeats taken close together share the session's drift
and agree more, so --min-gap keeps only repeats far apart in the file.

Prints `figure: name: value unit` lines: the repeat agreement and the bound, over all repeated
configurations and within the fast group; with --predictions (a run's valid_predictions.jsonl on
a split of the same file), the run's tau against each measurement on the same configurations.
numpy only (Kendall tau-b by chunked pair counting: fine for tens of thousands of values).
"""
import argparse
import json
import sys

import numpy as np


def kendall_tau_b(x, y, chunk=1024):
    """Kendall tau-b of two 1-D arrays, O(n^2) in chunks (numpy only)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        dx = np.sign(x[start:stop, None] - x[None, :])
        dy = np.sign(y[start:stop, None] - y[None, :])
        # Count each unordered pair once: only j > i.
        upper = np.arange(n)[None, :] > np.arange(start, stop)[:, None]
        product = (dx * dy)[upper]
        concordant += int((product > 0).sum())
        discordant += int((product < 0).sum())
        ties_x += int(((dx == 0) & (dy != 0))[upper].sum())
        ties_y += int(((dy == 0) & (dx != 0))[upper].sum())
    pairs = concordant + discordant
    denominator = np.sqrt(float(pairs + ties_x) * (pairs + ties_y))
    return (concordant - discordant) / denominator if denominator > 0 else float("nan")


def bound(tau):
    return float(np.sqrt(tau)) if tau > 0 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="the layout .npz with repeated measurements")
    parser.add_argument("--predictions", help="a run's valid_predictions.jsonl (one graph)")
    parser.add_argument("--valid", help="the split's valid .npz the predictions are for")
    parser.add_argument("--min-gap", type=int, default=0,
                        help="use only repeats at least this many records apart in the file "
                             "(measurements close in time share drift, which inflates the bound)")
    parser.add_argument("--fast", type=float, default=1.01,
                        help="the fast group: runtime below this times the fastest (default 1.01)")
    args = parser.parse_args()
    if (args.predictions is None) != (args.valid is None):
        sys.exit("alexnet_ceiling: error: --predictions and --valid go together")

    def load(path, *keys):
        try:
            data = np.load(path)
            return [data[key] for key in keys]
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"alexnet_ceiling: error: {path}: {error}")

    features, runtime = load(args.data, "node_config_feat", "config_runtime")
    runtime = runtime.astype(np.float64)
    keys = [row.tobytes() for row in features.reshape(features.shape[0], -1)]
    positions = {}
    for i, key in enumerate(keys):
        positions.setdefault(key, []).append(i)
    # The first two measurements of each configuration measured twice at least min_gap apart.
    measurements = {}
    for key, where in positions.items():
        later = [i for i in where[1:] if i - where[0] >= args.min_gap]
        if later:
            measurements[key] = [runtime[where[0]], runtime[later[0]]]
    repeated = list(measurements)
    if len(repeated) < 3:
        sys.exit(f"alexnet_ceiling: error: {args.data}: fewer than 3 configurations measured twice")
    m1 = np.array([measurements[k][0] for k in repeated])
    m2 = np.array([measurements[k][1] for k in repeated])
    fastest = runtime.min()
    fast = np.maximum(m1, m2) < args.fast * fastest
    print(f"alexnet_ceiling: {len(positions)} distinct configurations of {len(keys)}, "
          f"{len(repeated)} measured twice at least {args.min_gap} records apart, "
          f"{int(fast.sum())} of them in the fast group",
          file=sys.stderr)
    relative = np.abs(m1 - m2) / np.minimum(m1, m2)
    print(f"figure: repeat_relative_difference_median: {np.median(relative):.5f} ratio")
    for name, mask in (("all", np.ones(len(m1), bool)), ("fast", fast)):
        tau = kendall_tau_b(m1[mask], m2[mask])
        print(f"figure: repeat_tau_{name}: {tau:.4f} tau")
        print(f"figure: oracle_tau_bound_{name}: {bound(tau):.4f} tau")

    if args.predictions:
        (vf,) = load(args.valid, "node_config_feat")
        position = {row.tobytes(): i for i, row in enumerate(vf.reshape(vf.shape[0], -1))}
        try:
            with open(args.predictions) as f:
                record = json.loads(f.readline())
            scores = np.full(vf.shape[0], np.nan)
            scores[np.asarray(record["config_indices"])] = np.asarray(record["predicted"],
                                                                       dtype=np.float64)
        except (OSError, ValueError, KeyError, IndexError) as error:
            sys.exit(f"alexnet_ceiling: error: {args.predictions}: {error!r}")
        chosen = [i for i, k in enumerate(repeated) if k in position]
        if len(chosen) < 3:
            sys.exit("alexnet_ceiling: error: fewer than 3 repeated configurations are in --valid")
        chosen = np.array(chosen)
        predicted = scores[[position[repeated[i]] for i in chosen]]
        if np.isnan(predicted).any():
            sys.exit(f"alexnet_ceiling: error: {args.predictions}: "
                     "no score for some configurations")
        # Scores: higher = slower (graphcost predicts runtime order), as eval uses them.
        for name, mask in (("all", np.ones(len(chosen), bool)), ("fast", fast[chosen])):
            a, b, p = m1[chosen][mask], m2[chosen][mask], predicted[mask]
            repeat = kendall_tau_b(a, b)
            print(f"figure: valid_repeated_{name}_count: {int(mask.sum())} configurations")
            print(f"figure: valid_repeat_tau_{name}: {repeat:.4f} tau")
            print(f"figure: valid_oracle_tau_bound_{name}: {bound(repeat):.4f} tau")
            print(f"figure: model_tau_vs_first_{name}: {kendall_tau_b(p, a):.4f} tau")
            print(f"figure: model_tau_vs_second_{name}: {kendall_tau_b(p, b):.4f} tau")


if __name__ == "__main__":
    main()
