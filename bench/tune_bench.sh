#!/usr/bin/env bash
# Autotuning on the real Kernel Tuner records: for each kernel and each device as the target,
# the measurements needed to come within 1% of the optimum (mean over the seeds that got there
# within the budget, and how many did), for random search, the genetic algorithm, model-guided
# search from scratch, and model-guided search from a model pre-trained (graphcost train) on the
# other devices of the same kernel. Prints one row per target and a markdown table at the end.
# usage: bench/tune_bench.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: KERNELS (convolution dedispersion), DEVICES (A100 A4000 A6000 W6600), SEEDS (10),
#   BUDGET (400), BATCH (20), PRETRAIN_ITERATIONS (1500), DATA (../shared/data/kernel_tuner)
set -euo pipefail
bin=${1:?usage: tune_bench.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
data=${DATA:-$here/../../shared/data/kernel_tuner}
kernels=${KERNELS:-convolution dedispersion}
devices=${DEVICES:-A100 A4000 A6000 W6600}
seeds=${SEEDS:-10}
budget=${BUDGET:-400}
batch=${BATCH:-20}
pretrain_iterations=${PRETRAIN_ITERATIONS:-1500}
mkdir -p "$work"
field() { /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j[sys.argv[2]])" "$@"; }
cell() {  # "mean (reached/seeds)" for a report
  /usr/bin/python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
m = j['reach_1pct']
print(('%.0f' % m if m is not None else '-') + ' (%d/%d)' % (j['reach_1pct_seeds'], j['settings']['seeds']))" "$1"
}
tune() {  # tune OUT ARGS...: runs once, keeps the JSON (a rerun skips finished cells)
  local out=$1; shift
  [ -s "$out" ] && return 0
  if "$bin" tune "$@" $common > "$out.tmp" 2> "$out.log"; then mv "$out.tmp" "$out"; else echo "failed: $out (see $out.log)" >&2; fi
}
common="--budget $budget --seeds $seeds --batch $batch --threads 1 --json"
for kernel in $kernels; do
  for device in $devices; do
    tag="$kernel-$device"
    for strategy in random genetic model; do
      tune "$work/$tag-$strategy.json" --space "$data/$kernel" --device "$device" --strategy "$strategy"
    done
    graph=$(field "$work/$tag-random.json" graph)
    run="$work/pretrain-$tag"
    if [ ! -s "$run/model.pt" ]; then
      rm -rf "$run"
      "$bin" train --data "$data/$kernel" --collection tile:xla --exclude "$graph" --valid-split "" \
        --out "$run" --iterations "$pretrain_iterations" --graphs-per-batch 3 --slate-size 64 \
        --loss listmle --hidden 64 64 --dropout 0.2 --lr 0.003 --threads 1 > /dev/null 2>&1
    fi
    out="$work/$tag-model-pretrained.json"
    tune "$out" --space "$data/$kernel" --device "$device" --strategy model --pretrained "$run"
    echo "$tag: random $(cell "$work/$tag-random.json"), genetic $(cell "$work/$tag-genetic.json"), model $(cell "$work/$tag-model.json"), model+pretrained $(cell "$out")"
  done
done
[ -n "${NO_TABLE:-}" ] && exit 0
echo
echo "Measurements to reach within 1% of the optimum (mean over the seeds that did, within a budget of $budget; (seeds that did / seeds)):"
echo
echo "| kernel | target | configurations | random | genetic | model | model, pre-trained on the other devices |"
echo "|---|---|---|---|---|---|---|"
for kernel in $kernels; do
  for device in $devices; do
    tag="$kernel-$device"
    [ -s "$work/$tag-model-pretrained.json" ] || continue
    echo "| $kernel | $device | $(field "$work/$tag-random.json" configurations) | $(cell "$work/$tag-random.json") | $(cell "$work/$tag-genetic.json") | $(cell "$work/$tag-model.json") | $(cell "$work/$tag-model-pretrained.json") |"
  done
done
