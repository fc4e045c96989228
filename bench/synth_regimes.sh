# Sourced by the bench scripts that train on the speed table's synthetic regimes
# (bench/precision_compare.sh, bench/step_profile.sh, bench/flops.sh; bench/speed_table.sh spells its own through
# bench/reference_compare.sh): 4 graphs of 6,000 nodes, 10% configurable, 200 configurations each.
# synth_regime REGIME WORK_DIR BINARY sets collection, g (graphs a batch), s (slate size), steps
# (training iterations) and data (the synthetic dataset, written once under WORK_DIR/REGIME).
declare -A synth_regimes=(
  [default_s10]="layout:xla:default - 4 10 40"
  [default_s40]="layout:xla:default - 4 40 20"
  [tied_s10]="layout:xla:random tied 4 10 40"
  [tied_s40]="layout:xla:random tied 4 40 20"
)
synth_regime() {
  local regime=$1 work=$2 bin=$3 search random_search=""
  [ -n "${synth_regimes[$regime]:-}" ] ||
    { echo "$(basename "$0"): unknown regime $regime (${!synth_regimes[*]})" >&2; exit 1; }
  read -r collection search g s steps <<< "${synth_regimes[$regime]}"
  [ "$search" = - ] || random_search=", \"random_search\": \"$search\""
  data="$work/$regime/data"
  if [ ! -f "$data/synth_report.json" ]; then
    mkdir -p "$work/$regime"
    printf '[{"collection": "%s", "files": [4, 0, 0], "nodes": [6000, 6000], "configs": [200, 200], "configurable_fraction": [0.1, 0.1]%s}]\n' \
      "$collection" "$random_search" > "$work/$regime/plan.json"
    "$bin" synth --out "$data" --plan "$work/$regime/plan.json" --seed 11 > /dev/null
  fi
}
# train_regime BINARY RUN PRECISION THREADS [COMMAND...]: trains the regime synth_regime last set
# (data, collection, g, s, steps) into a fresh RUN, logging every step, its stderr in RUN.log; a
# failure shows the log and exits. COMMAND, when given, runs the training (e.g. `perf record
# ... --`).
# The speed table's model: the layout model without layout_shapes' inputs (the reference's), also
# where a binary turns them on by default (`--layout-shapes auto`).
regime_model=()
train_regime() {
  local help_text  # read whole: grep -q on a pipe fails under pipefail
  help_text=$("$1" train --help 2>&1)
  if grep -q -- '--layout-shapes TEXT' <<< "$help_text"; then regime_model=(--layout-shapes off); fi
  local bin=$1 run=$2 precision=$3 threads=$4
  shift 4
  rm -rf "$run"
  "$@" "$bin" train --data "$data" --collection "$collection" --valid-split "" --out "$run" \
    --iterations "$steps" --log-every 1 --checkpoint-every 0 --graphs-per-batch "$g" \
    --slate-size "$s" --threads "$threads" --precision "$precision" "${regime_model[@]}" \
    > /dev/null 2> "$run.log" \
    || { cat "$run.log" >&2; exit 1; }
}
# The configs/s of a run without its first step (which pages in fresh memory), from its
# metrics.jsonl logged every step: steps over the sum of the steps' times.
steady_rate() {
  grep -o '"configs_per_s":[0-9.e+-]*' "$1/metrics.jsonl" | cut -d: -f2 |
    awk '{ if (NR > 1) { n++; t += 1 / $1 } } END {printf "%.2f", n / t}'
}
