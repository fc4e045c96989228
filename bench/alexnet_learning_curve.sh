#!/usr/bin/env bash
# Learning curve on the real AlexNet layout graph (../shared/data/tpugraphs/alexnet_layout_reduced.npz):
# how much does Kendall tau grow with more training configurations? One fixed test set (a seeded
# 40% of the distinct configurations, `graphcost split --fraction 0.6`), and training sets of 5,
# 10, 20, 30 and 60% of all configurations drawn from the other 60% (nested splits of it). For
# each: the tuned XGBoost of docs/results.md and the default GNN (1,500 iterations, slates of
# 64), their tau on the test set and on their own training set; with FAMILIES including ridge,
# also ridge regression on one-hot layouts (bench/alexnet_ridge.py, lambda 0.01; numpy, outside
# graphcost). If tau barely grows when the training set triples, the models are limited by the
# labels' noise rather than by what 20% of the data shows them. Prints one line per run, a table,
# and `figure:` lines.
# usage: bench/alexnet_learning_curve.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: FAMILIES (default "xgboost gnn"; also "ridge"), SHARES (default "5 10 20 30 60":
# percentages of all configurations, each at most 60), THREADS (default 2)
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: alexnet_learning_curve.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here="$(cd "$(dirname "$0")" && pwd)"
source_npz="$here/../../shared/data/tpugraphs/alexnet_layout_reduced.npz"
py=/usr/bin/python3
[ -f "$source_npz" ] || { bench_skip alexnet_learning_curve "$source_npz not present"; exit 0; }
threads=${THREADS:-2}
collection=layout:xla:default
name=alexnet_layout_reduced
mkdir -p "$work"

# pool/train: 60% of the distinct configurations; pool/valid: the fixed 40% test set.
rm -rf "$work/pool"
"$bin" split "$source_npz" --fraction 0.6 --seed 0 --out "$work/pool" > /dev/null

tau_of() {  # eval --json on stdin -> the collection's Kendall tau
  "$py" -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["kendall_tau"])'
}

# TRAIN.npz TEST.npz -> "TEST_TAU TRAIN_TAU" of ridge at lambda 0.01, or "skip: REASON" (the
# script's own skip line, with skips allowed there so that bench_skip below decides).
ridge_taus() {
  BENCH_ALLOW_SKIPS=1 "$py" "$here/alexnet_ridge.py" "$1" "$2" 0.01 |
    sed -n 's/^lambda 0.01: test tau \([^,]*\), training-set tau \(.*\)$/\1 \2/p
            s/^figure: [^:]*: skipped (\(.*\))$/skip: \1/p'
}

results="$work/results.tsv"
: > "$results"
for percent in ${SHARES:-5 10 20 30 60}; do
  data="$work/sub$percent"
  rm -rf "$data"
  if [ "$percent" = 60 ]; then
    mkdir -p "$data/train" && cp "$work/pool/train/$name.npz" "$data/train/"
  else
    # nested draws from the pool: percent/60 of it
    fraction=$("$py" -c "print($percent / 60)")
    "$bin" split "$work/pool/train/$name.npz" --fraction "$fraction" --seed 1 --out "$data" > /dev/null
  fi
  configs=$("$py" -c "import numpy; print(len(numpy.load('$data/train/$name.npz')['config_runtime']))")
  for family in ${FAMILIES:-xgboost gnn}; do
    run="$work/run_${family}_$percent"
    rm -rf "$run"
    start=$(date +%s)
    if [ "$family" = ridge ]; then
      taus=$(ridge_taus "$data/train/$name.npz" "$work/pool/valid/$name.npz")
      case "$taus" in skip:*) bench_skip "alexnet_learning_curve_ridge_$percent" "${taus#skip: }"; continue ;; esac
      read -r test_tau train_tau <<< "$taus"
      seconds=$(( $(date +%s) - start ))
    else
      if [ "$family" = xgboost ]; then
        "$bin" xgb train --data "$data" --collection "$collection" --layout-nodes 26 --max-configs 0 \
          --rounds 1500 --eta 0.03 --max-depth 4 --subsample 0.8 --colsample 0.5 --seed 4 \
          --threads "$threads" --out "$run" > "$run.log" 2>&1
      else
        "$bin" train --data "$data" --collection "$collection" --valid-split '' --graphs-per-batch 1 \
          --slate-size 64 --iterations 1500 --decay-at 1000 --threads "$threads" --out "$run" > "$run.log" 2>&1
      fi
      seconds=$(( $(date +%s) - start ))
      test_tau=$("$bin" eval --model "$run" --data "$work/pool" --split valid --threads "$threads" --json 2>/dev/null | tau_of)
      train_tau=$("$bin" eval --model "$run" --data "$data" --split train --threads "$threads" --json 2>/dev/null | tau_of)
    fi
    echo "$family: trained on $percent% ($configs configurations, ${seconds}s): test tau $test_tau, training-set tau $train_tau"
    printf '%s\t%s\t%s\t%s\t%s\n' "$family" "$percent" "$configs" "$test_tau" "$train_tau" >> "$results"
  done
done

echo
echo "| model | training share | configurations | test tau | training-set tau |"
echo "|---|---|---|---|---|"
while IFS=$'\t' read -r family percent configs test_tau train_tau; do
  echo "| $family | $percent% | $configs | $test_tau | $train_tau |"
done < "$results"
echo
while IFS=$'\t' read -r family percent configs test_tau train_tau; do
  echo "figure: ${family}_test_tau_train_${percent}pct: $test_tau tau"
done < "$results"
