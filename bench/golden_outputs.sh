#!/usr/bin/env bash
# Golden outputs: what a graphcost binary prints and writes for a fixed set of tiny runs on the
# synthetic small dataset, so that a refactoring can be checked to change no behaviour.
#
#   bench/golden_outputs.sh record GRAPHCOST_BINARY WORK_DIR   # writes WORK_DIR/golden/
#   bench/golden_outputs.sh compare DIR_A DIR_B                # byte for byte; exit 1 on a difference
#
# record trains tiny runs of each model type (GNN on layout and tile, attention, MC dropout,
# pruned, GST, pairwise head, XGBoost, ensembles of a GNN and XGBoost) and records `eval --json`,
# `predict` files and `tune --json` (random, genetic, bo, neural, neural with a pretrained run).
# Validation metrics logged during training are recorded too, restricted to the metric names
# validation has always reported (a redesign may add names, but may not change these values).
# Everything runs on one thread so that two binaries compare on any machine.
# GOLDEN_TRAIN_ARGS: options added to every `train` (e.g. `--layout-shapes off`, to record a
# binary whose defaults changed as the binary before the change would have run).
set -euo pipefail

usage() { echo "usage: $0 record GRAPHCOST_BINARY WORK_DIR | compare DIR_A DIR_B" >&2; exit 2; }
[ $# -eq 3 ] || usage
mode=$1

if [ "$mode" = compare ]; then
  a=$2 b=$3
  [ -d "$a" ] && [ -d "$b" ] || { echo "compare: $a or $b is not a folder" >&2; exit 2; }
  if diff -r "$a" "$b" >/dev/null; then
    echo "golden: $(find "$a" -type f | wc -l) files identical"
    exit 0
  fi
  echo "golden: outputs differ:" >&2
  diff -rq "$a" "$b" >&2 || true
  exit 1
fi
[ "$mode" = record ] || usage
# A failing step names itself (its stderr is in WORK_DIR/runs/NAME.log).
trap 'echo "golden: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

bin=$(realpath "$2")
work=$3
python=/usr/bin/python3
mkdir -p "$work"
work=$(realpath "$work")
data="$work/data"
out="$work/golden"
runs="$work/runs"
rm -rf "$out" "$runs"
mkdir -p "$out" "$runs"

if [ ! -f "$data/synth_report.json" ]; then
  "$bin" synth --out "$data" --seed 1 --scale small --threads 1 >/dev/null 2>&1
fi

# The validation metrics of every metrics.jsonl line, with only the names validation has always
# logged (timings and added names left out).
validation() {
  "$python" - "$1" <<'EOF'
import json, sys
layout = ["iteration", "valid_graphs", "kendall_tau", "opa"]
tile = ["iteration", "valid_graphs", "top1_error", "top5_error", "top10_error", "tile_score"]
for line in open(sys.argv[1]):
    row = json.loads(line)
    if "valid_graphs" in row:
        names = tile if "tile_score" in row else layout
        print(json.dumps({k: row[k] for k in names if k in row}, sort_keys=True))
EOF
}

train() {  # NAME COLLECTION [train options...]
  local name=$1 collection=$2
  shift 2
  "$bin" train --data "$data" --collection "$collection" --out "$runs/$name" --threads 1 --seed 1 \
    --iterations 12 --validate-every 6 --log-every 6 --graphs-per-batch 2 --slate-size 8 \
    --hidden 16 16 --valid-configs-per-graph 40 "$@" ${GOLDEN_TRAIN_ARGS:-} >/dev/null 2>"$runs/$name.log"
  validation "$runs/$name/metrics.jsonl" >"$out/validation-$name.jsonl"
}

evaluate() {  # NAME COLLECTION [eval options...]
  local name=$1 collection=$2
  shift 2
  "$bin" eval --data "$data" --collection "$collection" --split valid --threads 1 --json \
    --max-configs 60 "$@" >"$out/eval-$name.json" 2>"$runs/eval-$name.log"
}

predict() {  # NAME COLLECTION [predict options...]
  local name=$1 collection=$2
  shift 2
  "$bin" predict --data "$data" --collection "$collection" --split test --threads 1 \
    --out "$out/predict-$name.csv" "$@" >/dev/null 2>"$runs/predict-$name.log"
}

layout=layout:xla:random
tile=tile:xla

train layout-gnn $layout --loss listmle
evaluate layout-gnn $layout --model "$runs/layout-gnn"
evaluate layout-gnn-tta $layout --model "$runs/layout-gnn" --tta 2
predict layout-gnn $layout --model "$runs/layout-gnn"

train layout-attention $layout --attention
evaluate layout-attention $layout --model "$runs/layout-attention"
evaluate layout-attention-anchors3 $layout --model "$runs/layout-attention" --anchors 3
evaluate layout-attention-plain $layout --model "$runs/layout-attention" --anchors 0
predict layout-attention $layout --model "$runs/layout-attention"

train layout-dropout $layout --dropout 0.3
evaluate layout-dropout-mc $layout --model "$runs/layout-dropout" --mc-samples 3
predict layout-dropout-mc $layout --model "$runs/layout-dropout" --mc-samples 3

train layout-pruned $layout --prune-hops 1
evaluate layout-pruned $layout --model "$runs/layout-pruned"
evaluate layout-pruned-unpruned $layout --model "$runs/layout-pruned" --prune-hops -1
predict layout-pruned $layout --model "$runs/layout-pruned"

train layout-gst $layout --gst-segment-nodes 64
evaluate layout-gst $layout --model "$runs/layout-gst"
predict layout-gst $layout --model "$runs/layout-gst"

train tile-gnn $tile --dropout 0.2
evaluate tile-gnn $tile --model "$runs/tile-gnn"
evaluate tile-gnn-mc $tile --model "$runs/tile-gnn" --mc-samples 2
predict tile-gnn $tile --model "$runs/tile-gnn"

train tile-pairwise $tile --head pairwise
evaluate tile-pairwise $tile --model "$runs/tile-pairwise"

"$bin" xgb train --data "$data" --collection $tile --out "$runs/tile-xgb" --rounds 5 \
  --max-configs 100 --threads 1 >/dev/null 2>&1
"$bin" xgb train --data "$data" --collection $layout --out "$runs/layout-xgb" --rounds 5 \
  --max-configs 100 --threads 1 >/dev/null 2>&1
evaluate tile-xgb $tile --model "$runs/tile-xgb"
evaluate layout-xgb $layout --model "$runs/layout-xgb"
predict tile-xgb $tile --model "$runs/tile-xgb"
evaluate tile-ensemble-mean $tile --model "$runs/tile-gnn" --model "$runs/tile-xgb"
evaluate tile-ensemble-rank $tile --model "$runs/tile-gnn" --model "$runs/tile-xgb" --ensemble rank
evaluate tile-ensemble-mc $tile --model "$runs/tile-gnn" --model "$runs/tile-xgb" --mc-samples 2
predict tile-ensemble $tile --model "$runs/tile-gnn" --model "$runs/tile-xgb"
evaluate layout-ensemble $layout --model "$runs/layout-gnn" --model "$runs/layout-attention"
evaluate tile-baseline-random $tile --baseline random
evaluate tile-baseline-default $tile --baseline default

space="$data/npz/tile/xla/train"
tune() {  # NAME [tune options...]
  local name=$1
  shift
  "$bin" tune --space "$space" --budget 16 --seeds 2 --seed 3 --threads 1 --json "$@" \
    >"$out/tune-$name.json" 2>"$runs/tune-$name.log"
}
graph=$(ls "$space" | head -n 1)
graph=${graph%.npz}
tune random --graph "$graph" --strategy random
tune genetic --graph "$graph" --strategy genetic --population 4
# `model` names the Bayesian-optimisation search (bo); the neural ranker with MC dropout is `neural`.
tune bo --graph "$graph" --strategy bo --initial 4 --batch 4 --members 3 --rounds 5
tune neural --graph "$graph" --strategy neural --initial 4 --batch 4 --train-steps 3 --hidden 8 \
  --mc-samples 4
tune neural-pretrained --graph "$graph" --strategy neural --initial 4 --batch 4 --train-steps 3 \
  --mc-samples 4 --pretrained "$runs/tile-gnn"

# Outputs that name a path (tune's space) name it relative to WORK_DIR, so records made in
# different folders compare.
sed -i "s|$work|WORK_DIR|g" "$out"/*
echo "golden: recorded $(find "$out" -type f | wc -l) files in $out"
