"""Shared fixtures of the Python module's tests: the CLI binary, a small synthetic dataset and
runs trained by the CLI, made once per session in a temporary folder. ctest runs these with
PYTHONPATH=<build>/python:tests/python/kernel_tuner_standin and GRAPHCOST_BINARY set."""
import csv
import json
import os
import socket
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

import graphcost

BINARY = os.environ.get("GRAPHCOST_BINARY", "")
SHARED_DATA = Path(os.environ.get("GRAPHCOST_SHARED_DATA",
                                  Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))
# Few threads: ctest runs other tests beside this one.
THREADS = 2


def _run_in_zygote(argv):
    """Runs argv in the tests' fork server (tests/cli/zygote_protocol.h) where ctest started one
    (GRAPHCOST_TEST_ZYGOTE), as subprocess.run would; None where there is none to run it."""
    path = os.environ.get("GRAPHCOST_TEST_ZYGOTE")
    if not path:
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError:
        connection.close()
        return None
    strings = [os.getcwd(), *argv, *(f"{name}={value}" for name, value in os.environ.items())]
    payload = b"".join(os.fsencode(string) + b"\0" for string in strings)
    header = struct.pack("=4I", 0x7A79676F, len(argv), len(os.environ), len(payload))
    with connection, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        socket.send_fds(connection, [header], [0, out.fileno(), err.fileno()])
        connection.sendall(payload)
        status = b""
        while len(status) < 4:
            chunk = connection.recv(4 - len(status))
            if not chunk:
                break
            status += chunk
        # No answer: the server's process for it died, read as a kill.
        code = (os.waitstatus_to_exitcode(struct.unpack("=i", status)[0]) if len(status) == 4
                else -9)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(argv, code, out.read().decode(), err.read().decode())


def cli(*args, check=True):
    """Runs the graphcost CLI; returns the finished process (stdout and stderr as text)."""
    assert BINARY, "GRAPHCOST_BINARY is not set (run through ctest)"
    argv = [BINARY, *map(str, args)]
    done = _run_in_zygote(argv) or subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"graphcost {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done


def cli_error(*args):
    """The one-line message the CLI prints for a failing command, without its prefix."""
    done = cli(*args, check=False)
    assert done.returncode != 0
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("graphcost: error: "), line
    return line[len("graphcost: error: "):]


def read_submission(path):
    """{graph stem: [configuration indices]} of a predict output."""
    with open(path) as f:
        rows = list(csv.reader(f))
    return {r[0].rsplit(":", 1)[1]: [int(x) for x in r[1].split(";")] for r in rows[1:]}


def shared(*parts):
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (shared data not available)")
    return path


@pytest.fixture(scope="session")
def root(tmp_path_factory):
    """`graphcost synth --scale small`: every collection, train/valid/test."""
    out = tmp_path_factory.mktemp("synth") / "data"
    cli("synth", "--out", out, "--seed", 3, "--scale", "small", "--threads", THREADS)
    return out


TRAIN_FAST = ["--iterations", 12, "--graphs-per-batch", 2, "--slate-size", 8,
              "--valid-configs-per-graph", 40, "--validate-every", 0, "--log-every", 4,
              "--threads", THREADS, "--seed", 5]


@pytest.fixture(scope="session")
def layout_run(root, tmp_path_factory):
    run = tmp_path_factory.mktemp("runs") / "layout"
    cli("train", "--data", root, "--collection", "layout:xla:random", "--out", run,
        "--hidden", 16, 16, *TRAIN_FAST)
    return run


@pytest.fixture(scope="session")
def tile_run(root, tmp_path_factory):
    """A tile run with dropout, so Monte Carlo dropout has a spread."""
    run = tmp_path_factory.mktemp("runs") / "tile"
    cli("train", "--data", root, "--collection", "tile:xla", "--out", run, "--hidden", 16,
        "--dropout", 0.2, *TRAIN_FAST)
    return run


def pytest_collection_finish(session):
    # ctest sets GRAPHCOST_PYTEST_MIN: a run that loses most of its tests (an import that stops
    # matching, a renamed file) fails instead of passing quietly. No tests at all exits 5.
    minimum = int(os.environ.get("GRAPHCOST_PYTEST_MIN", "0"))
    if len(session.items) < minimum:
        raise pytest.UsageError(f"only {len(session.items)} tests collected (expected >= {minimum})")
