#!/usr/bin/python3
"""Does the AlexNet GNN stop at 0.84 because of its graph layers, or because of the data?

Outside graphcost, for reference: a plain MLP (Debian's python3-torch) that never sees the graph.
Its input is the one-hot of every configurable node's layout values (node_config_feat, values -1
to 5, flattened), two hidden layers of WIDTH with leaky ReLU, one score; trained with ListMLE on
random slates of S configurations of the split's train/ file (Adam, lr 1e-3, ITERATIONS steps),
then scored by Kendall tau on valid/ and on its own training file. With a single graph the
graph's structure is a constant, so this model class contains every function the GNN can learn;
what it lacks is only the GNN's bias towards interactions between nearby nodes.

It trains with slates of 16, 64, 256 and 1024 configurations for SEEDS seeds each: the slate
size sets how hard the model fits its training set. Prints one line per run, a table (mean and
sample standard deviation over the seeds), and `figure:` lines.

usage: bench/alexnet_flat_mlp.py SPLIT_DIR [SEEDS [ITERATIONS [WIDTH]]]
       (SPLIT_DIR: `graphcost split ... --out DIR`; defaults 3 seeds, 5000 iterations, width 512)
"""
import os
import sys
import time

from bench_skip import skip

try:
    import numpy as np
    import torch
    from scipy.stats import kendalltau
except ImportError as e:
    skip("alexnet_flat_mlp", f"{e}; Debian: python3-numpy python3-scipy python3-torch")

from layout_npz import layout_one_hot, one_file

TOOL = "alexnet_flat_mlp"
SLATES = (16, 64, 256, 1024)


def list_mle(scores, runtimes):
    """Negative Plackett-Luce log-likelihood of the measured order; higher score = faster."""
    s = scores[torch.argsort(runtimes, stable=True)]
    return (torch.logcumsumexp(s.flip(0), 0).flip(0) - s).sum()


def train_one(x, y, slate, seed, iterations, width):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], width), torch.nn.LeakyReLU(),
        torch.nn.Linear(width, width), torch.nn.LeakyReLU(),
        torch.nn.Linear(width, 1))
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(iterations):
        batch = torch.randperm(len(y), generator=generator)[:slate]
        loss = list_mle(model(x[batch]).squeeze(-1), y[batch])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return model


def tau(model, x, y):
    with torch.no_grad():
        scores = model(x).squeeze(-1).numpy()
    return kendalltau(-scores, y.numpy())[0]  # a higher score predicts a shorter runtime


def main():
    if not 2 <= len(sys.argv) <= 5:
        sys.exit(__doc__.strip().splitlines()[-2].strip())
    split = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 512
    torch.set_num_threads(int(os.environ.get("THREADS", os.cpu_count() or 1)))
    files = {}
    for part in ("train", "valid"):
        folder = os.path.join(split, part)
        data = one_file(folder, TOOL)
        files[part] = (torch.from_numpy(layout_one_hot(data["node_config_feat"], folder, TOOL)),
                       torch.from_numpy(data["config_runtime"].astype(np.float64)))
    x_train, y_train = files["train"]
    x_valid, y_valid = files["valid"]
    print(f"{len(y_train)} training and {len(y_valid)} test configurations, "
          f"{x_train.shape[1]} one-hot inputs; {iterations} iterations, width {width}")
    rows = []
    for slate in SLATES:
        tests, trains = [], []
        for seed in range(seeds):
            start = time.time()
            model = train_one(x_train, y_train, slate, seed, iterations, width)
            tests.append(tau(model, x_valid, y_valid))
            trains.append(tau(model, x_train, y_train))
            print(f"slate {slate}, seed {seed}: test tau {tests[-1]:.4f}, "
                  f"training-set tau {trains[-1]:.4f} ({time.time() - start:.0f} s)", flush=True)
        rows.append((slate, np.mean(tests), np.std(tests, ddof=1) if seeds > 1 else 0.0,
                     np.mean(trains)))
    print()
    print("| slate size | test tau (mean ± sd) | training-set tau |")
    print("|---|---|---|")
    for slate, mean, sd, fit in rows:
        print(f"| {slate} | {mean:.4f} ± {sd:.4f} | {fit:.4f} |")
    print()
    for slate, mean, sd, fit in rows:
        print(f"figure: flat_mlp_test_tau_slate_{slate}: {mean:.4f} tau")
        print(f"figure: flat_mlp_train_tau_slate_{slate}: {fit:.4f} tau")


if __name__ == "__main__":
    main()
