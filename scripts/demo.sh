#!/usr/bin/env bash
# The main job on bundled default data: synth -> pack -> train -> eval -> predict -> report ->
# score, for one layout and the tile collection. Everything goes under OUT_DIR.
set -euo pipefail
bin=${1:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
out=${2:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
iterations=${DEMO_ITERATIONS:-1000}
threads=${DEMO_THREADS:-0}
mkdir -p "$out"
data="$out/data"

echo "== synth: a small synthetic TpuGraphs dataset (all five collections) under $data"
if [ ! -f "$data/synth_report.json" ]; then
  "$bin" synth --out "$data" --seed 1 --scale small --threads "$threads"
fi

submissions=()
for collection in layout:xla:random tile:xla; do
  name=${collection//:/-}
  echo
  echo "== $collection: pack each split"
  for split in train valid test; do
    "$bin" pack "$data" --collection "$collection" --split "$split" --out "$out/$name-$split.pack" 2>/dev/null
  done
  "$bin" inspect "$out/$name-valid.pack"

  echo
  echo "== $collection: train ($iterations iterations)"
  run="$out/runs/$name"
  rm -rf "$run"
  if [ "$collection" = tile:xla ]; then
    extra=(--loss diffmat:1,mape:0.1 --graphs-per-batch 8 --slate-size 16)
  else
    extra=(--loss listmle --graphs-per-batch 2 --slate-size 16 --hidden 64 64 64)
  fi
  "$bin" train --data "$out/$name-train.pack" --valid-data "$out/$name-valid.pack" \
    --collection "$collection" --out "$run" --iterations "$iterations" \
    --validate-every $((iterations / 3)) --log-every 25 --threads "$threads" --seed 1 "${extra[@]}"

  echo
  echo "== $collection: evaluate on valid, against a random ranking"
  "$bin" eval --model "$run" --data "$out/$name-valid.pack" --threads "$threads" 2>/dev/null
  "$bin" eval --baseline random --collection "$collection" --data "$out/$name-valid.pack" 2>/dev/null | tail -n 1 |
    sed 's/^mean/random baseline mean/'

  echo
  echo "== $collection: rank the test split"
  "$bin" predict --model "$run" --data "$out/$name-test.pack" --out "$out/$name-submission.csv" \
    --threads "$threads" 2>/dev/null
  submissions+=("$out/$name-submission.csv")
  "$bin" report "$run"
done

echo
"$bin" submit "${submissions[@]}" --out "$out/submission.csv"
echo
echo "== score the submission against the test split (synthetic test files keep their answers)"
"$bin" score "$out/submission.csv" --data "$data" --split test 2>/dev/null
echo
echo "demo done: reports in $out/runs/*/report.html, submission in $out/submission.csv"
