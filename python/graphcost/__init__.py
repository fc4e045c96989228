"""graphcost from Python: learned cost models that rank compiler configurations.

The C++ core (graphcost._core) with numpy in and out; see docs/python.md.

    import graphcost
    data = graphcost.open("demo-out/data", collection="layout:xla:random", split="valid")
    graphcost.train(data="demo-out/data", collection="layout:xla:random", out="run",
                    iterations=200)
    model = graphcost.load("run")
    scores = model.score(data[0])   # one float per configuration, lower = faster
    order = model.rank(data[0])     # configuration indices, fastest first
"""

import json as _json
import os as _os

from . import _core
from ._core import (Collection, Error, Graph, evaluate_scores, kendall_tau, opa, tile_score,
                    top_k_error)

__all__ = ["Collection", "Error", "Graph", "Model", "evaluate_scores", "graph", "kendall_tau",
           "load", "opa", "open", "tile_score", "top_k_error", "train", "train_defaults"]
__version__ = "0.1.0"


def open(path, collection=None, split=None, *, prune=-1, prune_seeds="all",
         merge_duplicates=False, skip_invalid=False, exclude=(), extended_features=False,
         devices="", device_name=""):
    """Opens anything the CLI reads as a collection of graphs.

    path: a dataset root, collection or split folder, .npz, raw protobuf record (.pb), Kernel
    Tuner cache (.json.gz) or folder of caches, or a pack. collection: an id such as
    "layout:xla:random" (default: the one the path names, else the kind in the files). split:
    default "train" where the path holds splits. Configuration indices are the file's own unless
    merge_duplicates=True (what eval does). Kernel Tuner caches: devices is a device table file
    adding to the built-in one and device_name names a cache whose device_name is empty (the CLI's
    --devices and --device-name). Reading releases the GIL.
    """
    return _core.open(_os.fspath(path), collection, split, prune, prune_seeds, merge_duplicates,
                      skip_invalid, [str(e) for e in exclude], extended_features,
                      _os.fspath(devices), device_name)


_GRAPH_KEYS = ("node_feat", "node_opcode", "edge_index", "node_splits", "node_config_ids",
               "node_config_feat", "config_feat", "config_runtime", "config_runtime_normalizers")


def graph(name="graph", collection=None, **arrays):
    """Builds a graph from numpy arrays keyed as in a TpuGraphs .npz.

    Tile: node_feat, node_opcode, edge_index, config_feat [, config_runtime,
    config_runtime_normalizers]. Layout: node_feat, node_opcode, edge_index, node_config_ids,
    node_config_feat [, config_runtime, node_splits]. The arrays are checked as the .npz reader
    and the loader check a file; a problem is a graphcost.Error "<name>: <key>: <problem>".
    """
    unknown = sorted(set(arrays) - set(_GRAPH_KEYS))
    if unknown:
        raise Error(f"{name}: {unknown[0]}: unknown array (valid: {', '.join(_GRAPH_KEYS)})")
    return _core._graph_from_arrays(name, arrays, collection)


def _arrays(self):
    """The graph's arrays keyed as in a TpuGraphs .npz (graph(**g.arrays()) rebuilds it)."""
    out = {"node_feat": self.node_feat, "node_opcode": self.node_opcode,
           "edge_index": self.edge_index}
    if self.kind == "tile":
        out["config_feat"] = self.config_feat
    else:
        out["node_config_ids"] = self.node_config_ids
        out["node_config_feat"] = self.node_config_feat
        if len(self.node_splits):
            out["node_splits"] = self.node_splits
    if self.runtimes is not None:
        out["config_runtime"] = self.runtimes
    return out


Graph.arrays = _arrays
Collection.__iter__ = lambda self: (self[i] for i in range(len(self)))


