"""graphcost.load and scoring: the same scores (so the same rankings) as predict and the same
metrics as eval, MC dropout spreads, the metric functions, and errors."""
import json

import numpy as np
import pytest

import graphcost
from conftest import THREADS, TRAIN_FAST, cli, cli_error, read_submission


@pytest.mark.parametrize("which", ["layout", "tile"])
def test_rank_equals_predicts_submission(root, layout_run, tile_run, tmp_path, which):
    run, collection = (layout_run, "layout:xla:random") if which == "layout" else (tile_run, "tile:xla")
    out, scores_out = tmp_path / "sub.csv", tmp_path / "scores.json"
    cli("predict", "--model", run, "--data", root, "--split", "test", "--out", out,
        "--scores", scores_out, "--threads", THREADS)
    expected = read_submission(out)
    with open(scores_out) as f:
        expected_scores = json.load(f)  # written with the digits that read back to the same bits
    model = graphcost.load(run)
    assert model.collection == collection
    c = graphcost.open(root, collection, "test")
    ranks = model.rank(c, threads=THREADS)
    scores = model.score(c, threads=THREADS)
    assert len(ranks) == len(expected) == len(c) == len(scores)
    for g, order in zip(c, ranks):
        keep = len(expected[g.name])  # tile rows list the top 5
        assert order[:keep].tolist() == expected[g.name]
        # predict's scores bit for bit, for the collection and for a graph of it alone.
        want = np.array(expected_scores[g.name], dtype=np.float64)
        assert scores[g.index].tobytes() == want.tobytes()
        assert model.score(g, threads=THREADS).tobytes() == want.tobytes()


@pytest.mark.parametrize("which", ["layout", "tile"])
def test_evaluate_equals_eval_json(root, layout_run, tile_run, which):
    run = layout_run if which == "layout" else tile_run
    expected = json.loads(cli("eval", "--model", run, "--data", root, "--split", "valid",
                              "--json", "--threads", THREADS).stdout)
    got = graphcost.load(run).evaluate(root, "valid", threads=THREADS)
    assert got == expected


def test_metric_functions_equal_evals_per_graph_values(root, layout_run, tile_run):
    for run, collection in ((layout_run, "layout:xla:random"), (tile_run, "tile:xla")):
        expected = json.loads(cli("eval", "--model", run, "--data", root, "--split", "valid",
                                  "--json", "--threads", THREADS).stdout)
        model = graphcost.load(run)
        c = graphcost.open(root, collection, "valid", merge_duplicates=True)  # as eval opens it
        for g, scores, row in zip(c, model.score(c, threads=THREADS), expected["graphs"]):
            assert row["name"] == g.name
            got = graphcost.evaluate_scores(g.kind, scores, g.runtimes)
            assert got == {k: v for k, v in row.items() if k != "name"}
            assert graphcost.kendall_tau(scores, g.runtimes) == row["kendall_tau"]
            if g.kind == "layout":
                assert graphcost.opa(scores, g.runtimes) == row["opa"]
            else:
                assert graphcost.tile_score(scores, g.runtimes) == row["tile_score"]
                assert graphcost.top_k_error(scores, g.runtimes, 5) == row["top5_error"]


def test_metrics_by_hand():
    measured = np.array([1.0, 2.0, 3.0, 4.0])
    assert graphcost.kendall_tau(measured, measured) == 1.0
    assert graphcost.kendall_tau(-measured, measured) == -1.0
    assert graphcost.opa([1, 2, 4, 3], measured) == pytest.approx(5 / 6)
    assert graphcost.top_k_error([4, 3, 2, 1], measured, 1) == 3.0
    assert graphcost.top_k_error([4, 3, 2, 1], measured, 4) == 0.0


def test_metric_arguments_refused_by_name():
    with pytest.raises(graphcost.Error, match=r"^argument: predicted: expected a 1-D array, got shape \(2, 2\)$"):
        graphcost.kendall_tau(np.zeros((2, 2)), np.zeros(4))
    with pytest.raises(graphcost.Error, match=r"^argument: measured: unsupported dtype <U1"):
        graphcost.opa(np.zeros(2), np.array(["a", "b"]))
    with pytest.raises(graphcost.Error, match=r"^argument: measured: has 3 values but predicted has 2$"):
        graphcost.opa([1, 2], [1, 2, 3])


