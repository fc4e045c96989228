#!/usr/bin/env bash
# Graph Segment Training against whole-graph training on a synthetic 40k-node layout graph
# (5% configurable nodes, 2 threads): peak RSS and training configs/s, one process per setting
# (docs/gst.md). Whole-graph runs are capped at MAX_GIB of address space so that a slate too big
# for the machine stops instead of swapping; their peak is also measured at smaller slates.
# Exactly the settings of docs/gst.md's table, in its order.
#   bench/gst_bench.sh [build/bench/gst_bench]   (STEPS: timed steps after the first, default 2)
set -euo pipefail
bin=${1:-build/bench/gst_bench}
steps=${STEPS:-2}
max_gib=${MAX_GIB:-7}
for slate in 4 8; do
  "$bin" --mode full --slate "$slate" --steps "$steps" --max-gib "$max_gib"
done
# Expected to stop at the address-space cap: its line says so, and the set goes on.
"$bin" --mode full --slate 64 --steps 1 --max-gib "$max_gib" || echo "gst_bench: whole graph at slate 64 stopped (exit $?)"
"$bin" --mode gst --segment-nodes 4000 --per-step 1 --slate 64 --steps "$steps"
"$bin" --mode gst --segment-nodes 2000 --per-step 2 --slate 64 --steps "$steps"
"$bin" --mode gst --segment-nodes 2000 --per-step 1 --slate 64 --steps "$steps"
"$bin" --mode gst --segment-nodes 4000 --per-step 1 --partition metis --slate 64 --steps "$steps"
