"""graphcost's search strategies inside Kernel Tuner.

Kernel Tuner (matched against release 1.4.0, kernel_tuner/strategies/*.py and
interface.tune_kernel at commit 96a6abc of github.com/KernelTuner/kernel_tuner) accepts as a
strategy any object with tune(searchspace, runner, tuning_options); this module is one, and so is
a Strategy instance:

    import kernel_tuner, graphcost.kernel_tuner
    kernel_tuner.tune_kernel(..., strategy=graphcost.kernel_tuner,
                             strategy_options={"max_fevals": 200, "strategy": "model"})
    kernel_tuner.tune_kernel(..., strategy=graphcost.kernel_tuner.Strategy("model", batch=10))

The search is graphcost's (src/tune, the campaign loop of `graphcost tune`): by default "model",
graphcost's model-guided search (bagged gradient-boosted trees fitted to what has been measured,
proposing by expected improvement; optionally with a prior trained on other devices' caches of
the same kernel, strategy option pretrained=PATH); "neural" is a small ranker with MC dropout. Every measurement goes through Kernel
Tuner's CostFunc and runner, so its cache, budget (max_fevals) and time limit apply; when either
is spent Kernel Tuner raises StopCriterionReached, which ends the search, and tune returns the
CostFunc's results as Kernel Tuner's strategies do.
"""

import json
import math
import sys

import numpy as np

from . import _core

# strategy_options keys that are Kernel Tuner's own, not the strategy's.
_KERNEL_TUNER_OPTIONS = ("max_fevals", "time_limit", "x0", "searchspace_construction_options",
                         "constraint_aware")
# Options of this module rather than of the graphcost strategy it runs.
_OWN_OPTIONS = ("strategy", "batch", "seed", "node_feat")


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _is_power_of_two(v):
    return float(v).is_integer() and v > 0 and (int(v) & (int(v) - 1)) == 0


def encode_space(tune_params, configs):
    """The search space as graphcost sees a Kernel Tuner cache (docs/kernel-tuner.md): per
    parameter one column, log2(v) when every value is a positive power of two, else v; a
    parameter with non-numeric values one one-hot column per value. Returns (features float32
    (n, columns), levels int32 (n, parameters), names, labels, ordered)."""
    names = list(tune_params)
    n = len(configs)
    levels = np.zeros((n, len(names)), dtype=np.int32)
    columns, labels, ordered = [], [], []
    for k, name in enumerate(names):
        values = list(tune_params[name])
        numeric = all(_is_number(v) for v in values)
        if numeric:
            order = sorted(range(len(values)), key=lambda i: values[i])
        else:
            order = list(range(len(values)))
        level_of = {values[i]: level for level, i in enumerate(order)}
        try:
            level = np.array([level_of[c[k]] for c in configs], dtype=np.int32)
        except KeyError as e:
            raise _core.Error(f"searchspace: {name}: value {e.args[0]!r} is not in tune_params")
        levels[:, k] = level
        labels.append([str(values[i]) for i in order])
        ordered.append(numeric)
        if numeric:
            raw = np.array([float(c[k]) for c in configs])
            log2 = all(_is_power_of_two(v) for v in values)
            columns.append((np.log2(raw) if log2 else raw)[:, None])
        else:
            columns.append(np.eye(len(values))[level])
    features = np.hstack(columns).astype(np.float32) if columns else np.zeros((n, 0), np.float32)
    return features, levels, names, labels, ordered


def _time_of(cost):
    """Kernel Tuner's cost as a graphcost time (positive, lower is better), None when failed."""
    if isinstance(cost, (list, tuple)):
        raise _core.Error("graphcost.kernel_tuner: objective: one objective only "
                          f"(got {len(cost)})")
    cost = float(cost)
    if cost >= sys.float_info.max or not math.isfinite(cost) or cost == 0:
        return None
    # A maximised objective arrives negated (-GFLOP/s); 1 / value keeps its order, positive.
    return cost if cost > 0 else -1.0 / cost


class Strategy:
    """A Kernel Tuner strategy running graphcost's search `strategy` (graphcost._core.strategies:
    "model" (default; the same as "bo"), "genetic", "random", "neural") with `batch`
    configurations proposed per round. seed: the search's seed (None: drawn from numpy's global
    generator, which Kernel Tuner's own strategies use). options: the strategy's options, as
    `graphcost tune`'s flags without dashes (model/bo: initial, members, rounds, max_depth,
    calibrate, parents, crossovers, random_candidates, explore, threads, pretrained (a Kernel
    Tuner cache or folder of the kernel on other devices), devices, device (the target device's
    name; default: Kernel Tuner's), split; neural: initial, hidden, dropout, train_steps, lr,
    slate_size, mc_samples, kappa, pretrained (a run folder); genetic: population, tournament,
    mutation). strategy_options given to Kernel Tuner override these, keyed the same."""

    def __init__(self, strategy="model", batch=10, seed=None, node_feat=None, **options):
        self.settings = dict(strategy=strategy, batch=batch, seed=seed, node_feat=node_feat)
        self.options = dict(options)
        self.last_search = None  # the last search's measurements, as graphcost recorded them

    def tune(self, searchspace, runner, tuning_options):
        # Kernel Tuner's own CostFunc: its runner, cache, budget and time limit.
        from kernel_tuner.strategies.common import CostFunc

        settings = dict(self.settings)
        options = dict(self.options)
        for key, value in dict(tuning_options.strategy_options or {}).items():
            if key in _KERNEL_TUNER_OPTIONS:
                continue
            (settings if key in _OWN_OPTIONS else options)[key] = value
        seed = settings["seed"]
        if seed is None:
            seed = int(np.random.randint(0, 2**31 - 1))
        if options.get("pretrained") and settings["strategy"] in ("model", "bo") \
                and "device" not in options:
            # The prior leaves the target's own device out of the sources and looks up its
            # properties by this name.
            device = getattr(getattr(runner, "dev", None), "name", None) \
                or tuning_options.get("device_name")
            if device:
                options["device"] = str(device)
        configs = list(searchspace.list)
        features, levels, names, labels, ordered = encode_space(searchspace.tune_params, configs)
        budget = len(configs)
        limit = getattr(tuning_options.get("budget"), "max_fevals", None)
        if limit is None:
            limit = tuning_options.get("max_fevals")
        if limit is not None:
            budget = min(budget, int(limit))
        cost_func = CostFunc(searchspace, tuning_options, runner)

        def measure(j):
            return _time_of(cost_func(configs[j], check_restrictions=False))

        try:
            self.last_search = _core._run_search(
                features, levels, names, labels, ordered, measure, budget, int(settings["batch"]),
                seed, settings["strategy"], json.dumps(options), settings["node_feat"])
        except Exception as e:  # Kernel Tuner's StopCriterionReached: budget or time spent
            if type(e).__name__ != "StopCriterionReached":
                raise
            if tuning_options.get("verbose"):
                print(e)
        return cost_func.results


def tune(searchspace, runner, tuning_options):
    """Kernel Tuner's strategy entry point, with the default Strategy (the model-guided search);
    strategy_options may set strategy, batch, seed and the strategy's options."""
    return Strategy().tune(searchspace, runner, tuning_options)
