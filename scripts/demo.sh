#!/usr/bin/env bash
# The main job on bundled default data: synth -> pack -> train -> eval -> predict -> report ->
# score, for one layout and the tile collection. Everything goes under OUT_DIR.
# Warnings and progress lines go to stderr and are shown; the first step that fails stops the
# demo with its own error line followed by "demo: step '<step>' failed (exit N)".
set -euo pipefail
bin=${1:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
out=${2:?usage: demo.sh GRAPHCOST_BINARY OUT_DIR}
step="start"
trap 'status=$?; echo "demo: step '"'"'$step'"'"' failed (exit $status)" >&2; exit $status' ERR
iterations=${DEMO_ITERATIONS:-1000}
threads=${DEMO_THREADS:-0}
mkdir -p "$out"
data="$out/data"

echo "== synth: a small synthetic TpuGraphs dataset (all five collections) under $data"
step="synth"
if [ ! -f "$data/synth_report.json" ]; then
  "$bin" synth --out "$data" --seed 1 --scale small --threads "$threads"
fi

submissions=()
for collection in layout:xla:random tile:xla; do
  name=${collection//:/-}
  echo
  echo "== $collection: pack each split"
  for split in train valid test; do
    step="pack $collection $split"
    "$bin" pack "$data" --collection "$collection" --split "$split" --out "$out/$name-$split.pack"
  done
  step="inspect $collection"
  "$bin" inspect "$out/$name-valid.pack"

  echo
  echo "== $collection: train ($iterations iterations)"
  step="train $collection"
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
  step="eval $collection"
  "$bin" eval --model "$run" --data "$out/$name-valid.pack" --threads "$threads"
  step="eval --baseline random $collection"
  # Only the table's last line (the mean) of stdout; stderr still shows warnings and errors.
  baseline=$("$bin" eval --baseline random --collection "$collection" --data "$out/$name-valid.pack")
  echo "$baseline" | tail -n 1 | sed 's/^mean/random baseline mean/'

  echo
  echo "== $collection: rank the test split"
  step="predict $collection"
  "$bin" predict --model "$run" --data "$out/$name-test.pack" --out "$out/$name-submission.csv" \
    --threads "$threads"
  submissions+=("$out/$name-submission.csv")
  step="report $collection"
  "$bin" report "$run"
done

echo
step="submit"
"$bin" submit "${submissions[@]}" --out "$out/submission.csv"
echo
echo "== score the submission against the test split (synthetic test files keep their answers)"
step="score"
"$bin" score "$out/submission.csv" --data "$data" --split test
echo
echo "demo done: reports in $out/runs/*/report.html, submission in $out/submission.csv"