def test_configs_select_or_replace(root, tile_run):
    model = graphcost.load(tile_run)
    g = graphcost.open(root, "tile:xla", "valid")[0]
    full = model.score(g, threads=THREADS)
    pick = np.array([3, 0, 2])
    np.testing.assert_allclose(model.score(g, pick, threads=THREADS), full[pick], rtol=1e-6)
    np.testing.assert_allclose(model.score(g, g.config_feat[pick], threads=THREADS), full[pick],
                               rtol=1e-6)
    with pytest.raises(graphcost.Error, match=r"configs: configuration index 99999 outside"):
        model.score(g, np.array([99999]))
    with pytest.raises(graphcost.Error, match=r"configs: expected configuration indices"):
        model.score(g, np.zeros((2, 1, 1), np.float32))


def test_mc_dropout_spread(root, tile_run, tmp_path):
    model = graphcost.load(tile_run)
    g = graphcost.open(root, "tile:xla", "valid")[0]
    mean, std = model.spread(g, mc_samples=4, seed=1, threads=THREADS)
    assert mean.shape == std.shape == (g.num_configs,)
    assert (std > 0).any() and (std >= 0).all()
    np.testing.assert_array_equal(mean, model.score(g, mc_samples=4, seed=1, threads=THREADS))


def test_ensemble_and_user_graph(root, layout_run, tile_run, tmp_path):
    c = graphcost.open(root, "tile:xla", "valid")
    g = c[0]
    mine = graphcost.graph("mine", **g.arrays())
    model = graphcost.load(tile_run)
    np.testing.assert_array_equal(model.score(mine, threads=THREADS), model.score(g, threads=THREADS))
    both = graphcost.load([tile_run, tile_run], ensemble="rank")
    assert both.score(g, threads=THREADS).shape == (g.num_configs,)
    with pytest.raises(graphcost.Error, match="trained on tile:xla, but collection layout"):
        model.score(graphcost.open(root, "layout:xla:random", "valid"))
    with pytest.raises(graphcost.Error, match="trained on"):
        graphcost.load([tile_run, layout_run])


def test_load_errors_match_the_cli(root, tmp_path):
    with pytest.raises(graphcost.Error) as e:
        graphcost.load(tmp_path)
    assert str(e.value) == cli_error("eval", "--model", tmp_path, "--data", root,
                                     "--collection", "tile:xla")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text("{\"collection\": ")
    with pytest.raises(graphcost.Error) as e:
        graphcost.load(bad)
    assert str(e.value) == cli_error("eval", "--model", bad, "--data", root)


def test_stacked_run_loads_and_scores_as_the_cli(root, tile_run, tmp_path):
    """A stack of the neural tile run and an XGBoost run (both trained on the training split,
    fitted on the validation split) loads as one model and evaluates as eval does."""
    xgb = tmp_path / "xgb"
    cli("xgb", "train", "--data", root, "--collection", "tile:xla", "--rounds", 5,
        "--threads", THREADS, "--out", xgb)
    stack = tmp_path / "stack"
    cli("stack", "--data", root, "--member", tile_run, "--member", xgb, "--folds", 2,
        "--threads", THREADS, "--out", stack)
    model = graphcost.load(stack)
    assert model.kind == ["stack"]
    assert model.collection == "tile:xla"
    expected = json.loads(cli("eval", "--model", stack, "--data", root, "--split", "test",
                              "--json", "--threads", THREADS).stdout)
    assert model.evaluate(root, "test", threads=THREADS) == expected
    g = graphcost.open(root, "tile:xla", "test")[0]
    assert model.score(g, threads=THREADS).shape == (g.num_configs,)


