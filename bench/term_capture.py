#!/usr/bin/env python3
"""Which terms of the synthetic layout cost model a trained model ranks by (issue #37's diagnosis).

usage: bench/term_capture.py TERMS_DIR RUN_DIR [RUN_DIR ...]

TERMS_DIR: a split folder of `graphcost synth --terms` output, e.g. ROOT/terms/layout/xla/random/valid
(each file: fixed_ns, nodes_ns, followers_ns, copies_ns, noiseless_ns per configuration).
RUN_DIR: a training run whose valid_predictions.jsonl holds the validation graphs' scores (train
writes it at the last validation: graph, config_indices, predicted, measured).

Per run, means over its validation graphs of:
- tau(model, noiseless): Kendall tau-b of the model's scores against the noiseless runtime;
- for each term T (nodes, followers, copies):
    share of pairs: among pairs of configurations, the share whose runtime difference comes
      mostly from T (the term with the largest difference in the direction of the runtime's);
    share of misordered pairs: the same among the pairs the model orders against the noiseless
      runtime; a term whose share rises among the misordered pairs is one the model misses;
    misordered rate: the share of T's pairs that the model misorders;
    tau(model, T): how the model's scores follow the term alone;
    tau(noiseless, T): how the runtime follows it.
Prints a table, and `figure: term_capture_RUN_TERM_misordered_rate: VALUE ratio` lines.
Independent of graphcost: numpy and scipy only.
"""
import json
import os
import sys

from bench_skip import skip

try:
    import numpy as np
    from scipy.stats import kendalltau
except ImportError:
    skip("term_capture", "this python lacks numpy or scipy; Debian: python3-numpy python3-scipy")

TERMS = ("nodes", "followers", "copies")
MAX_PAIRS = 50000


def pairs_of(n, rng):
    """Up to MAX_PAIRS distinct index pairs (i < j) of n items, all of them when they fit."""
    i, j = np.triu_indices(n, 1)
    if len(i) > MAX_PAIRS:
        keep = rng.choice(len(i), MAX_PAIRS, replace=False)
        i, j = i[keep], j[keep]
    return i, j


def graph_figures(prediction, terms_file, rng):
    with np.load(terms_file) as z:
        idx = np.asarray(prediction["config_indices"], dtype=np.int64)
        truth = z["noiseless_ns"][idx]
        parts = np.stack([z[t + "_ns"][idx] for t in TERMS])  # terms x configurations
    pred = np.asarray(prediction["predicted"], dtype=np.float64)
    i, j = pairs_of(len(idx), rng)
    diff = truth[j] - truth[i]
    keep = diff != 0
    i, j, diff = i[keep], j[keep], diff[keep]
    sign = np.sign(diff)
    # The term that moves the pair most in the runtime's direction.
    dominant = np.argmax((parts[:, j] - parts[:, i]) * sign, axis=0)
    misordered = np.sign(pred[j] - pred[i]) != sign
    out = {"tau_model_noiseless": kendalltau(pred, truth)[0], "misordered": misordered.mean()}
    for k, t in enumerate(TERMS):
        mine = dominant == k
        out[t + "_share"] = mine.mean()
        out[t + "_share_misordered"] = (mine & misordered).sum() / max(1, misordered.sum())
        out[t + "_misordered_rate"] = misordered[mine].mean() if mine.any() else float("nan")
        constant = np.ptp(parts[k]) == 0
        out[t + "_tau_model"] = float("nan") if constant else kendalltau(pred, parts[k])[0]
        out[t + "_tau_truth"] = float("nan") if constant else kendalltau(truth, parts[k])[0]
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    terms_dir = sys.argv[1]
    rng = np.random.default_rng(0)
    for run in sys.argv[2:]:
        path = os.path.join(run, "valid_predictions.jsonl")
        if not os.path.exists(path):
            sys.exit(f"term_capture: {path}: missing (train writes it at its last validation)")
        rows = []
        with open(path) as f:
            for line in f:
                p = json.loads(line)
                terms_file = os.path.join(terms_dir, p["graph"] + ".npz")
                if not os.path.exists(terms_file):
                    sys.exit(f"term_capture: {terms_file}: missing (synth --terms of the same seed)")
                rows.append(graph_figures(p, terms_file, rng))
        mean = {k: float(np.nanmean([r[k] for r in rows])) for k in rows[0]}
        name = os.path.basename(os.path.normpath(run))
        print(f"{name}: {len(rows)} graphs; tau(model, noiseless) {mean['tau_model_noiseless']:.3f}; "
              f"misordered pairs {mean['misordered']:.3f}")
        print("  term       share of pairs  share of misordered  misordered rate  "
              "tau(model, term)  tau(noiseless, term)")
        for t in TERMS:
            print(f"  {t:<10} {mean[t + '_share']:>14.3f} {mean[t + '_share_misordered']:>20.3f} "
                  f"{mean[t + '_misordered_rate']:>16.3f} {mean[t + '_tau_model']:>17.3f} "
                  f"{mean[t + '_tau_truth']:>21.3f}")
        for t in TERMS:
            print(f"figure: term_capture_{name}_{t}_misordered_rate: "
                  f"{mean[t + '_misordered_rate']:.4f} ratio")


if __name__ == "__main__":
    main()
