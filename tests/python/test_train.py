"""graphcost.train: the CLI's options by config.json names, progress, stopping with a checkpoint
(an exception from the callback, Ctrl-C) and resuming."""
import json
import os
import re
import signal

import numpy as np
import pytest

import graphcost
from conftest import THREADS, cli

FAST = dict(iterations=8, graphs_per_batch=2, slate_size=8, valid_configs_per_graph=40,
            validate_every=0, log_every=4, threads=THREADS, seed=5, hidden=[16])


def test_defaults_are_the_clis():
    defaults = graphcost.train_defaults()
    assert defaults["iterations"] == 1000 and defaults["collection"] == "layout:xla:random"
    assert defaults["model"]["hidden"]
    help_text = cli("train", "--help").stdout
    assert re.search(r"--graphs-per-batch INT(=| \[)4", help_text)
    assert defaults["graphs_per_batch"] == 4


def test_python_and_cli_runs_are_the_same(root, tmp_path):
    calls = []
    result = graphcost.train(data=root, collection="tile:xla", out=tmp_path / "py",
                             progress=lambda *a: calls.append(a), **FAST)
    assert result["iterations"] == 8 and not result["interrupted"]
    assert [c[0] for c in calls] == list(range(1, 9)) and all(c[1] == 8 for c in calls)
    logged = [c[2] for c in calls if c[2] is not None]
    assert [m["iteration"] for m in logged] == [4, 8]
    assert set(result["last_validation"]) >= {"top1_error", "tile_score"}
    cli("train", "--data", root, "--collection", "tile:xla", "--out", tmp_path / "cli",
        "--iterations", 8, "--graphs-per-batch", 2, "--slate-size", 8,
        "--valid-configs-per-graph", 40, "--validate-every", 0, "--log-every", 4,
        "--threads", THREADS, "--seed", 5, "--hidden", 16)
    py_config = json.loads((tmp_path / "py" / "config.json").read_text())
    cli_config = json.loads((tmp_path / "cli" / "config.json").read_text())
    assert py_config == cli_config
    c = graphcost.open(root, "tile:xla", "valid")
    np.testing.assert_array_equal(
        np.concatenate(graphcost.load(tmp_path / "py").score(c, threads=THREADS)),
        np.concatenate(graphcost.load(tmp_path / "cli").score(c, threads=THREADS)))


def test_stop_from_callback_checkpoints_and_resumes(root, tmp_path):
    out = tmp_path / "run"

    def stop_at_3(iteration, total, metrics):
        if iteration == 3:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        graphcost.train(data=root, collection="tile:xla", out=out, progress=stop_at_3, **FAST)
    assert (out / "checkpoint.pt").exists() and not (out / "model.pt").exists()
    seen = []
    result = graphcost.train(out=out, resume=True, progress=lambda i, *_: seen.append(i))
    assert seen == list(range(4, 9)) and result["iterations"] == 8
    # Resumed from iteration 3 to 8: the same model as 8 iterations in one go.
    graphcost.train(data=root, collection="tile:xla", out=tmp_path / "straight", **FAST)
    c = graphcost.open(root, "tile:xla", "valid")
    np.testing.assert_array_equal(graphcost.load(out).score(c[0], threads=THREADS),
                                  graphcost.load(tmp_path / "straight").score(c[0], threads=THREADS))


def test_ctrl_c_stops_with_a_checkpoint(root, tmp_path):
    out = tmp_path / "run"

    def interrupt(iteration, total, metrics):
        if iteration == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        graphcost.train(data=root, collection="tile:xla", out=out, progress=interrupt, **FAST)
    assert (out / "checkpoint.pt").exists() and not (out / "model.pt").exists()
    result = graphcost.train(out=out, resume=True, iterations=10)
    assert result["iterations"] == 10 and (out / "model.pt").exists()


def test_option_errors(root, tmp_path):
    with pytest.raises(graphcost.Error, match="bogus"):
        graphcost.train(data=root, out=tmp_path / "a", bogus=1)
    with pytest.raises(graphcost.Error, match="slate_size"):
        graphcost.train(data=root, out=tmp_path / "b", slate_size=0)
    with pytest.raises(graphcost.Error, match="lr"):
        graphcost.train(data=root, out=tmp_path / "c", lr="fast")
    with pytest.raises(graphcost.Error, match="no checkpoint to resume from"):
        graphcost.train(out=tmp_path / "d", resume=True)
    graphcost.train(data=root, collection="tile:xla", out=tmp_path / "e", **FAST)
    with pytest.raises(graphcost.Error, match="already holds a training run"):
        graphcost.train(data=root, collection="tile:xla", out=tmp_path / "e", **FAST)
    with pytest.raises(graphcost.Error, match="given otherwise: lr"):
        graphcost.train(out=tmp_path / "e", resume=True, lr=0.5)
