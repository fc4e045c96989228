"""Checks of graphcost.kernel_tuner inside a real Kernel Tuner, run by test_kernel_tuner_real.py
in a separate interpreter whose path holds the Kernel Tuner checkout instead of the stand-in.

usage: real_kernel_tuner_checks.py CHECK WORK_DIR SHARED_DATA_DIR
Exits 0 when CHECK holds; an assertion names what did not."""
import ast
import json
import os
import sys

import kernel_tuner
import graphcost.kernel_tuner as gkt
from test_kernel_tuner import kernel_cache


class Spy(gkt.Strategy):
    """Remembers the size of the search space Kernel Tuner hands to the strategy."""

    def tune(self, searchspace, runner, tuning_options):
        self.space_size = searchspace.size
        return super().tune(searchspace, runner, tuning_options)


def plain_kernel_cache(work):
    path = os.path.join(work, "kernel.json")
    with open(path, "w") as f:
        json.dump(kernel_cache(), f)
    return path


def check_tune_cache(work, shared):
    """tune_cache: the space is the cache's configurations that did not fail (96 - 4); the budget
    ends the search and last_search says so."""
    strategy = Spy("model", batch=4, seed=1, initial=8)
    results, env = kernel_tuner.tune_cache(plain_kernel_cache(work), strategy=strategy,
                                           strategy_options={"max_fevals": 20}, quiet=True)
    assert env["simulation"] and strategy.space_size == 92, strategy.space_size
    assert len(results) == 20 and all("__error__" not in r for r in results), results
    assert strategy.last_search["stopped"] == "max_fevals (20) reached", strategy.last_search
    assert len(strategy.last_search["measurements"]) == 20


def check_gzip_refused(work, shared):
    """Kernel Tuner does not read a .json.gz cache: tune_cache fails decoding it, tune_kernel looks
    for NAME.json.gz.json."""
    import gzip
    path = os.path.join(work, "kernel.json.gz")
    with gzip.open(path, "wt") as f:
        json.dump(kernel_cache(), f)
    try:
        kernel_tuner.tune_cache(path, strategy=gkt.Strategy("random", seed=0), quiet=True)
        raise AssertionError("tune_cache read a .json.gz cache")
    except UnicodeDecodeError:
        pass
    cache = kernel_cache()
    try:
        kernel_tuner.tune_kernel(cache["kernel_name"], "", tuple(cache["problem_size"]), [],
                                 cache["tune_params"], cache=path, simulation_mode=True,
                                 strategy=gkt.Strategy("random", seed=0), quiet=True)
        raise AssertionError("tune_kernel read a .json.gz cache")
    except ValueError as e:
        assert "kernel.json.gz.json does not exist" in str(e), e


def check_tune_kernel(work, shared):
    """tune_kernel(cache=..., simulation_mode=True) with the cache's problem_size: every
    configuration of tune_params is in this cache, failed ones too, and those are failures."""
    cache = kernel_cache()
    strategy = Spy("random", seed=0)
    results, _ = kernel_tuner.tune_kernel(
        cache["kernel_name"], "", tuple(cache["problem_size"]), [], cache["tune_params"],
        cache=plain_kernel_cache(work), simulation_mode=True, strategy=strategy, quiet=True)
    assert strategy.space_size == 96 and len(results) == 96
    assert sum("__error__" in r for r in results) == 4
    assert strategy.last_search["failed"] == 4
    assert strategy.last_search["stopped"] == "max_fevals (96) reached"
    try:  # another problem size: Kernel Tuner refuses the cache
        kernel_tuner.tune_kernel(cache["kernel_name"], "", (2048,), [], cache["tune_params"],
                                 cache=plain_kernel_cache(work), simulation_mode=True,
                                 strategy=strategy, quiet=True)
        raise AssertionError("a cache of another problem size was replayed")
    except ValueError:
        pass


def check_shared_convolution(work, shared):
    """The A100 convolution cache: tune_cache's space is its 4,201 configurations that did not
    fail; tune_kernel with space.json's conditions as restrictions is all 4,362, failed ones
    measured as failures."""
    folder = os.path.join(shared, "kernel_tuner", "convolution")
    path = gkt.write_plain_cache(os.path.join(folder, "A100.json.gz"), work)
    strategy = Spy("model", seed=0)
    results, _ = kernel_tuner.tune_cache(path, strategy=strategy,
                                         strategy_options={"max_fevals": 30}, quiet=True)
    assert strategy.space_size == 4201 and len(results) == 30
    with open(os.path.join(folder, "space.json")) as f:
        space = json.load(f)["ConfigurationSpace"]
    tune_params = {p["Name"]: ast.literal_eval(p["Values"]) for p in space["TuningParameters"]}
    restrictions = [c["Expression"] for c in space["Conditions"]]
    strategy = Spy("random", seed=0)
    results, _ = kernel_tuner.tune_kernel(
        "convolution_kernel", "", (4096, 4096), [], tune_params, restrictions=restrictions,
        cache=path, simulation_mode=True, strategy=strategy, quiet=True)
    assert strategy.space_size == 4362 and len(results) == 4362
    assert sum("__error__" in r for r in results) == 161 == strategy.last_search["failed"]



def check_default_prior(work, shared):
    """tune_kernel keeps its cache file's name as an attribute of its options (not a key): the
    default strategy finds the other device's cache beside it and takes it as its prior."""
    folder = os.path.join(shared, "kernel_tuner", "convolution")
    target = gkt.write_plain_cache(os.path.join(folder, "A4000.json.gz"), work)
    other = gkt.write_plain_cache(os.path.join(folder, "A100.json.gz"), work)
    with open(os.path.join(folder, "space.json")) as f:
        space = json.load(f)["ConfigurationSpace"]
    tune_params = {p["Name"]: ast.literal_eval(p["Values"]) for p in space["TuningParameters"]}
    restrictions = [c["Expression"] for c in space["Conditions"]]
    strategy = gkt.Strategy(seed=0)
    kernel_tuner.tune_kernel(
        "convolution_kernel", "", (4096, 4096), [], tune_params, restrictions=restrictions,
        cache=target, simulation_mode=True, strategy=strategy,
        strategy_options={"max_fevals": 5}, quiet=True)
    assert strategy.last_search["prior"] == [other], strategy.last_search["prior"]


if __name__ == "__main__":
    name, work, shared = sys.argv[1:4]
    assert "standin" not in kernel_tuner.__version__, "the stand-in was imported, not Kernel Tuner"
    globals()["check_" + name](work, shared)
    print(f"{name}: ok (Kernel Tuner {kernel_tuner.__version__} at "
          f"{os.path.dirname(kernel_tuner.__file__)})")
