"""kernel_tuner.tune_cache for the stand-in: replay a cache file with a strategy (a module or
object with tune(searchspace, runner, tuning_options), or "random_sample"), as Kernel Tuner 1.4's
tune_cache does in simulation mode: a plain JSON cache only (tune_kernel(cache=...) appends .json
to any other name, and the file is read as text), the cache's problem_size and kernel_name
required, and the search space the cache's configurations that did not fail (Kernel Tuner's
restriction inferred from the cache drops every record with an error)."""
import os

from kernel_tuner import util
from kernel_tuner.runners.simulation import SimulationRunner
from kernel_tuner.searchspace import Searchspace
from kernel_tuner.strategies import random_sample


def tune_cache(cache_path, restrictions=None, strategy="random_sample", strategy_options=None,
               objective=None, objective_higher_is_better=False, verbose=False, quiet=False):
    """Returns (results, env) as tune_kernel does."""
    if restrictions is not None:
        raise NotImplementedError("the stand-in takes no extra restrictions")
    cache_path = os.fspath(cache_path)
    cache = util.read_cache(cache_path, open_cache=False)
    if isinstance(cache["problem_size"], str):  # a KeyError without one, as in Kernel Tuner
        raise ValueError("Inferring kernel arguments from cache file that used callable for "
                         "problem size is not possible")
    if not cache_path.endswith(".json"):  # tune_kernel's preprocess_cache
        cache_path += ".json"
    if not os.path.isfile(cache_path):
        raise ValueError("Simulation mode requires an existing cachefile: file "
                         f"{cache_path} does not exist")
    objective = objective or "time"
    keys = cache["tune_params_keys"]
    tune_params = cache["tune_params"]
    if list(tune_params) != keys:
        raise ValueError("Cannot load cache which contains results obtained with different "
                         "tunable parameters")
    configs = [tuple(r[k] for k in keys) for r in cache["cache"].values() if "__error__" not in r]
    searchspace = Searchspace(tune_params, configs)
    strategy_options = util.Options(strategy_options or {})
    max_fevals = strategy_options.get("max_fevals")
    if max_fevals is None or max_fevals > searchspace.size:
        max_fevals = searchspace.size
    tuning_options = util.Options(
        tune_params=tune_params, strategy_options=strategy_options, objective=[objective],
        objective_higher_is_better=[objective_higher_is_better], verbose=verbose,
        device_name=cache.get("device_name", ""), cache=cache["cache"])
    tuning_options.cachefile = cache_path  # an attribute, not a key, as in Kernel Tuner
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
