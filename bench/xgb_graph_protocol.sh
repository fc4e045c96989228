#!/usr/bin/env bash
# The GNN against XGBoost on graph features (issue #37, item 5), by the protocol, on the work
# folder of bench/quality_diagnosis.sh (its synthetic data, packs and the GNN's `base` runs):
#
#   1. selection, on the validation split with seed 1: each XGBoost candidate of CANDIDATES
#      (name:depth:eta:rounds:layout_nodes; subsample 0.8, colsample 0.8) trained on the training
#      pack and scored by eval on VALID_CONFIGS configurations per validation graph; the best
#      validation tau is chosen;
#   2. for each seed of SEEDS: the chosen XGBoost with that seed, and the GNN's run of that seed
#      (quality_diagnosis.sh's variant GNN_VARIANT: base, or shapes with --layout-shapes on;
#      trained by it or by layout_shapes_protocol.sh, a missing one trained here the same way),
#      each scored on the validation split and once on the test split (synth's answers).
#
# Prints the selection's taus, one line per seed, then `figure:` lines: each model's mean tau per
# split and the GNN minus XGBoost paired by seed with its 95% t interval.
# usage: bench/xgb_graph_protocol.sh GRAPHCOST_BINARY WORK_DIR
# environment: COLLECTION (layout:xla:random; tile:xla too), METRIC (an eval --json metric to
#   choose and compare by, higher is better: kendall_tau, or tile_score for tile), SEEDS
#   ("1 2 3 4 5"), GNN_VARIANT (base), CANDIDATES, VALID_CONFIGS
#   (1000), THREADS (1), and quality_diagnosis.sh's ITERATIONS (1000), SCALE and DATA_SEED.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/skip.sh"
bin=$(realpath "${1:?usage: xgb_graph_protocol.sh GRAPHCOST_BINARY WORK_DIR}")
work=${2:?usage: xgb_graph_protocol.sh GRAPHCOST_BINARY WORK_DIR}
collection=${COLLECTION:-layout:xla:random}
variant=${GNN_VARIANT:-base}
read -r -a seeds <<< "${SEEDS:-1 2 3 4 5}"
read -r -a candidates <<< "${CANDIDATES:-d6:6:0.1:200:8 d8:8:0.1:400:8 d4:4:0.05:800:8 d6n32:6:0.1:200:32}"
configs=${VALID_CONFIGS:-1000}
threads=${THREADS:-1}
py=/usr/bin/python3
"$py" -c "import scipy" 2> /dev/null ||
  { bench_skip xgb_graph_protocol "python3-scipy missing (t quantile)"; exit 0; }
name=${collection//:/-}
# The GNN's runs, the data and the packs (quality_diagnosis.sh skips what exists).
for seed in "${seeds[@]}"; do
  ITERATIONS=${ITERATIONS:-1000} SEEDS=$seed VARIANTS=$variant COLLECTIONS=$collection \
    THREADS=$threads bash "$here/quality_diagnosis.sh" "$bin" "$work" > /dev/null
done
train_pack="$work/packs/$name-train.pack" valid_pack="$work/packs/$name-valid.pack"
metric=${METRIC:-kendall_tau}
tau_of() { grep -o "\"$metric\": [0-9.e+-]*" | tail -1 | awk '{print $2}'; }
score() {  # RUN SPLIT -> the metric (valid: the validation pack; test: synth's test split)
  if [ "$2" = valid ]; then
    "$bin" eval --model "$1" --data "$valid_pack" --max-configs "$configs" --threads "$threads" \
      --json 2> /dev/null | tau_of
  else
    "$bin" eval --model "$1" --data "$work/data" --collection "$collection" --split test \
      --max-configs "$configs" --threads "$threads" --json 2> /dev/null | tau_of
  fi
}
xgb() {  # CANDIDATE SEED -> the run folder (trained unless it exists)
  local cname depth eta rounds nodes
  IFS=: read -r cname depth eta rounds nodes <<< "$1"
  local run="$work/runs/$name-xgb-$cname-$2"
  [ -f "$run/model.xgb" ] || "$bin" xgb train --data "$train_pack" --collection "$collection" \
    --max-depth "$depth" --eta "$eta" --rounds "$rounds" --layout-nodes "$nodes" \
    --subsample 0.8 --colsample 0.8 --seed "$2" --threads "$threads" --out "$run" --overwrite \
    > "$run.log" 2>&1 || { tail -n 3 "$run.log" >&2; exit 1; }
  echo "$run"
}
best="" best_tau=-2
for candidate in "${candidates[@]}"; do
  tau=$(score "$(xgb "$candidate" 1)" valid)
  echo "selection: $candidate valid $metric $tau (seed 1)"
  if "$py" -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$tau" "$best_tau"; then
    best=$candidate best_tau=$tau
  fi
done
echo "selection: chosen $best"
rows=()
for seed in "${seeds[@]}"; do
  xrun=$(xgb "$best" "$seed")
  grun="$work/runs/$name-$variant-$seed"
  line="$seed $(score "$grun" valid) $(score "$grun" test) $(score "$xrun" valid) $(score "$xrun" test)"
  echo "seed $seed: gnn valid, test; xgb valid, test: ${line#* }"
  rows+=("$line")
done
printf '%s\n' "${rows[@]}" | "$py" -c '
import statistics, sys
from scipy import stats
name, metric = sys.argv[1], sys.argv[2]
rows = [list(map(float, line.split()[1:])) for line in sys.stdin if line.strip()]
for i, split in enumerate(("valid", "test")):
    gnn = [r[i] for r in rows]
    xgb = [r[2 + i] for r in rows]
    d = [a - b for a, b in zip(gnn, xgb)]
    half = stats.t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
    m = statistics.mean(d)
    print(f"figure: {name}_{split}_gnn_{metric}: {statistics.mean(gnn):.4f} {metric}")
    print(f"figure: {name}_{split}_xgb_{metric}: {statistics.mean(xgb):.4f} {metric}")
    print(f"figure: {name}_{split}_gnn_minus_xgb: {m:+.4f} {metric} "
          f"(95% interval [{m - half:+.4f}, {m + half:+.4f}], {len(d)} seeds)")
' "$name-$variant" "$metric"
