#!/usr/bin/env bash
# Architecture options on the Kernel Tuner caches (docs/model-architecture.md): leave-one-device-out
# on one kernel (train on three GPUs, rank the fourth's configurations), for the default SAGE
# model, the MLP, the MLP with the pairwise head, and the MLP with cross-configuration attention
# (scored plainly, with --tta 4 and with --anchors 31). Prints the held-out top-1/top-5 error per fold and
# `figure: name: value unit` lines with their means over folds.
# usage: bench/kernel_tuner_arch.sh GRAPHCOST_BINARY [ITERATIONS] [KERNEL] [WORK_DIR]
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: kernel_tuner_arch.sh GRAPHCOST_BINARY [ITERATIONS] [KERNEL] [WORK_DIR]}
iterations=${2:-300}
kernel=${3:-convolution}
work=${4:-$(mktemp -d)}
data="$(dirname "$0")/../../shared/data/kernel_tuner/$kernel"
[ -d "$data" ] || { bench_skip kernel_tuner_arch "$data not present"; exit 0; }
variants=("sage|" "mlp|--architecture mlp --hidden 64 64" "mlp_pairwise|--architecture mlp --hidden 64 64 --head pairwise"
          "mlp_attention|--architecture mlp --hidden 64 64 --attention")
mean() { printf '%s\n' "$@" | awk '{s += $1; n++} END {printf "%.4f", s / n}'; }
# metric NAME DEVICE < eval --json: NAME of the graph whose name contains DEVICE (the file stem
# --exclude takes is part of the graph name).
metric() {
  /usr/bin/python3 -c 'import json, sys
table = json.load(sys.stdin)
print(next(g[sys.argv[1]] for g in table["graphs"] if sys.argv[2] in g["name"]))' "$1" "$2"
}
for spec in "${variants[@]}"; do
  name=${spec%%|*}; read -r -a flags <<< "${spec#*|}"
  top1=() top5=() tta1=() tta5=() anchored1=() anchored5=()
  for held in A100 A4000 A6000 W6600; do
    run="$work/$name/$held"
    rm -rf "$run"  # train refuses to write over an earlier run
    "$bin" train --model gnn --data "$data" --collection tile:xla --valid-split "" --out "$run" \
      --iterations "$iterations" --graphs-per-batch 3 --slate-size 32 --seed 1 --threads 1 \
      --exclude "$held" "${flags[@]}" > /dev/null 2>&1
    table=$("$bin" eval --model "$run" --data "$data" --split train --threads 1 --json 2>/dev/null)
    t1=$(metric top1_error "$held" <<< "$table"); t5=$(metric top5_error "$held" <<< "$table")
    line="$name held-out $held: top1 $t1 top5 $t5"
    top1+=("$t1"); top5+=("$t5")
    if [ "$name" = mlp_attention ]; then
      table=$("$bin" eval --model "$run" --data "$data" --split train --threads 1 --json --tta 4 2>/dev/null)
      a1=$(metric top1_error "$held" <<< "$table"); a5=$(metric top5_error "$held" <<< "$table")
      line="$line | tta4 top1 $a1 top5 $a5"
      tta1+=("$a1"); tta5+=("$a5")
      table=$("$bin" eval --model "$run" --data "$data" --split train --threads 1 --json --anchors 31 2>/dev/null)
      a1=$(metric top1_error "$held" <<< "$table"); a5=$(metric top5_error "$held" <<< "$table")
      line="$line | anchors31 top1 $a1 top5 $a5"
      anchored1+=("$a1"); anchored5+=("$a5")
    fi
    echo "$line"
  done
  echo "figure: kt_${kernel}_${name}_top1_error: $(mean "${top1[@]}") ratio"
  echo "figure: kt_${kernel}_${name}_top5_error: $(mean "${top5[@]}") ratio"
  if [ "$name" = mlp_attention ]; then
    echo "figure: kt_${kernel}_${name}_tta4_top1_error: $(mean "${tta1[@]}") ratio"
    echo "figure: kt_${kernel}_${name}_tta4_top5_error: $(mean "${tta5[@]}") ratio"
    echo "figure: kt_${kernel}_${name}_anchors31_top1_error: $(mean "${anchored1[@]}") ratio"
    echo "figure: kt_${kernel}_${name}_anchors31_top5_error: $(mean "${anchored5[@]}") ratio"
  fi
done
