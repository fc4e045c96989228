#!/usr/bin/env bash
# Runs the benchmarks; each prints `figure: name: value unit` lines. BENCH_FULL=1 runs the pack
# benchmark at the size the Foundation issue specifies (20 graphs x 10k configurations, ~12 GB of
# npz on disk); the default is a quick run.
set -euo pipefail
build=${1:-build}
echo "== kendall_bench"
"$build/bench/kendall_bench"
echo "== pack_bench"
if [ "${BENCH_FULL:-0}" = 1 ]; then
  "$build/bench/pack_bench" --stored-npz --npz-seconds 30
else
  "$build/bench/pack_bench" --graphs 4 --configs 2000
fi
echo "== model_bench (10k-node graph, 5% configurable, default model, 2 threads)"
"$build/bench/model_bench" 6
echo "== delta_bench (full vs delta evaluation, 2 threads; BENCH_FULL=1: 5k/20k/40k nodes x 2/5/10%)"
if [ "${BENCH_FULL:-0}" = 1 ]; then
  "$build/bench/delta_bench"
else
  "$build/bench/delta_bench" --quick
fi
if [ "${BENCH_REFERENCE:-0}" = 1 ]; then
  echo "== reference_compare (graphcost against the plain PyTorch reference; minutes)"
  ./bench/reference_compare.sh "$build/graphcost"
fi
