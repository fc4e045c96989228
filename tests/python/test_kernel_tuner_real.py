"""graphcost.kernel_tuner inside a real Kernel Tuner: set KERNEL_TUNER_SRC to the folders to put on
the Python path for it (os.pathsep-separated: a Kernel Tuner checkout, and python-constraint's
where it is not installed; docs/kernel-tuner.md). Each check runs in its own interpreter
(real_kernel_tuner_checks.py), whose path holds them instead of the stand-in. A checkout that is
not installed has no package metadata, which kernel_tuner/__init__.py reads for its version: the
test then gives it a minimal one, with the version of the checkout's pyproject.toml."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared

HERE = Path(__file__).resolve().parent
SOURCES = [p for p in os.environ.get("KERNEL_TUNER_SRC", "").split(os.pathsep) if p]


def python_path(tmp_path):
    """The module's folder (first entry of PYTHONPATH), the checkout, its metadata, tests/python."""
    module = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
              if p and "kernel_tuner_standin" not in p]
    entries = module + SOURCES + [str(HERE)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(entries))
    probe = subprocess.run([sys.executable, "-c",
                            "import importlib.metadata as m; m.version('kernel_tuner')"],
                           env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        checkout = next((Path(p) for p in SOURCES if (Path(p) / "kernel_tuner").is_dir()), None)
        assert checkout is not None, f"no kernel_tuner folder in KERNEL_TUNER_SRC={SOURCES}"
        text = (checkout / "pyproject.toml").read_text()
        version = re.search(r'^version = "([^"]+)"', text, re.M).group(1)
        meta = tmp_path / "metadata" / f"kernel_tuner-{version}.dist-info"
        meta.mkdir(parents=True)
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: kernel_tuner\n"
                                       f"Version: {version}\n")
        env["PYTHONPATH"] += os.pathsep + str(meta.parent)
    return env


@pytest.mark.parametrize("check", ["tune_cache", "gzip_refused", "tune_kernel",
                                   "shared_convolution", "default_prior"])
def test_in_real_kernel_tuner(check, tmp_path):
    if not SOURCES:
        pytest.skip("KERNEL_TUNER_SRC is not set: no real Kernel Tuner to run the strategy in "
                    "(docs/kernel-tuner.md says how to set it)")
    data = shared("kernel_tuner") if check in ("shared_convolution", "default_prior") else HERE
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run([sys.executable, str(HERE / "real_kernel_tuner_checks.py"), check,
                           str(work), str(Path(data).parent)],
                          env=python_path(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{check}: ok (Kernel Tuner" in done.stdout
