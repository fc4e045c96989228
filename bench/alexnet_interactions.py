#!/usr/bin/python3
"""Which interactions between configurable nodes carry the AlexNet layout signal?

Outside graphcost, for reference: scikit-learn's histogram gradient boosting (Debian's
python3-sklearn) on a split written by `graphcost split` (train/ and valid/ folders of one .npz
each), with each configurable node's layout (its row of node_config_feat) as one categorical
feature. It fits log runtime with interactions allowed (a) nowhere (an additive model over the
nodes), (b) only among configurable nodes within K hops of each other (edges taken both ways),
(c) anywhere; and, for comparison, the same trees on the raw feature values. Prints Kendall tau
on the split's valid/ file and on its own training file, and `figure:` lines.

usage: bench/alexnet_interactions.py SPLIT_DIR     (e.g. the `graphcost split ... --out alex` folder)
"""
import os
import sys

from bench_skip import skip

try:
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path
    from scipy.stats import kendalltau
    from sklearn.ensemble import HistGradientBoostingRegressor
except ImportError as e:
    skip("alexnet_interactions", f"{e}; Debian: python3-numpy python3-scipy python3-sklearn")

from layout_npz import one_file

TOOL = "alexnet_interactions"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    split = sys.argv[1]
    train, valid = (one_file(os.path.join(split, part), TOOL) for part in ("train", "valid"))
    x_train, x_valid = train["node_config_feat"], valid["node_config_feat"]
    y_train = train["config_runtime"].astype(np.float64)
    y_valid = valid["config_runtime"].astype(np.float64)
    nodes = x_train.shape[1]
    # Category of node k: the index of its layout among the distinct layouts it takes anywhere.
    cat_train = np.empty((len(x_train), nodes), np.int64)
    cat_valid = np.empty((len(x_valid), nodes), np.int64)
    for k in range(nodes):
        both = np.concatenate([x_train[:, k, :], x_valid[:, k, :]])
        codes = np.unique(both, axis=0, return_inverse=True)[1].reshape(-1)
        cat_train[:, k], cat_valid[:, k] = codes[:len(x_train)], codes[len(x_train):]

    edges = train["edge_index"]
    n = len(train["node_opcode"])
    adjacency = csr_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    ids = train["node_config_ids"]
    hops = shortest_path(adjacency, directed=False, unweighted=True)[ids][:, ids]
    print(f"{nodes} configurable nodes; hops between them: median {np.median(hops[np.triu_indices(nodes, 1)]):.0f}, "
          f"largest {hops[np.isfinite(hops)].max():.0f}")

    def fit(name, features_train, features_valid, categorical, constraints):
        model = HistGradientBoostingRegressor(
            max_iter=500, learning_rate=0.1, max_leaf_nodes=15, random_state=0, early_stopping=False,
            categorical_features=list(range(nodes)) if categorical else None,
            interaction_cst=constraints)
        model.fit(features_train, np.log(y_train))
        test = kendalltau(model.predict(features_valid), y_valid).statistic
        fitted = kendalltau(model.predict(features_train), y_train).statistic
        print(f"{name}: test tau {test:.4f}, training-set tau {fitted:.4f}", flush=True)
        return test

    figures = {}
    figures["additive"] = fit("additive (no interactions)", cat_train, cat_valid, True,
                              [[k] for k in range(nodes)])
    for limit in (2, 4, 8):
        figures[f"within_{limit}_hops"] = fit(
            f"interactions within {limit} hops", cat_train, cat_valid, True,
            [list(np.where(hops[k] <= limit)[0]) for k in range(nodes)])
    figures["free"] = fit("interactions anywhere", cat_train, cat_valid, True, None)
    figures["raw_values"] = fit("raw feature values, interactions anywhere",
                                x_train.reshape(len(x_train), -1), x_valid.reshape(len(x_valid), -1),
                                False, None)
    for name, value in figures.items():
        print(f"figure: trees_{name}_tau: {value:.4f} tau")


if __name__ == "__main__":
    main()
