#!/usr/bin/env bash
# Autotuning on the real Kernel Tuner records (docs/tune.md): every kernel of the shared data,
# each device in turn the target and held out: measurements to come within 1%, 5% and 10% of
# the optimum for each strategy, over SEEDS seeds: the mean counting a seed that never got
# there as budget + 1, the median (same convention) and the share of seeds that got there.
# "bo-pretrained" is bo with --pretrained on the kernel's folder: the other three devices'
# records as a prior (the target's own cache is left out by the search itself).
# "neural" is the previous model-guided strategy (a neural ranker with MC dropout); it is slow,
# so it runs with NEURAL_SEEDS seeds; "neural-pretrained" starts it from `graphcost train` on
# the other devices.
# usage: bench/tune_bench.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: KERNELS (convolution dedispersion), DEVICES (A100 A4000 A6000 W6600), SEEDS (10),
#   BUDGET (1000), BATCH (10), STRATEGIES (random genetic bo bo-pretrained neural),
#   NEURAL_SEEDS (3), PRETRAIN_ITERATIONS (1500), DATA (../shared/data/kernel_tuner),
#   BENCH_ALLOW_SKIPS=1 (exit 0 when the data is missing; bench/skip.sh). Cells already in
#   WORK_DIR are reused.
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: tune_bench.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
data=${DATA:-$here/../../shared/data/kernel_tuner}
kernels=${KERNELS:-convolution dedispersion}
devices=${DEVICES:-A100 A4000 A6000 W6600}
seeds=${SEEDS:-10}
neural_seeds=${NEURAL_SEEDS:-3}
budget=${BUDGET:-1000}
batch=${BATCH:-10}
strategies=${STRATEGIES:-random genetic bo bo-pretrained neural}
pretrain_iterations=${PRETRAIN_ITERATIONS:-1500}
[ -d "$data" ] || { bench_skip tune_bench "no Kernel Tuner data at $data"; exit 0; }
mkdir -p "$work"
tune() {  # tune OUT ARGS...: runs once, keeps the JSON (a rerun skips finished cells)
  local out=$1; shift
  [ -s "$out" ] && return 0
  # --warp log: bo as these figures measured it (its default is rank since 7 December 2026).
  if "$bin" tune "$@" --budget "$budget" --batch "$batch" --warp log --threads 1 --json > "$out.tmp" 2> "$out.log"; then
    mv "$out.tmp" "$out"
  else
    echo "failed: $out (see $out.log)" >&2
    return 1
  fi
}
for kernel in $kernels; do
  for device in $devices; do
    tag="$kernel-$device"
    space=(--space "$data/$kernel" --device "$device")
    for strategy in $strategies; do
      out="$work/$tag-$strategy.json"
      start=$(date +%s)
      case $strategy in
        random|genetic) tune "$out" "${space[@]}" --strategy "$strategy" --seeds "$seeds" ;;
        # bo takes the folder's other devices as its prior by default: "bo" is the search alone.
        bo) tune "$out" "${space[@]}" --strategy bo --pretrained none --seeds "$seeds" ;;
        bo-pretrained) tune "$out" "${space[@]}" --strategy bo --pretrained "$data/$kernel" --seeds "$seeds" ;;
        neural) tune "$out" "${space[@]}" --strategy neural --seeds "$neural_seeds" ;;
        neural-pretrained)
          graph=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['graph'])" "$work/$tag-random.json")
          run="$work/pretrain-$tag"
          if [ ! -s "$run/model.pt" ]; then
            rm -rf "$run"
            "$bin" train --model gnn --data "$data/$kernel" --collection tile:xla --exclude "$graph" --valid-split "" \
              --out "$run" --iterations "$pretrain_iterations" --graphs-per-batch 3 --slate-size 64 \
              --loss listmle --hidden 64 64 --dropout 0.2 --lr 0.003 --threads 1 > /dev/null 2>&1
          fi
          tune "$out" "${space[@]}" --strategy neural --pretrained "$run" --seeds "$neural_seeds" ;;
        *) echo "unknown strategy in STRATEGIES: $strategy" >&2; exit 1 ;;
      esac
      echo "$tag $strategy done in $(( $(date +%s) - start )) s" >&2
    done
  done
done
# The table, the figure lines and the issue's two checks (bo against genetic and random at 5%).
/usr/bin/python3 - "$work" "$budget" "$kernels" "$devices" "$strategies" <<'PY'
import json, os, sys
work, budget, kernels, devices, strategies = sys.argv[1], int(sys.argv[2]), *[a.split() for a in sys.argv[3:6]]
def load(tag, s):
    p = os.path.join(work, f"{tag}-{s}.json")
    return json.load(open(p)) if os.path.exists(p) else None
def cell(j, key):
    if j is None: return "-"
    n = j["settings"]["seeds"]
    return "%.0f / %.0f (%d/%d)" % (j[key + "_mean_with_misses"], j[key + "_median_with_misses"], j[key + "_seeds"], n)
print()
print(f"Measurements to reach within 1%, 5%, 10% of the optimum, budget {budget}: mean / median over the seeds, "
      f"a seed that never got there counted as {budget + 1} (seeds that got there / seeds)")
print()
print("| kernel | target (held out) | strategy | 1% | 5% | 10% |")
print("|---|---|---|---|---|---|")
checks = []
for k in kernels:
    for d in devices:
        tag = f"{k}-{d}"
        for s in strategies:
            j = load(tag, s)
            if j is None: continue
            print(f"| {k} | {d} | {s} | {cell(j, 'reach_1pct')} | {cell(j, 'reach_5pct')} | {cell(j, 'reach_10pct')} |")
            for key in ("reach_1pct", "reach_5pct", "reach_10pct"):
                print(f"figure: tune_{tag}_{s}_{key}_mean: {j[key + '_mean_with_misses']:.1f} measurements", file=sys.stderr)
        r5 = {s: load(tag, s) for s in ("random", "genetic", "bo")}
        if all(r5.values()):
            m = {s: j["reach_5pct_mean_with_misses"] for s, j in r5.items()}
            checks.append(f"{tag}: bo {m['bo']:.1f} vs genetic {m['genetic']:.1f} "
                          f"({'fewer' if m['bo'] < m['genetic'] else 'NOT fewer'}), vs random {m['random']:.1f} "
                          f"({'not more' if m['bo'] <= m['random'] else 'MORE'})")
print()
print("Within 5%, mean with misses:")
for c in checks: print("- " + c)
PY
