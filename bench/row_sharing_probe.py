#!/usr/bin/env python3
"""How many rows one row per class of locally equal configurations leaves (model/forward/config_classes.h).

usage: bench/row_sharing_probe.py SLATE_SIZES FILE.npz [FILE.npz ...]   e.g. 16,64 a.npz

For random slates of a layout .npz file, the per-configuration rows of each change-based layer l
(the nodes within l - 1 hops of a configurable node, one row per configuration) are grouped into
classes of configurations that agree at every configurable node within l - 1 hops; prints the
share of distinct (row, class) entries per layer, averaged over TRIALS slates (environment,
default 2). Independent of graphcost: plain numpy and breadth-first search from the definition.
"""
import os
import sys

from bench_skip import skip

try:
    import numpy as np
except ImportError:
    skip("row_sharing_probe", "this python has no numpy; Debian: python3-numpy")

LAYERS = 4


def neighbours(num_nodes, edges):
    out = [[] for _ in range(num_nodes)]
    for a, b in edges:
        out[a].append(b)
        out[b].append(a)
    return out


def hops(num_nodes, near, sources):
    distance = np.full(num_nodes, np.iinfo(np.int64).max)
    distance[sources] = 0
    frontier, d = list(sources), 0
    while frontier:
        d += 1
        following = []
        for u in frontier:
            for v in near[u]:
                if distance[v] > d:
                    distance[v] = d
                    following.append(v)
        frontier = following
    return distance


def class_ids(columns):
    """columns: [S, k] per configuration; ids equal iff rows equal."""
    return np.unique(columns, axis=0, return_inverse=True)[1].ravel()


def probe(path, slate, trials, rng):
    z = np.load(path)
    num_nodes = len(z["node_opcode"])
    configurable = z["node_config_ids"]
    values = z["node_config_feat"]
    near = neighbours(num_nodes, z["edge_index"])
    distance = hops(num_nodes, near, configurable)
    entries, pairs = np.zeros(LAYERS), np.zeros(LAYERS)
    for _ in range(trials):
        chosen = rng.choice(values.shape[0], size=min(slate, values.shape[0]), replace=False)
        s = len(chosen)
        key = np.zeros((num_nodes, s), dtype=np.int64)
        for position, node in enumerate(configurable):
            key[node] = class_ids(values[chosen, position, :]) + 1
        for layer in range(LAYERS):
            rows = np.where(distance <= layer)[0]  # what layer + 1 multiplies per configuration
            pairs[layer] += len(rows) * s
            entries[layer] += sum(len(np.unique(key[r])) for r in rows)
            following = key.copy()
            for r in np.where(distance <= layer + 1)[0]:
                following[r] = class_ids(np.stack([key[r]] + [key[v] for v in near[r]], 1))
            key = following
    return entries / pairs


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    slates = [int(x) for x in sys.argv[1].split(",")]
    trials = int(os.environ.get("TRIALS", "2"))
    rng = np.random.default_rng(0)
    for path in sys.argv[2:]:
        for slate in slates:
            shares = probe(path, slate, trials, rng)
            name = os.path.basename(path)
            for layer, share in enumerate(shares, 1):
                print(f"figure: {name}: S={slate}: layer {layer} distinct share: {share:.3f} ratio")


if __name__ == "__main__":
    main()
