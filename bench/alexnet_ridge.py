#!/usr/bin/python3
"""The simplest baseline of issue 7 on a layout file: ridge regression on one-hot layouts.

Outside graphcost, for reference (numpy and scipy from Debian): one-hot of every configurable
node's layout values (node_config_feat, integers -1..5, flattened), centred, fit to log runtime
by ridge regression for each LAMBDA, then Kendall tau-b of the predictions against the runtimes
of TEST.npz and of TRAIN.npz. An additive model: no interaction between nodes or between a
node's columns. Prints one line per lambda and `figure:` lines. Choosing lambda by these lines
picks it on the test file, which flatters the best one.

usage: bench/alexnet_ridge.py TRAIN.npz TEST.npz [LAMBDA ...]   (default lambdas 0.01 0.1 1)
"""
import sys

from bench_skip import skip

try:
    import numpy as np
    from scipy.stats import kendalltau
except ImportError as e:
    skip("alexnet_ridge", f"{e}; Debian: python3-numpy python3-scipy")

from layout_npz import layout_one_hot

TOOL = "alexnet_ridge"


def load(path):
    try:
        data = np.load(path)
        values, runtimes = data["node_config_feat"], data["config_runtime"].astype(np.float64)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{TOOL}: error: {path}: {e}")
    if (runtimes <= 0).any():
        sys.exit(f"{TOOL}: error: {path}: config_runtime holds a value <= 0")
    return layout_one_hot(values, path, TOOL, np.float64), runtimes


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    x_train, y_train = load(sys.argv[1])
    x_test, y_test = load(sys.argv[2])
    if x_train.shape[1] != x_test.shape[1]:
        sys.exit(f"{TOOL}: error: {sys.argv[2]}: {x_test.shape[1]} one-hot columns, "
                 f"the training file has {x_train.shape[1]} (not the same graph?)")
    lambdas = [float(a) for a in sys.argv[3:]] or [0.01, 0.1, 1.0]
    mean = x_train.mean(0)
    centred = x_train - mean
    target = np.log(y_train) - np.log(y_train).mean()
    gram, moment = centred.T @ centred, centred.T @ target
    print(f"{len(y_train)} training and {len(y_test)} test configurations, "
          f"{x_train.shape[1]} one-hot columns")
    for lam in lambdas:
        weights = np.linalg.solve(gram + lam * np.eye(len(gram)), moment)
        tau = kendalltau((x_test - mean) @ weights, y_test)[0]
        fitted = kendalltau(centred @ weights, y_train)[0]
        print(f"lambda {lam:g}: test tau {tau:.4f}, training-set tau {fitted:.4f}")
        print(f"figure: ridge_test_tau_lambda_{lam:g}: {tau:.4f} tau")


if __name__ == "__main__":
    main()
