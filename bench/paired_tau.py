#!/usr/bin/env python3
"""Is one ranking's Kendall tau higher than another's by more than chance? A paired comparison.

Reads the Kaggle submission files `graphcost predict --split valid` writes (one row per graph:
its configurations, fastest first) and the split's .npz of that graph (its runtimes). Prints
each submission's tau over all configurations, then splits the configurations into --groups
random disjoint groups, computes every submission's tau within each group (each group is a
smaller test set drawn from the same configurations) and, for each submission against the
first, the mean difference, its standard error over the groups and in how many groups it won.
A margin far beyond its standard error, won in every group, does not come from which
configurations happened to land in the test split; it says nothing about seed-to-seed spread
of training, which needs several runs.

Prints `figure: name: value unit` lines. numpy only.
usage: paired_tau.py --valid SPLIT/valid/GRAPH.npz BASE.csv OTHER.csv [MORE.csv ...]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alexnet_ceiling import kendall_tau_b  # noqa: E402


def fail(message):
    sys.exit(f"paired_tau: error: {message}")


def read_positions(path, graph, count):
    """Each configuration's position in the submission's ranking of `graph` (0 = fastest)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    if not lines or lines[0] != "ID,TopConfigs":
        fail(f"{path}: not a submission file (first line is not ID,TopConfigs)")
    rows = [line.split(",", 1) for line in lines[1:] if line]
    ranking = [r[1] for r in rows if len(r) == 2 and r[0].rsplit(":", 1)[-1] == graph]
    if len(ranking) != 1:
        fail(f"{path}: no single row for graph {graph}")
    try:
        order = np.array([int(v) for v in ranking[0].split(";")])
    except ValueError:
        fail(f"{path}: graph {graph}: a configuration index is not an integer")
    if len(order) != count or not np.array_equal(np.sort(order), np.arange(count)):
        fail(f"{path}: graph {graph}: ranks {len(order)} configurations, "
             f"not each of the {count} in the split once")
    positions = np.empty(count)
    positions[order] = np.arange(count)
    return positions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--valid", required=True, help="the split's .npz of the graph ranked")
    parser.add_argument("--groups", type=int, default=20, help="disjoint groups (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the grouping")
    parser.add_argument("submissions", nargs="+", help="submission CSVs; the first is the base")
    args = parser.parse_args()
    if len(args.submissions) < 2:
        fail("give at least two submissions")
    if args.groups < 2:
        fail("--groups must be at least 2")
    try:
        runtime = np.load(args.valid)["config_runtime"].astype(np.float64)
    except (OSError, ValueError, KeyError) as error:
        fail(f"{args.valid}: {error!r}")
    if len(runtime) < 2 * args.groups:
        fail(f"{args.valid}: {len(runtime)} configurations are too few for {args.groups} groups")
    graph = os.path.splitext(os.path.basename(args.valid))[0]
    names = [os.path.splitext(os.path.basename(p))[0] for p in args.submissions]
    positions = [read_positions(p, graph, len(runtime)) for p in args.submissions]

    groups = np.array_split(np.random.default_rng(args.seed).permutation(len(runtime)),
                            args.groups)
    per_group = []
    for name, position in zip(names, positions):
        print(f"figure: tau_{name}: {kendall_tau_b(position, runtime):.4f} tau")
        per_group.append(np.array([kendall_tau_b(position[g], runtime[g]) for g in groups]))
    for name, taus in zip(names[1:], per_group[1:]):
        difference = taus - per_group[0]
        error = difference.std(ddof=1) / np.sqrt(len(difference))
        print(f"figure: {name}_minus_{names[0]}_mean: {difference.mean():.4f} tau")
        print(f"figure: {name}_minus_{names[0]}_standard_error: {error:.4f} tau")
        print(f"figure: {name}_wins_over_{names[0]}: {int((difference > 0).sum())} "
              f"of {len(difference)} groups")


if __name__ == "__main__":
    main()
