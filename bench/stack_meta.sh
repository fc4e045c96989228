#!/bin/bash
# Which meta-learner graphcost stack uses by default (docs/stack.md): ridge against XGBoost
# rank:pairwise over the same members, on a synthetic tile collection per seed. Members: an
# XGBoost run and a small neural run, both trained on the training split; the stack is fitted
# on the validation split. Prints per seed and meta-learner the cross-fitted validation tau
# (out of fold: each validation graph scored by a meta-learner fitted without it; the chosen
# setting's) and the test tau of the fitted stack (eval), and each member's test tau.
# usage: stack_meta.sh GRAPHCOST_BINARY [WORK_DIR] (SEEDS="1 2 3 4 5" by default: the protocol's 5 seeds)
set -euo pipefail
bin=${1:?usage: stack_meta.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
py=/usr/bin/python3
threads=${THREADS:-1}
mkdir -p "$work"
tau() { "$py" -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["kendall_tau"])'; }
for seed in ${SEEDS:-1 2 3 4 5}; do
  dir="$work/seed$seed"
  rm -rf "$dir"
  mkdir -p "$dir"
  cat > "$dir/plan.json" <<'PLAN'
[{"collection": "tile:xla", "files": [24, 16, 16], "nodes": [20, 40], "configs": [40, 80],
  "configurable_fraction": [0.1, 0.1]}]
PLAN
  "$bin" synth --out "$dir/data" --plan "$dir/plan.json" --seed "$seed" --threads "$threads" > /dev/null 2>&1
  common=(--data "$dir/data" --collection tile:xla --threads "$threads")
  "$bin" xgb train "${common[@]}" --rounds 100 --seed "$seed" --out "$dir/xgb" > /dev/null 2>&1
  "$bin" train "${common[@]}" --valid-split '' --iterations 300 --graphs-per-batch 4 \
    --slate-size 16 --hidden 32 32 --seed "$seed" --out "$dir/nn" > /dev/null 2>&1
  for member in xgb nn; do
    echo "figure: stack_seed${seed}_member_${member}_test_tau: $("$bin" eval "${common[@]}" --split test --json --model "$dir/$member" 2>/dev/null | tau)"
  done
  for meta in ridge xgboost; do
    "$bin" stack "${common[@]}" --member "$dir/xgb" --member "$dir/nn" --meta "$meta" \
      --seed "$seed" --out "$dir/stack_$meta" > "$dir/stack_$meta.log" 2>&1
    valid=$("$py" -c '
import json, sys
s = json.load(open(sys.argv[1]))["stack"]
print("%.4f" % [c["tau"] for c in s["cross_fit"] if c["setting"] == s["setting"]][0])' "$dir/stack_$meta/config.json")
    echo "figure: stack_seed${seed}_${meta}_valid_tau_cross_fitted: $valid"
    echo "figure: stack_seed${seed}_${meta}_test_tau: $("$bin" eval "${common[@]}" --split test --json --model "$dir/stack_$meta" 2>/dev/null | tau)"
  done
done
