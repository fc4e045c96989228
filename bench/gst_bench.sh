#!/usr/bin/env bash
# Graph Segment Training against whole-graph training on a synthetic 40k-node layout graph
# (5% configurable nodes, 2 threads): peak RSS and training configs/s, one process per setting
# (docs/gst.md). Whole-graph runs are capped at MAX_GIB of address space so that a slate too big
# for the machine stops instead of swapping; their peak is also measured at smaller slates.
#   bench/gst_bench.sh [build/bench/gst_bench]
set -euo pipefail
bin=${1:-build/bench/gst_bench}
steps=${STEPS:-3}
max_gib=${MAX_GIB:-7}
for slate in 4 8; do
  "$bin" --mode full --slate "$slate" --steps "$steps" --max-gib "$max_gib"
done
"$bin" --mode full --slate 64 --steps 1 --max-gib "$max_gib"
for segment in 2000 5000; do
  for k in 1 2; do
    "$bin" --mode gst --segment-nodes "$segment" --per-step "$k" --slate 64 --steps "$steps"
  done
done
"$bin" --mode gst --segment-nodes 4000 --per-step 1 --partition metis --slate 64 --steps "$steps"
