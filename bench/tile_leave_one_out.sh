#!/usr/bin/env bash
# Leave-one-kernel-out on the real tile records (op_tuning_data.pb, 15 fused kernels): train on
# 14 kernels, rank the held-out one; top-1 and top-5 error of the model against the compiler's
# default configuration. Prints `figure: name: value unit` lines.
# usage: bench/tile_leave_one_out.sh GRAPHCOST_BINARY [ITERATIONS] [WORK_DIR]
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: tile_leave_one_out.sh GRAPHCOST_BINARY [ITERATIONS] [WORK_DIR]}
iterations=${2:-200}
work=${3:-$(mktemp -d)}
records="$(dirname "$0")/../../shared/data/tpugraphs/op_tuning_data.pb"
[ -f "$records" ] || { bench_skip tile_leave_one_out "$records not present"; exit 0; }
mkdir -p "$work/kernels"
"$bin" ingest "$records" --out "$work/kernels" > /dev/null
model_top1=() model_top5=() default_top1=() default_top5=()
for held in "$work"/kernels/*.npz; do
  name=$(basename "$held" .npz)
  fold="$work/folds/$name"
  rm -rf "$fold"
  mkdir -p "$fold/train" "$fold/valid"
  for k in "$work"/kernels/*.npz; do
    if [ "$k" = "$held" ]; then ln -s "$k" "$fold/valid/"; else ln -s "$k" "$fold/train/"; fi
  done
  "$bin" train --data "$fold" --collection tile:xla --out "$fold/run" --iterations "$iterations" \
    --valid-split "" --graphs-per-batch 8 --slate-size 16 --loss diffmat:1,mape:0.1 --seed 0 \
    --threads 0 > /dev/null 2>&1
  model=$("$bin" eval --model "$fold/run" --data "$fold" --split valid --json 2>/dev/null)
  default=$("$bin" eval --baseline default --collection tile:xla --data "$fold" --split valid --json 2>/dev/null)
  m1=$(grep -o '"top1_error": [0-9.e+-]*' <<< "$model" | tail -1 | awk '{print $2}')
  m5=$(grep -o '"top5_error": [0-9.e+-]*' <<< "$model" | tail -1 | awk '{print $2}')
  d1=$(grep -o '"top1_error": [0-9.e+-]*' <<< "$default" | tail -1 | awk '{print $2}')
  d5=$(grep -o '"top5_error": [0-9.e+-]*' <<< "$default" | tail -1 | awk '{print $2}')
  echo "kernel $name: model top1 $m1 top5 $m5 | default top1 $d1 top5 $d5"
  model_top1+=("$m1"); model_top5+=("$m5"); default_top1+=("$d1"); default_top5+=("$d5")
done
mean() { printf '%s\n' "$@" | awk '{s += $1; n++} END {printf "%.4f", s / n}'; }
echo "figure: tile_loo_model_top1_error: $(mean "${model_top1[@]}") ratio"
echo "figure: tile_loo_model_top5_error: $(mean "${model_top5[@]}") ratio"
echo "figure: tile_loo_default_top1_error: $(mean "${default_top1[@]}") ratio"
echo "figure: tile_loo_default_top5_error: $(mean "${default_top5[@]}") ratio"