class Model:
    """A trained run (neural or XGBoost), or several runs scored as an ensemble.

    Scores are what `graphcost predict` ranks by: predicted costs, lower is faster.
    """

    def __init__(self, core):
        self._core = core

    run_dirs = property(lambda self: self._core.run_dirs)
    collection = property(lambda self: self._core.collection)
    kind = property(lambda self: self._core.kind)

    def __repr__(self):
        return repr(self._core)

    @staticmethod
    def _options(**options):
        # Defaults and checks are the C++ scoring options' (infer/scoring_options.h).
        return _core.ScoreOptions(**options)

    def score(self, target, configs=None, **options):
        """Predicted costs of every configuration of a graph (a float64 array), or of every graph
        of a collection (a list of arrays), computed as predict computes them.

        configs: configuration indices of the graph (1-D integers) to score only those, or new
        configuration features (tile (c, w) floats, layout (c, nc, w) integers) to score instead.
        options: mc_samples, seed, slate_size (256), tta, anchors (-1: as predict), threads
        (0: all cores), as the CLI's flags of those names.
        """
        return self._core._score(target, configs, self._options(**options))

    def rank(self, target, configs=None, **options):
        """Configuration indices fastest first (the order of predict's submission row)."""
        scores = self.score(target, configs, **options)
        if isinstance(scores, list):
            return [_core._rank(s) for s in scores]
        return _core._rank(scores)

    def spread(self, target, configs=None, mc_samples=8, **options):
        """(mean, std) of mc_samples Monte Carlo dropout passes per configuration (std 0 for
        XGBoost runs); a list of such pairs for a collection."""
        if mc_samples < 1:
            raise Error("spread: mc_samples: must be >= 1")
        return self._core._spread(target, configs, self._options(mc_samples=mc_samples, **options))

    def evaluate(self, data, split="valid", collection=None, max_configs=0, devices="",
                 device_name="", **options):
        """What `graphcost eval --json` prints for the same data: the kind's metrics per graph
        and their means (duplicates merged, the run's pruning), as a dict. devices and
        device_name: as open's, for Kernel Tuner caches."""
        return self._core._evaluate(_os.fspath(data), split, collection, max_configs,
                                    self._options(**options), _os.fspath(devices), device_name)


def load(run_dir, ensemble="mean"):
    """Loads a training run folder (model.pt or model.xgb), or a list of them as an ensemble
    (ensemble: "mean" or "rank", as eval's --ensemble)."""
    if isinstance(run_dir, (list, tuple)):
        run_dir = [_os.fspath(d) for d in run_dir]
    else:
        run_dir = _os.fspath(run_dir)
    return Model(_core._load(run_dir, ensemble))


def train_defaults():
    """Every training option with its default, keyed as in a run's config.json."""
    return _core._train_defaults()


def train(data=None, collection=None, out=None, *, resume=False, overwrite=False,
          progress=None, model="auto", **options):
    """Trains a model as `graphcost train` does and writes the run folder `out`.

    model: "auto" (XGBoost on Kernel Tuner records, the neural model otherwise), "gnn" or
    "xgboost" (XGBoost's defaults with the data options, seed and threads; no other option).
    options: any key of config.json (train_defaults() lists them with their defaults), model
    options either top-level (hidden=[64, 64]) or as model={...}. progress(iteration, total,
    metrics) is called after every iteration; metrics is the metrics.jsonl line written then
    (a dict) or None. Ctrl-C (or an exception from progress) stops after the current iteration
    with a checkpoint, then is raised; resume=True continues the run. Returns a dict: model
    ("gnn" or "xgboost"), iterations (XGBoost: its rounds), interrupted, last_loss,
    last_validation, data_wait_fraction, out.
    """
    if out is None:
        raise Error("train: out: no run folder given")
    given = dict(options)
    if data is not None:
        given["data"] = _os.fspath(data)
    if collection is not None:
        given["collection"] = collection
    try:
        text = _json.dumps(given)
    except TypeError as e:
        raise Error(f"train: options: {e}") from None
    return _core._train(text, _os.fspath(out), resume, overwrite, progress, model)
