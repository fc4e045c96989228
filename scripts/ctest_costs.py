#!/usr/bin/env python3
"""Writes tests/ctest_costs.cmake from the test times of a ctest run, so that a fresh build
directory (CI's) starts the long tests first and `ctest -j N` does not end on one long test
while the other slots are idle. ctest orders tests by their COST property where it has no
times of its own yet (BUILD_DIR/Testing/Temporary/CTestCostData.txt, written by every run).

usage: scripts/ctest_costs.py [BUILD_DIR [MIN_SECONDS]]   (defaults: build, 3)

Run it after a full `make test` on a quiet machine; only the order of the costs matters.
"""
import os
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
minimum = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
costs = {}
with open(os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")) as data:
    for line in data:
        if line.strip() == "---":
            break  # the failed tests follow
        name, _runs, cost = line.rsplit(" ", 2)
        costs[name] = float(cost)
slow = sorted(((cost, name) for name, cost in costs.items() if cost >= minimum), reverse=True)
lines = [
    "# Seconds each long test took (scripts/ctest_costs.py wrote this from a run's times): ctest",
    "# starts them first in a build directory that has no times of its own, so that `ctest -j N`",
    "# does not end on one long test. Every test folder includes it (graphcost_test_costs() in",
    "# tests/CMakeLists.txt); names of tests that no longer exist are ignored.",
]
lines += [f"set_tests_properties({name} PROPERTIES COST {cost:.0f})" for cost, name in slow]
with open(os.path.join(root, "tests", "ctest_costs.cmake"), "w") as out:
    out.write("\n".join(lines) + "\n")
print(f"tests/ctest_costs.cmake: {len(slow)} tests of {minimum:g} s or more")
