#!/usr/bin/env bash
# The headline rows of docs/results.md on the real AlexNet layout file, 20% of its distinct
# configurations for training and the rest for testing: the untuned and the tuned XGBoost, the
# default GNN (1,500 iterations, S = 64), and the GNN + two tuned XGBoost ensemble, each scored
# on the test configurations, then compared with the untuned XGBoost over 20 disjoint test
# groups. About 15 minutes on 2 cores. Prints `figure: name: value unit` lines.
# usage: bench/alexnet_headline.sh GRAPHCOST_BINARY [WORK_DIR] (DATA: the .npz, default
# ../shared/data/tpugraphs/alexnet_layout_reduced.npz from the repository root)
set -euo pipefail
bin=${1:?usage: alexnet_headline.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
file=${DATA:-$(dirname "$0")/../../shared/data/tpugraphs/alexnet_layout_reduced.npz}
if [ ! -f "$file" ]; then
  echo "alexnet_headline: $file not present (set DATA)" >&2
  exit 1
fi
bin=$(realpath "$bin")
file=$(realpath "$file")
mkdir -p "$work"
cd "$work"
c=layout:xla:default
[ -d split ] || "$bin" split "$file" --fraction 0.2 --seed 0 --out split
quiet() { "$@" > /dev/null 2>&1 || { echo "alexnet_headline: failed: $*" >&2; exit 1; }; }
quiet "$bin" train --data split --collection $c --graphs-per-batch 1 --slate-size 64 \
  --iterations 1500 --decay-at 1000 --out gnn --overwrite
xgb="--layout-nodes 26 --max-configs 0 --overwrite"
tuned="--rounds 1500 --eta 0.03 --subsample 0.8 --colsample 0.5 --seed 4"
quiet "$bin" xgb train --data split --collection $c --out x1 $xgb --rounds 500
quiet "$bin" xgb train --data split --collection $c --out xd4 $xgb $tuned --max-depth 4
quiet "$bin" xgb train --data split --collection $c --out xd6 $xgb $tuned --max-depth 6
for m in x1 xd4 xd6 gnn; do quiet "$bin" predict --model $m --data split --split valid --out $m.csv; done
quiet "$bin" predict --model gnn --model xd4 --model xd6 --data split --split valid --out ensemble.csv
"$bin" score x1.csv xd4.csv gnn.csv ensemble.csv --data split --groups 20 2>/dev/null | tee score.txt
awk '/\.csv \(valid split\)/ {name = $1; sub(/\.csv$/, "", name)}
     /kendall_tau [0-9]/ && name != "" {for (i = 1; i <= NF; ++i) if ($i == "kendall_tau") {v = $(i + 1); sub(/,$/, "", v); print "figure: alexnet_tau_" name ": " v " tau"}; name = ""}
     / against x1.csv/ {n = $1; sub(/\.csv$/, "", n); for (i = 1; i <= NF; ++i) if ($i == "kendall_tau") {d = $(i + 1); sub(/,$/, "", d)}; print "figure: alexnet_tau_" n "_minus_x1: " d " tau"}' score.txt
