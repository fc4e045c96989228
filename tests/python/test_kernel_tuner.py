"""graphcost.kernel_tuner as a Kernel Tuner strategy, on the stand-in (tests/python/
kernel_tuner_standin) replaying a small cache written here, and on a shared cache when present."""
import gzip
import json

import numpy as np
import pytest

import graphcost
import graphcost.kernel_tuner as gkt
import kernel_tuner
from conftest import shared


@pytest.fixture
def cache(tmp_path):
    """A 2-parameter kernel: 8 x 6 x 2 configurations, a smooth time with one optimum, a few
    failures and a categorical parameter."""
    bx = [16, 32, 64, 128, 256, 512, 1024, 2048]
    ty = [1, 2, 3, 4, 5, 6]
    mode = ["shared", "global"]
    records = {}
    for x in bx:
        for y in ty:
            for m in mode:
                key = f"{x},{y},{m}"
                t = 1.0 + (np.log2(x) - 7) ** 2 + 0.3 * (y - 4) ** 2 + (0.5 if m == "global" else 0)
                record = {"block_size_x": x, "tile_size_y": y, "mode": m, "time": t}
                if x == 2048 and y > 4:
                    record["time"] = "RuntimeFailedConfig"
                records[key] = record
    path = tmp_path / "kernel.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump({"device_name": "Test", "kernel_name": "k", "objective": "time",
                   "tune_params_keys": ["block_size_x", "tile_size_y", "mode"],
                   "tune_params": {"block_size_x": bx, "tile_size_y": ty, "mode": mode},
                   "cache": records}, f)
    return path


def keys(results):
    return [(r["block_size_x"], r["tile_size_y"], r["mode"]) for r in results]


_FEW = {"model": {"initial": 8}, "bo": {"initial": 8}, "neural": {"initial": 8, "train_steps": 20}}


@pytest.mark.parametrize("name", ["model", "neural", "genetic", "random"])
def test_strategy_respects_max_fevals(cache, name):
    strategy = gkt.Strategy(name, batch=4, seed=1, **_FEW.get(name, {}))
    results, env = kernel_tuner.tune_cache(cache, strategy=strategy,
                                           strategy_options={"max_fevals": 30})
    assert len(results) == 30 and len(set(keys(results))) == 30
    assert env["simulation"]
    assert any("__error__" not in r for r in results)


def test_module_is_a_strategy_and_reads_strategy_options(cache):
    opts = {"max_fevals": 20, "strategy": "neural", "seed": 3, "batch": 5, "initial": 10,
            "train_steps": 10}
    a, _ = kernel_tuner.tune_cache(cache, strategy=gkt, strategy_options=opts)
    b, _ = kernel_tuner.tune_cache(cache, strategy=gkt, strategy_options=opts)
    assert keys(a) == keys(b) and len(a) == 20  # a seeded search repeats itself


def test_whole_space_ends_without_a_budget(cache):
    results, _ = kernel_tuner.tune_cache(cache, strategy=gkt.Strategy("random", seed=0))
    assert len(results) == 96
    best = min(r["time"] for r in results if "__error__" not in r)
    assert best == 1.0


def test_time_limit_stops_the_search(cache):
    strategy = gkt.Strategy("neural", batch=1, seed=0, initial=2, train_steps=200)
    results, _ = kernel_tuner.tune_cache(cache, strategy=strategy,
                                         strategy_options={"time_limit": 0.05})
    assert 1 <= len(results) < 96


def test_failed_configurations_are_failures(cache):
    results, _ = kernel_tuner.tune_cache(cache, strategy=gkt.Strategy("random", seed=0))
    failed = [r for r in results if "__error__" in r]
    assert len(failed) == 4 and all(r["block_size_x"] == 2048 for r in failed)


def test_encoding():
    features, levels, names, labels, ordered = gkt.encode_space(
        {"b": [64, 16, 32], "s": [3, 1], "m": ["x", "y"]}, [(16, 3, "y"), (64, 1, "x")])
    np.testing.assert_array_equal(features, [[4, 3, 0, 1], [6, 1, 1, 0]])
    np.testing.assert_array_equal(levels, [[0, 1, 1], [2, 0, 0]])
    assert labels == [["16", "32", "64"], ["1", "3"], ["x", "y"]] and ordered == [True, True, False]


def test_errors(cache):
    with pytest.raises(graphcost.Error, match=r"strategy: unknown strategy 'annealing' \(valid: random, genetic, bo, model, neural\)"):
        kernel_tuner.tune_cache(cache, strategy=gkt.Strategy("annealing"))
    with pytest.raises(graphcost.Error, match=r"^strategy_options: popsize: unknown option for strategy genetic"):
        kernel_tuner.tune_cache(cache, strategy=gkt,
                                strategy_options={"strategy": "genetic", "popsize": 3})


def test_on_a_shared_cache():
    path = shared("kernel_tuner", "convolution", "A4000.json.gz")
    results, _ = kernel_tuner.tune_cache(path, strategy=gkt.Strategy("model", seed=0),
                                         strategy_options={"max_fevals": 40})
    assert len(results) == 40


def test_prior_from_other_devices_caches():
    """strategy option pretrained: the kernel's caches on other devices train a prior (the target
    device's own cache in the folder is left out by its name)."""
    path = shared("kernel_tuner", "convolution", "A4000.json.gz")
    strategy = gkt.Strategy("model", seed=0, batch=5, initial=5, pretrained=str(path.parent))
    results, _ = kernel_tuner.tune_cache(path, strategy=strategy,
                                         strategy_options={"max_fevals": 20})
    assert len(results) == 20 and len(set(map(str, results))) == 20
    with pytest.raises(graphcost.Error, match="nowhere"):
        kernel_tuner.tune_cache(path, strategy=gkt.Strategy("model", pretrained="/nowhere"),
                                strategy_options={"max_fevals": 5})
