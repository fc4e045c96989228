#!/usr/bin/env python3
"""Fails when a test skipped although ../shared/data is present: run by .ci/run after `make test`.

usage: scripts/check_no_skips.py [BUILD_DIR [SHARED_DATA_DIR]]   (defaults: build, ../shared/data)

Reads ctest's record of its last run (BUILD_DIR/Testing/Temporary/LastTest.log) and finds every
skip in it: a GoogleTest case that skipped (`[  SKIPPED ]`, with the reason GTEST_SKIP gave), a
pytest test that skipped (`SKIPPED [n] file:line: reason`, printed by pytest's -rs, which the
python_pytest test passes), and a ctest test reported skipped by its skip regular expression.
Where the shared data folder exists, any skip fails the check, except those whose reason matches
ALLOWED below: skips for an optional tool that is not data and is not installed on every machine
that has the data. Without the shared data folder, skips are expected and the check passes.
"""
import os
import re
import sys

# Reasons a test may skip even with the shared data present (one pattern per optional tool).
ALLOWED = [
    r"KERNEL_TUNER_SRC is not set",              # a Kernel Tuner checkout (docs/kernel-tuner.md)
    r"matplotlib absent",                        # the plot of examples/python_train_plot.py
    r"LibTorch is not linked against OpenBLAS",  # a LibTorch build detail
]


def tests_of(log):
    """(name, output) of each test in a LastTest.log."""
    for block in re.split(r"^\d+/\d+ Testing: ", log, flags=re.M)[1:]:
        name = block.split("\n", 1)[0].strip()
        output = block.split("Output:\n", 1)[-1].split("<end of output>", 1)[0]
        yield name, output, block


def skips_of(name, output, block):
    """(test, reason) of every skip in one test's record."""
    found = []
    # GoogleTest: "file:line: Skipped\nREASON\n[  SKIPPED ] Suite.Case (0 ms)".
    for m in re.finditer(r"^[^\n]*: Skipped\n(.*?)^\[  SKIPPED \] (\S+)", output, re.M | re.S):
        found.append((f"{name}: {m.group(2)}", " ".join(m.group(1).split())))
    # pytest -rs: "SKIPPED [2] test_x.py:12: REASON".
    for m in re.finditer(r"^SKIPPED \[\d+\] ([^:\n]+:\d+): (.*)$", output, re.M):
        found.append((f"{name}: {m.group(1)}", m.group(2).strip()))
    if not found and "Skip regular expression found in output" in block:
        first = output.strip().splitlines()[:1]
        found.append((name, first[0] if first else "(no output)"))
    return found


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join("..", "shared", "data")
    if not os.path.isdir(shared):
        print(f"check_no_skips: {shared} is absent: tests that need it may skip")
        return 0
    path = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    try:
        with open(path, errors="replace") as f:
            log = f.read()
    except OSError as e:
        print(f"check_no_skips: error: {path}: {e.strerror} (run ctest first)", file=sys.stderr)
        return 2
    skips = [s for test in tests_of(log) for s in skips_of(*test)]
    refused = [(test, reason) for test, reason in skips
               if not any(re.search(p, reason) for p in ALLOWED)]
    for test, reason in skips:
        mark = "FAIL" if (test, reason) in refused else "allowed"
        print(f"check_no_skips: {mark}: {test}: {reason}")
    if refused:
        print(f"check_no_skips: {len(refused)} test(s) skipped although {shared} is present",
              file=sys.stderr)
        return 1
    print(f"check_no_skips: no test skipped for want of {shared} ({len(skips)} allowed skips)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
