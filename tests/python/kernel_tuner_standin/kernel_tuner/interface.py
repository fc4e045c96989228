"""kernel_tuner.tune_cache for the stand-in: replay a cache file with a strategy (a module or
object with tune(searchspace, runner, tuning_options), or "random_sample")."""
import gzip
import json

from kernel_tuner import util
from kernel_tuner.runners.simulation import SimulationRunner
from kernel_tuner.searchspace import Searchspace
from kernel_tuner.strategies import random_sample

_ERRORS = {"RuntimeFailedConfig": util.RuntimeFailedConfig,
           "CompilationFailedConfig": util.CompilationFailedConfig,
           "InvalidConfig": util.InvalidConfig}


def read_cache(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        cache = json.load(f)
    for record in cache["cache"].values():
        value = record.get(cache.get("objective", "time"))
        if isinstance(value, str):
            record["__error__"] = _ERRORS.get(value, util.RuntimeFailedConfig)()
    return cache


def tune_cache(cache_path, strategy="random_sample", strategy_options=None, objective=None,
               objective_higher_is_better=False, verbose=False):
    """Returns (results, env) as tune_kernel does. The search space is the cache's measured
    configurations (Kernel Tuner infers its restrictions from the cache the same way)."""
    cache = read_cache(cache_path)
    objective = objective or cache.get("objective", "time")
    keys = cache["tune_params_keys"]
    tune_params = {k: cache["tune_params"][k] for k in keys}
    configs = [tuple(r[k] for k in keys) for r in cache["cache"].values()]
    searchspace = Searchspace(tune_params, configs)
    strategy_options = util.Options(strategy_options or {})
    max_fevals = strategy_options.get("max_fevals")
    if max_fevals is None or max_fevals > searchspace.size:
        max_fevals = searchspace.size
    tuning_options = util.Options(
        tune_params=tune_params, strategy_options=strategy_options, objective=[objective],
        objective_higher_is_better=[objective_higher_is_better], verbose=verbose,
        device_name=cache.get("device_name", ""))
    if "max_fevals" in strategy_options:
        tuning_options["max_fevals"] = strategy_options["max_fevals"]
    if "time_limit" in strategy_options:
        tuning_options["time_limit"] = strategy_options["time_limit"]
    tuning_options["budget"] = util.TuningBudget(strategy_options.get("time_limit"), max_fevals)
    if strategy == "random_sample":
        strategy = random_sample
    elif not callable(getattr(strategy, "tune", None)):
        raise ValueError(f"Unkown strategy {strategy}")
    runner = SimulationRunner(cache["cache"])
    results = strategy.tune(searchspace, runner, tuning_options)
    return results, runner.get_environment(tuning_options)
