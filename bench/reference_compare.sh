#!/usr/bin/env bash
# graphcost against the plain PyTorch reference (bench/python_reference/reference_train.py): the
# same default layout model, data, G and S, 2 threads each, a fixed number of training steps.
# Prints configs/s of each and the ratios as `figure: name: value unit` lines.
# usage: bench/reference_compare.sh [GRAPHCOST_BINARY] [WORK_DIR]
# Environment: NODES (6000), FRACTION (0.1), GRAPHS (4 files), CONFIGS (200 per file), G (4),
# S (10), REFERENCE_STEPS (4), GRAPHCOST_STEPS (40), THREADS (2); DATA_FOLDER (a folder of .npz
# files to use instead of synthetic ones, e.g. one written by `graphcost ingest`); COLLECTION (the
# collection id of DATA_FOLDER or of the synthetic files, default layout:xla:random; a "default"
# search changes a few nodes per configuration, so rows share classes: model/forward/config_classes.h);
# RANDOM_SEARCH (independent or tied: the synthetic random search, every node on its own or tied
# groups with a few assignments each as in real random-search files; synth/generator.h);
# REFERENCE_MALLOC (tcmalloc, the default where installed, or glibc; see below).
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:-build/graphcost}
work=${2:-$(mktemp -d)}
nodes=${NODES:-6000} fraction=${FRACTION:-0.1} graphs=${GRAPHS:-4} configs=${CONFIGS:-200}
g=${G:-4} s=${S:-10} reference_steps=${REFERENCE_STEPS:-4} graphcost_steps=${GRAPHCOST_STEPS:-40}
threads=${THREADS:-2}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
if ! "$python" -c "import torch, numpy" 2> /dev/null; then
  bench_skip reference_compare "$python cannot import torch and numpy (Debian: python3-torch python3-numpy)"
  exit 0
fi
[ -x "$bin" ] || { echo "reference_compare: error: no graphcost binary at $bin" >&2; exit 1; }

collection=${COLLECTION:-layout:xla:random}
random_search=""
if [ -n "${RANDOM_SEARCH:-}" ]; then random_search=", \"random_search\": \"$RANDOM_SEARCH\""; fi
mkdir -p "$work/runs"
if [ -n "${DATA_FOLDER:-}" ]; then
  data=$DATA_FOLDER folder=$DATA_FOLDER
else
  data="$work/data"
  plan="[{\"collection\": \"$collection\", \"files\": [$graphs, 0, 0], \"nodes\": [$nodes, $nodes],
  \"configs\": [$configs, $configs], \"configurable_fraction\": [$fraction, $fraction]$random_search}]"
  # Data from an earlier run is reused only if it was made from the same plan.
  if [ ! -f "$data/synth_report.json" ] || [ "$(cat "$work/plan.json" 2> /dev/null)" != "$plan" ]; then
    rm -rf "$data"
    printf '%s\n' "$plan" > "$work/plan.json"
    "$bin" synth --out "$data" --plan "$work/plan.json" --seed 11 > /dev/null
  fi
  folder="$data/npz/$(tr : / <<< "$collection")/train"
fi
"$bin" inspect "$folder" 2>&1 | sed -n 3,20p

# The reference allocates fresh activations of S full graphs in every operation. With glibc's
# malloc each large one is a new mmap, paid for with a page fault per 4 KiB page (about 10 us on a
# virtual machine: 90 ms for one relu of 60,000 x 146 floats, against 2 ms in place), which made
# it 3-6x slower here. tcmalloc keeps freed memory for reuse, so the reference is run with it
# where it is installed (Debian: libtcmalloc-minimal4), and the ratios are taken against its rate
# without the first step: the strongest reference this machine gives. REFERENCE_MALLOC=glibc
# runs it plainly. graphcost links tcmalloc itself (CMakeLists.txt); its rates too are taken
# without the first step, and printed with it as well.
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
preload=""
if [ "${REFERENCE_MALLOC:-tcmalloc}" = tcmalloc ]; then
  if [ -f "$tcmalloc" ]; then preload=$tcmalloc; else
    echo "reference_compare: note: no $tcmalloc (Debian: libtcmalloc-minimal4); the reference runs on glibc's malloc, slower on a virtual machine"
  fi
fi
[ "$reference_steps" -ge 2 ] || { echo "reference_compare: error: REFERENCE_STEPS must be at least 2" >&2; exit 1; }
echo "== python reference: $reference_steps steps of G=$g x S=$s, $threads threads, malloc: ${preload:-glibc}"
reference=$(LD_PRELOAD=$preload "$python" "$here/python_reference/reference_train.py" --data "$folder" \
  --steps "$reference_steps" --graphs-per-batch "$g" --slate-size "$s" --threads "$threads" \
  2> "$work/reference.log")
grep -o 'reference_train: [0-9]* graphs.*' "$work/reference.log" | head -1
reference_rate=$(awk '/reference_train_steady_configs_per_s:/ {print $3}' <<< "$reference")
reference_cpu_rate=$(awk '/reference_train_steady_configs_per_cpu_s:/ {print $3}' <<< "$reference")
reference_first_rate=$(awk '/reference_train_configs_per_s:/ {print $3}' <<< "$reference")
echo "figure: reference_train_configs_per_s_with_first_step: $reference_first_rate configs/s"
echo "figure: reference_train_configs_per_s: $reference_rate configs/s"
echo "figure: reference_train_configs_per_cpu_s: $reference_cpu_rate configs/cpu-s"

