#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of the torch-free layers (core, io, data,
# eval, sweep, study, xgb, tune) and their tests, at -O1 with asserts on
# (tests/sanitize/CMakeLists.txt).
# Run by .ci/run beside and after `make test`. Any sanitizer report fails the run.
#   scripts/sanitize.sh [--build-only] [GTEST_FILTER]     e.g. scripts/sanitize.sh 'Pack*'
# --build-only configures and builds, and runs nothing (.ci/run builds it at the lowest priority
# while `make test` runs, then calls this script again to run the tests).
# Environment: SANITIZE_BUILD_DIR (default build-sanitize), JOBS (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
build_dir=${SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${JOBS:-$(nproc)}
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
start=$(date +%s)
cmake -S tests/sanitize -B "$build_dir" "${launcher[@]}" > /dev/null
cmake --build "$build_dir" -j "$jobs" --target graphcost_sanitize_tests
built=$(date +%s)
if [ "$build_only" -eq 1 ]; then
  echo "sanitize: build $((built - start)) s"
  exit 0
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The tests run in one shard per job (GoogleTest's sharding: each process takes every N-th test),
# as ctest runs the main build's tests side by side; each shard's output is printed when it ends.
pids=()
for ((shard = 0; shard < jobs; ++shard)); do
  GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard "$build_dir/graphcost_sanitize_tests" \
    --gtest_brief=1 ${1:+--gtest_filter="$1"} > "$build_dir/shard_$shard.log" 2>&1 &
  pids+=($!)
done
failed=0
for ((shard = 0; shard < jobs; ++shard)); do
  wait "${pids[$shard]}" || failed=1
  cat "$build_dir/shard_$shard.log"
done
echo "sanitize: build $((built - start)) s, tests $(($(date +%s) - built)) s ($jobs shards)"
if [ "$failed" -ne 0 ]; then
  echo "sanitize: a shard failed (its output is above)" >&2
  exit 1
fi