def write_device_cache(path, device, speed, bend):
    """A Kernel Tuner cache of kernel "toy" on `device` (as tests/cli/kernel_tuner_caches.h)."""
    cache = {}
    for block in (16, 32, 64, 128, 256):
        for unroll in (1, 2, 4):
            time = speed * (1.0 + abs(np.log2(block) - bend)
                            + 0.25 * np.log2(unroll) * (block > 64))
            cache[f"{block},{unroll}"] = {"block": block, "unroll": unroll, "time": float(time)}
    path.write_text(json.dumps({"kernel_name": "toy", "device_name": device, "problem_size": [4096],
                                "tune_params_keys": ["block", "unroll"], "objective": "time",
                                "cache": cache}))


def test_train_fits_xgboost_on_kernel_tuner_records_unless_told_otherwise(tmp_path):
    # #37 item 4: as `graphcost train`, model="auto" fits XGBoost on Kernel Tuner caches; a
    # neural model's option is refused with the way to the neural model.
    (tmp_path / "train").mkdir()
    write_device_cache(tmp_path / "train" / "a100.json", "NVIDIA A100-PCIE-40GB", 1.0, 5.0)
    write_device_cache(tmp_path / "train" / "a4000.json", "NVIDIA RTX A4000", 2.0, 6.0)
    result = graphcost.train(tmp_path / "train", out=tmp_path / "run", threads=THREADS)
    assert result["model"] == "xgboost" and result["iterations"] == 200
    assert (tmp_path / "run" / "model.xgb").exists()
    assert graphcost.load(tmp_path / "run").score(graphcost.open(tmp_path / "train")[0]).shape == (15,)
    with pytest.raises(graphcost.Error) as refused:
        graphcost.train(tmp_path / "train", out=tmp_path / "refused", iterations=5)
    assert str(refused.value) == (
        "train: iterations: a neural model's option: Kernel Tuner records train XGBoost by "
        "default; add model='gnn' for the neural model, or use `graphcost xgb train` for "
        "XGBoost's own options")
    neural = graphcost.train(tmp_path / "train", out=tmp_path / "gnn", model="gnn", iterations=2,
                             hidden=[8], threads=THREADS)
    assert neural["model"] == "gnn" and neural["iterations"] == 2


def test_a_kernel_tuner_model_scores_a_device_absent_from_its_folder(tmp_path):
    # #37: trained on the A100 and the RTX A4000, the model scores an RTX A6000 cache read alone
    # (the device's columns from the device table) as predict and eval do.
    (tmp_path / "train").mkdir()
    write_device_cache(tmp_path / "train" / "a100.json", "NVIDIA A100-PCIE-40GB", 1.0, 5.0)
    write_device_cache(tmp_path / "train" / "a4000.json", "NVIDIA RTX A4000", 2.0, 6.0)
    cache, unnamed = tmp_path / "a6000.json", tmp_path / "unnamed.json"
    write_device_cache(cache, "NVIDIA RTX A6000", 1.5, 5.5)
    write_device_cache(unnamed, "", 1.5, 5.5)
    run, scores_out = tmp_path / "run", tmp_path / "scores.json"
    cli("train", "--data", tmp_path / "train", "--model", "gnn", "--collection", "tile:xla",
        "--out", run, "--valid-split", "", "--hidden", 8, 8, *TRAIN_FAST)
    cli("predict", "--model", run, "--data", cache, "--split", "", "--out", tmp_path / "sub.csv",
        "--scores", scores_out, "--threads", THREADS)
    with open(scores_out) as f:
        want = np.array(json.load(f)["toy_NVIDIA_RTX_A6000"], dtype=np.float64)
    model = graphcost.load(run)
    g = graphcost.open(cache)[0]
    assert g.name == "toy_NVIDIA_RTX_A6000"
    assert g.node_feat.shape == (1, 8)  # 7 device columns, 1 problem-size column
    assert model.score(g, threads=THREADS).tobytes() == want.tobytes()
    named = graphcost.open(unnamed, device_name="NVIDIA RTX A6000")[0]
    assert named.name == g.name
    assert model.score(named, threads=THREADS).tobytes() == want.tobytes()
    expected = json.loads(cli("eval", "--model", run, "--data", cache, "--split", "", "--json",
                              "--threads", THREADS).stdout)
    assert model.evaluate(cache, "", threads=THREADS) == expected