# A graphcost run: sets rate (configs/s without the first step, as the reference's), first_rate
# (with it) and cpu_rate (configs per CPU-second of the whole process, loading included, so
# slightly pessimistic). Every step is logged; a step's time is its configurations over its rate,
# every step of these runs having G x S configurations.
# The reference is the layout model without layout_shapes' inputs: a binary where they are on
# by default (`--layout-shapes auto`) trains with them off, so both sides run the same model.
same_model=()
help_text=$("$bin" train --help 2>&1)  # read whole: grep -q on a pipe fails under pipefail
if grep -q -- '--layout-shapes TEXT' <<< "$help_text"; then same_model=(--layout-shapes off); fi
train_run() {
  local run="$work/runs/$1"; shift
  rm -rf "$run"
  /usr/bin/time -f "%U %S" -o "$run.time" "$bin" train --data "$data" --collection "$collection" \
    --valid-split "" --out "$run" --iterations "$graphcost_steps" --log-every 1 \
    --checkpoint-every 0 --graphs-per-batch "$g" --slate-size "$s" --threads "$threads" "${same_model[@]}" "$@" \
    2> "$run.log" > /dev/null || { cat "$run.log" >&2; exit 1; }
  grep -o 'model: [0-9]* parameters' "$run.log" | head -1
  local rates
  rates=$(grep -o '"configs_per_s":[0-9.e+-]*' "$run/metrics.jsonl" | cut -d: -f2)
  rate=$(awk '{ if (NR > 1) { steps++; seconds += 1 / $1 } } END {printf "%.1f", steps / seconds}' <<< "$rates")
  first_rate=$(awk '{ steps++; seconds += 1 / $1 } END {printf "%.1f", steps / seconds}' <<< "$rates")
  cpu_rate=$(awk -v c=$((graphcost_steps * g * s)) '{printf "%.3f", c / ($1 + $2)}' "$run.time")
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }

echo "== same model? the reference scores a short graphcost run's validation sample with its weights"
rm -rf "$work/runs/check"
"$bin" train --data "$data" --collection "$collection" --valid-split train --out "$work/runs/check" \
  --iterations 3 --graphs-per-batch 2 --slate-size 4 --threads "$threads" --valid-configs-per-graph 6 \
  --checkpoint-every 0 "${same_model[@]}" > /dev/null 2>&1
"$python" "$here/python_reference/reference_train.py" --data "$folder" --threads "$threads" \
  --compare-run "$work/runs/check" 2> /dev/null

echo "== graphcost train (exact delta evaluation): $graphcost_steps steps"
train_run delta
echo "figure: graphcost_train_configs_per_s: $rate configs/s"
echo "figure: graphcost_train_configs_per_s_with_first_step: $first_rate configs/s"
echo "figure: graphcost_train_configs_per_cpu_s: $cpu_rate configs/cpu-s"
echo "figure: graphcost_over_reference: $(ratio "$rate" "$reference_rate") x"
echo "figure: graphcost_over_reference_with_first_steps: $(ratio "$first_rate" "$reference_first_rate") x"
echo "figure: graphcost_over_reference_cpu: $(ratio "$cpu_rate" "$reference_cpu_rate") x"
delta_rate=$rate

# The help text is read whole first: `grep -q` closing the pipe early would fail under pipefail.
train_help=$("$bin" train --help 2>&1)
if grep -q -- --share-rows <<< "$train_help"; then
  # What computing one row per class of locally equal configurations buys (model/forward/config_classes.h):
  # the same exact delta evaluation with every configuration's row computed.
  echo "== graphcost train --share-rows false (every configuration's row): $graphcost_steps steps"
  train_run every_row --share-rows false
  echo "figure: graphcost_every_row_train_configs_per_s: $rate configs/s"
  echo "figure: graphcost_every_row_over_reference: $(ratio "$rate" "$reference_rate") x"
  echo "figure: row_sharing_speedup: $(ratio "$delta_rate" "$rate") x"
fi
if grep -q -- --prune-hops <<< "$train_help"; then
  echo "== graphcost train --prune-hops 1: $graphcost_steps steps"
  train_run prune1 --prune-hops 1
  echo "figure: graphcost_prune1_train_configs_per_s: $rate configs/s"
  echo "figure: graphcost_prune1_train_configs_per_s_with_first_step: $first_rate configs/s"
  echo "figure: graphcost_prune1_train_configs_per_cpu_s: $cpu_rate configs/cpu-s"
  echo "figure: graphcost_prune1_over_reference: $(ratio "$rate" "$reference_rate") x"
  echo "figure: graphcost_prune1_over_reference_cpu: $(ratio "$cpu_rate" "$reference_cpu_rate") x"
else
  bench_skip graphcost_prune1_train_configs_per_s "this graphcost has no --prune-hops option"
fi
