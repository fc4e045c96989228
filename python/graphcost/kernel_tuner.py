"""graphcost's search strategies inside Kernel Tuner.

Kernel Tuner (matched against release 1.4.0, kernel_tuner/strategies/*.py and
interface.tune_kernel at commit 96a6abc of github.com/KernelTuner/kernel_tuner) accepts as a
strategy any object with tune(searchspace, runner, tuning_options); this module is one, and so is
a Strategy instance:

    import kernel_tuner, graphcost.kernel_tuner
    kernel_tuner.tune_kernel(..., strategy=graphcost.kernel_tuner,
                             strategy_options={"max_fevals": 200, "strategy": "model"})
    kernel_tuner.tune_kernel(..., strategy=graphcost.kernel_tuner.Strategy("model", batch=5))

The search is graphcost's (src/tune, the campaign loop of `graphcost tune`): by default "model",
graphcost's model-guided search (bagged gradient-boosted trees fitted to what has been measured,
proposing by expected improvement, with a prior trained on other devices' caches of the same
kernel: by default those beside the cache Kernel Tuner uses, see caches_at_hand; strategy option
pretrained=PATH names others, pretrained="none" turns it off); "neural" is a small ranker with MC dropout. Every measurement goes through Kernel
Tuner's CostFunc and runner, so its cache, budget (max_fevals) and time limit apply; when either
is spent Kernel Tuner raises StopCriterionReached, which ends the search, and tune returns the
CostFunc's results as Kernel Tuner's strategies do.

Kernel Tuner reads plain JSON caches only (not .json.gz); write_plain_cache writes one from any
cache graphcost reads. docs/kernel-tuner.md, "Inside Kernel Tuner", says what a replay needs.
"""

