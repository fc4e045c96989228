"""The README's Python examples run as written, and so does examples/python_train_plot.py."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import graphcost

from conftest import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]


def readme_blocks():
    """The README's Python blocks: its Python quick start, then its Kernel Tuner one."""
    text = (REPO / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def run_python(code, cwd, *args):
    done = subprocess.run([sys.executable, *args] if code is None else [sys.executable, "-c", code],
                          cwd=cwd, capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_examples_run_as_written(root, tmp_path):
    blocks = readme_blocks()
    assert len(blocks) == 2
    work = tmp_path / "work"
    (work / "demo-out").mkdir(parents=True)
    (work / "demo-out" / "data").symlink_to(root)
    out = run_python(blocks[0], work)
    # The graph's name, its top 5, a tau.
    assert out.split()[0] == graphcost.open(root, "tile:xla", "valid")[0].name
    if not (SHARED_DATA / "kernel_tuner").exists():
        pytest.skip("shared Kernel Tuner caches absent: the strategy example needs them")
    (tmp_path / "shared").symlink_to(SHARED_DATA.parent.resolve())
    assert float(run_python(blocks[1], work)) > 0


def test_plot_example(root, tmp_path):
    out = run_python(None, REPO, str(REPO / "examples" / "python_train_plot.py"), "--data",
                     str(root), "--out", str(tmp_path), "--iterations", "10", "--threads", "2")
    assert "mean Kendall tau" in out
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib absent: the example skips its plot")
    assert (tmp_path / "predicted_vs_measured.png").stat().st_size > 1000
