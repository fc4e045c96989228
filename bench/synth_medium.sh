#!/usr/bin/env bash
# Synthetic medium, several seeds: layout:xla:random valid Kendall tau against the generator's
# noise ceiling, and tile:xla valid top-1/5/10 error. Prints `figure: name: value unit` lines.
# usage: bench/synth_medium.sh GRAPHCOST_BINARY [WORK_DIR] (SEEDS, LAYOUT_ITERATIONS,
# TILE_ITERATIONS from the environment; defaults 3, 300, 1000)
set -euo pipefail
bin=${1:?usage: synth_medium.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
seeds=${SEEDS:-3}
layout_iterations=${LAYOUT_ITERATIONS:-300}
tile_iterations=${TILE_ITERATIONS:-1000}
data="$work/data"
[ -f "$data/synth_report.json" ] || "$bin" synth --out "$data" --seed 7 --scale medium > /dev/null 2>&1
for c in layout:xla:random tile:xla; do
  for split in train valid; do
    "$bin" pack "$data" --collection "$c" --split "$split" --out "$work/${c//:/-}-$split.pack" > /dev/null 2>&1
  done
done
metric() { grep -o "\"$1\": [0-9.e+-]*" | tail -1 | awk '{print $2}'; }
stats() { printf '%s\n' "$@" | awk '{s += $1; q += $1 * $1; n++} END {m = s / n; v = q / n - m * m; if (v < 0) v = 0; printf "%.4f %.4f", m, sqrt(v)}'; }
taus=() top1=() top5=() top10=()
for seed in $(seq 1 "$seeds"); do
  run="$work/runs/layout-$seed"
  rm -rf "$run"
  "$bin" train --data "$work/layout-xla-random-train.pack" --valid-data "$work/layout-xla-random-valid.pack" \
    --collection layout:xla:random --out "$run" --iterations "$layout_iterations" --validate-every 0 \
    --graphs-per-batch 2 --slate-size 16 --hidden 64 64 64 --seed "$seed" > /dev/null 2>&1
  taus+=("$("$bin" eval --model "$run" --data "$work/layout-xla-random-valid.pack" --json 2>/dev/null | metric kendall_tau)")
  run="$work/runs/tile-$seed"
  rm -rf "$run"
  "$bin" train --data "$work/tile-xla-train.pack" --valid-data "$work/tile-xla-valid.pack" \
    --collection tile:xla --out "$run" --iterations "$tile_iterations" --validate-every 0 \
    --graphs-per-batch 8 --slate-size 16 --loss diffmat:1,mape:0.1 --seed "$seed" > /dev/null 2>&1
  json=$("$bin" eval --model "$run" --data "$work/tile-xla-valid.pack" --json 2>/dev/null)
  top1+=("$(metric top1_error <<< "$json")"); top5+=("$(metric top5_error <<< "$json")"); top10+=("$(metric top10_error <<< "$json")")
  echo "seed $seed: layout tau ${taus[-1]}; tile top1 ${top1[-1]} top5 ${top5[-1]} top10 ${top10[-1]}"
done
echo "noise ceiling: $data/synth_report.json, collections.\"layout:xla:random\".valid.noise_ceiling_mean"
read -r m s <<< "$(stats "${taus[@]}")"; echo "figure: synth_medium_layout_xla_random_valid_tau_mean: $m tau"; echo "figure: synth_medium_layout_xla_random_valid_tau_std: $s tau"
for k in 1 5 10; do
  eval "vals=(\"\${top$k[@]}\")"
  read -r m s <<< "$(stats "${vals[@]}")"
  echo "figure: synth_medium_tile_valid_top${k}_error_mean: $m ratio"; echo "figure: synth_medium_tile_valid_top${k}_error_std: $s ratio"
done