import gzip
import json
import math
import os
import sys
import tempfile

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
    configurations proposed per round (None: the strategy's default, graphcost._core.
    default_batch: 5 for model/bo, 10 for the others). seed: the search's seed (None: drawn from numpy's global
    generator, which Kernel Tuner's own strategies use). options: the strategy's options, as
    `graphcost tune`'s flags without dashes (model/bo: initial, members, rounds, max_depth,
    calibrate, parents, crossovers, random_candidates, explore, warp, threads, pretrained (a Kernel
    Tuner cache or folder of the kernel on other devices; default "auto": the caches beside
    Kernel Tuner's cache file, caches_at_hand; "none": no prior), devices, device (the target device's
    name; default: Kernel Tuner's), split; neural: initial, hidden, dropout, train_steps, lr,
    slate_size, mc_samples, kappa, pretrained (a run folder); genetic: population, tournament,
    mutation). strategy_options given to Kernel Tuner override these, keyed the same."""

    def __init__(self, strategy="model", batch=None, seed=None, node_feat=None, **options):
        self.settings = dict(strategy=strategy, batch=batch, seed=seed, node_feat=node_feat)
        self.options = dict(options)
        # The last search, also when Kernel Tuner's budget or time limit ended it: a dict of
        # "measurements" ((configuration index in searchspace.list, failed, time) in the order
        # measured; time 0.0 when failed), "best_so_far" (the best time after each measurement,
        # inf until one succeeds), "failed" (how many failed) and "stopped": the message of the
        # StopCriterionReached that ended it ("max_fevals (200) reached", "time limit exceeded"),
        # or None when graphcost's campaign ended first. Kernel Tuner's max_fevals is at most the
        # space's size, so a search of the whole space ends with "max_fevals (size) reached".
        self.last_search = None

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
        bo = settings["strategy"] in ("model", "bo")
        if bo and "device" not in options:
            # The prior leaves the target's own device out of the sources and looks up its
            # properties by this name.
            device = getattr(getattr(runner, "dev", None), "name", None) \
                or tuning_options.get("device_name")
            if device:
                options["device"] = str(device)
        prior_files = []
        if bo and options.get("pretrained", "auto") == "auto":
            # Kernel Tuner sets cachefile as an attribute of its options dict, not a key.
            cachefile = getattr(tuning_options, "cachefile", None) \
                or tuning_options.get("cachefile")
            prior_files = caches_at_hand(cachefile,
                                         list(searchspace.tune_params), options.get("device"))
        if options.get("pretrained") in ("auto", "none", None, False, ""):
            options.pop("pretrained", None)
        configs = list(searchspace.list)
        features, levels, names, labels, ordered = encode_space(searchspace.tune_params, configs)
        budget = len(configs)
        limit = getattr(tuning_options.get("budget"), "max_fevals", None)
        if limit is None:
            limit = tuning_options.get("max_fevals")
        if limit is not None:
            budget = min(budget, int(limit))
        cost_func = CostFunc(searchspace, tuning_options, runner)
        measured = []  # (index, failed, time) as graphcost records them, kept here as well

        def measure(j):
            done = len(cost_func.results)
            try:
                cost = cost_func(configs[j], check_restrictions=False)
            except Exception as e:
                # CostFunc checks the budget again after measuring: the measurement that spends
                # it is in its results, but its cost never returns. It belongs to the record.
                if type(e).__name__ == "StopCriterionReached" and len(cost_func.results) > done:
                    from kernel_tuner.util import get_result_cost
                    cost = get_result_cost(cost_func.results[-1], tuning_options.objective,
                                           tuning_options.objective_higher_is_better)[0]
                    time = _time_of(cost)
                    measured.append((j, time is None, 0.0 if time is None else time))
                raise
            time = _time_of(cost)
            measured.append((j, time is None, 0.0 if time is None else time))
            return time

        self.last_search = None
        with tempfile.TemporaryDirectory(prefix="graphcost-prior-") as folder:
            if prior_files:
                # The caches at hand, linked into one folder: the prior's source.
                for k, path in enumerate(prior_files):
                    name = os.path.basename(path)
                    os.symlink(os.path.abspath(path), os.path.join(folder, f"{k}-{name}"))
                options["pretrained"] = folder
            try:
                self.last_search = _core._run_search(
                    features, levels, names, labels, ordered, measure, budget,
                    int(settings["batch"] or _core.default_batch(settings["strategy"])), seed,
                    settings["strategy"], json.dumps(options),
                    settings["node_feat"])
                self.last_search["stopped"] = None
            except Exception as e:  # Kernel Tuner's StopCriterionReached: budget or time spent
                if type(e).__name__ != "StopCriterionReached":
                    raise
                if tuning_options.get("verbose"):
                    print(e)
                # The campaign did not return: its record is the measurements made before it.
                self.last_search = _search_record(measured, str(e))
        if bo:  # the prior's source: the caches at hand, pretrained=PATH, or None
            self.last_search["prior"] = prior_files or options.get("pretrained")
        return cost_func.results


def _search_record(measured, stopped):
    """last_search for measurements (index, failed, time) that a stop cut short."""
    best, best_so_far = math.inf, []
    for _, failed, time in measured:
        if not failed:
            best = min(best, time)
        best_so_far.append(best)
    return {"measurements": list(measured), "best_so_far": best_so_far,
            "failed": sum(1 for _, failed, _ in measured if failed), "stopped": stopped}


def _letters_and_digits(text):
    return "".join(c for c in str(text).lower() if c.isalnum())


def caches_at_hand(cachefile, tune_params_keys, device=None):
    """The prior the model-guided search takes by default (strategy option pretrained="auto"):
    the Kernel Tuner caches beside `cachefile` (the cache Kernel Tuner replays or writes; .json
    or .json.gz) of the same kernel (kernel_name and tune_params_keys) on other devices. The
    target's own device (the cache's device_name, or `device` where Kernel Tuner names one) is
    never among them, nor is a file that is not a readable cache. Returns their paths, sorted;
    [] when there is no cachefile or nothing beside it."""
    if not cachefile or not os.path.isfile(cachefile):
        return []
    try:
        target = read_cache_json(cachefile)
    except _core.Error:
        return []
    names = {_letters_and_digits(target.get("device_name", ""))}
    if device and device != "Simulation":  # Kernel Tuner's name for a device it simulates
        names.add(_letters_and_digits(device))
    names.discard("")
    folder = os.path.dirname(os.path.abspath(cachefile))
    found = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not name.endswith((".json", ".json.gz")) or not os.path.isfile(path) \
                or os.path.samefile(path, cachefile):
            continue
        try:
            other = read_cache_json(path)
        except _core.Error:
            continue
        device_name = _letters_and_digits(other.get("device_name", ""))
        if other.get("kernel_name") != target.get("kernel_name") \
                or list(other.get("tune_params_keys", [])) != list(tune_params_keys) \
                or not device_name or device_name in names or not other["cache"]:
            continue
        found.append(path)
    return found


def read_cache_json(path):
    """The JSON object of a Kernel Tuner cache file, plain (.json) or gzip-compressed
    (.json.gz, told by its first bytes); an unreadable file is a graphcost.Error naming it."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        cache = json.loads(data.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as e:
        raise _core.Error(f"{path}: {e}") from None
    if not isinstance(cache, dict) or not isinstance(cache.get("cache"), dict):
        raise _core.Error(f"{path}: cache: missing (not a Kernel Tuner cache)")
    return cache


