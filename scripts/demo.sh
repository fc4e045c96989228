#!/usr/bin/env bash
# The main job on bundled default data: synth -> pack -> train -> eval -> predict -> report.
set -euo pipefail
bin=${1:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
out=${2:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
mkdir -p "$out"
echo "== synth: a small synthetic TpuGraphs dataset under $out/data"
"$bin" synth --out "$out/data" --seed 1 --scale small
"$bin" inspect "$out/data" --collection layout:xla:random | head -n 6
echo "== pack"
for split in train valid test; do
  "$bin" pack "$out/data" --collection layout:xla:random --split "$split" --out "$out/layout-xla-random-$split.pack"
done
"$bin" inspect "$out/layout-xla-random-train.pack" | head -n 4
echo "(demo: training, evaluation and reports come with the cost model)"
