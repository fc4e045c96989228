#!/usr/bin/env bash
# Leave-one-device-out on the Kernel Tuner records (../shared/data/kernel_tuner: two kernels, four
# GPUs each, every configuration measured): for each kernel and each device, train on the other
# three devices' caches and rank the held-out device's configurations. Kendall tau and top-1 /
# top-5 error of: XGBoost (graphcost xgb), the default neural model, --architecture mlp and --head
# pairwise when this build's `train` has those flags; baseline: ranking by another device's
# measured times (each of the other three; their mean is shown). Prints one line per result, a
# table of means per kernel, and `figure:` lines.
# usage: bench/kt_holdout.sh GRAPHCOST_BINARY [ITERATIONS] [WORK_DIR]
# environment: XGB_ROUNDS (default 200), THREADS (default 1: the figures do not depend on it)
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: kt_holdout.sh GRAPHCOST_BINARY [ITERATIONS] [WORK_DIR]}
iterations=${2:-300}
work=${3:-$(mktemp -d)}
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../shared/data/kernel_tuner"
py=/usr/bin/python3
[ -d "$root" ] || { bench_skip kt_holdout "$root not present"; exit 0; }
mkdir -p "$work"
results="$work/results.tsv"
: > "$results"

train_help=$("$bin" train --help 2>&1)
neural=(default)
if grep -q -- "--architecture" <<< "$train_help"; then neural+=(mlp); else bench_skip kt_holdout_mlp "this build's train has no --architecture"; fi
if grep -q -- "--head" <<< "$train_help"; then neural+=(pairwise); else bench_skip kt_holdout_pairwise "this build's train has no --head"; fi

# graph name -> the metrics of that graph in an `eval --json` answer, as "tau top1 top5".
graph_metrics() {
  "$py" -c '
import json, sys
j = json.load(sys.stdin)
for g in j["graphs"]:
    if g["name"] == sys.argv[1]:
        f = lambda v: "nan" if v is None else "%.4f" % v
        print(f(g.get("kendall_tau")), f(g["top1_error"]), f(g["top5_error"]))
' "$1"
}

for kernel_dir in "$root"/*/; do
  kernel=$(basename "$kernel_dir")
  caches=("$kernel_dir"*.json.gz)
  [ -e "${caches[0]}" ] || continue
  mapfile -t names < <("$bin" eval --baseline random --collection tile:xla --data "$kernel_dir" \
    --max-configs 2 --json 2>/dev/null | "$py" -c 'import json,sys; [print(g["name"]) for g in json.load(sys.stdin)["graphs"]]')
  for held in "${caches[@]}"; do
    device=$(basename "$held" .json.gz)
    name=""
    for n in "${names[@]}"; do [[ "$n" == *"_$device"* ]] && name=$n; done
    [ -n "$name" ] || { bench_skip "kt_holdout_${kernel}_$device" "no graph named after $device in $kernel_dir"; continue; }
    fold="$work/$kernel/$device"
    rm -rf "$fold"  # train and xgb train refuse to write over an earlier run
    mkdir -p "$fold"
    common=(--data "$kernel_dir" --collection tile:xla --exclude "$name" --threads "${THREADS:-1}")
    "$bin" xgb train "${common[@]}" --rounds "${XGB_ROUNDS:-200}" --out "$fold/xgb" > /dev/null 2>&1
    metrics=$("$bin" eval --model "$fold/xgb" --data "$kernel_dir" --threads "${THREADS:-1}" --json 2>/dev/null | graph_metrics "$name")
    printf '%s\t%s\t%s\t%s\n' "$kernel" "$device" xgboost "$metrics" | tr ' ' '\t' >> "$results"
    for variant in "${neural[@]}"; do
      extra=()
      [ "$variant" = mlp ] && extra=(--architecture mlp)
      [ "$variant" = pairwise ] && extra=(--head pairwise)
      "$bin" train --model gnn "${common[@]}" "${extra[@]}" --valid-split "" --iterations "$iterations" \
        --graphs-per-batch 3 --slate-size 32 --loss listmle --seed 0 --out "$fold/$variant" > /dev/null 2>&1
      metrics=$("$bin" eval --model "$fold/$variant" --data "$kernel_dir" --threads "${THREADS:-1}" --json 2>/dev/null | graph_metrics "$name")
      printf '%s\t%s\t%s\t%s\n' "$kernel" "$device" "$variant" "$metrics" | tr ' ' '\t' >> "$results"
    done
    for reference in "${caches[@]}"; do
      [ "$reference" = "$held" ] && continue
      ref=$(basename "$reference" .json.gz)
      metrics=$("$py" "$here/kt_other_device.py" "$reference" "$held" | "$py" -c '
import json, sys; j = json.load(sys.stdin); print("%.4f %.4f %.4f" % (j["kendall_tau"], j["top1_error"], j["top5_error"]))')
      printf '%s\t%s\t%s\t%s\n' "$kernel" "$device" "device:$ref" "$metrics" | tr ' ' '\t' >> "$results"
    done
    grep -P "^$kernel\t$device\t" "$results" | column -t
  done
done

"$py" - "$results" <<'PY'
import collections, math, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
means = collections.defaultdict(list)
for kernel, device, method, tau, top1, top5 in rows:
    key = (kernel, "other-device" if method.startswith("device:") else method)
    means[key].append([float(tau), float(top1), float(top5)])
print("\nmeans over held-out devices (other-device: over every reference device)")
print("%-14s %-14s %8s %8s %8s" % ("kernel", "method", "tau", "top1", "top5"))
for (kernel, method), values in sorted(means.items()):
    cols = [sum(v[i] for v in values) / len(values) for i in range(3)]
    print("%-14s %-14s %8.4f %8.4f %8.4f" % (kernel, method, *cols))
    for name, value in zip(("tau", "top1_error", "top5_error"), cols):
        print("figure: kt_holdout_%s_%s_%s: %.4f ratio" % (kernel, method.replace("-", "_"), name, value))
PY