def write_plain_cache(source, destination):
    """Writes the Kernel Tuner cache `source` (.json or .json.gz) as a plain JSON cache file at
    `destination`, the form Kernel Tuner's tune_kernel(cache=...) and tune_cache read. If
    destination is a folder, the file is written into it under source's name without .gz.
    Returns the path written. The file appears whole or not at all (written beside it, then
    renamed). Kernel Tuner wants the name to end in .json (tune_kernel appends .json otherwise)."""
    source = os.fspath(source)
    destination = os.fspath(destination)
    if os.path.isdir(destination):
        name = os.path.basename(source)
        destination = os.path.join(destination, name[:-3] if name.endswith(".gz") else name)
    if not destination.endswith(".json"):
        raise _core.Error(f"{destination}: a Kernel Tuner cache's name must end in .json")
    if os.path.exists(destination) and os.path.samefile(source, destination):
        raise _core.Error(f"{destination}: is the source itself")
    cache = read_cache_json(source)
    if not cache["cache"]:
        raise _core.Error(f"{source}: cache: no records")
    # Kernel Tuner takes a file that does not end in "}}}" (or "}\n}") for one cut short by a
    # crash and appends brackets to it: the records go last, so the file ends in "}}}".
    cache = {**{k: v for k, v in cache.items() if k != "cache"}, "cache": cache["cache"]}
    folder = os.path.dirname(os.path.abspath(destination))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".plain-cache-", suffix=".json")
    try:
        with os.fdopen(handle, "w") as f:
            json.dump(cache, f)
        os.replace(temporary, destination)
    except BaseException:
        os.unlink(temporary)
        raise
    return destination


def tune(searchspace, runner, tuning_options):
    """Kernel Tuner's strategy entry point, with the default Strategy (the model-guided search);
    strategy_options may set strategy, batch, seed and the strategy's options."""
    return Strategy().tune(searchspace, runner, tuning_options)


def main(argv=None):
    """python3 -m graphcost.kernel_tuner plain-cache SOURCE DESTINATION: write_plain_cache."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] != "plain-cache":
        print("usage: python3 -m graphcost.kernel_tuner plain-cache SOURCE DESTINATION\n"
              "  writes the Kernel Tuner cache SOURCE (.json or .json.gz) as the plain JSON cache\n"
              "  Kernel Tuner reads, at DESTINATION (a NAME.json or a folder)", file=sys.stderr)
        return 2
    try:
        print(write_plain_cache(argv[1], argv[2]))
    except _core.Error as e:
        print(f"graphcost: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
