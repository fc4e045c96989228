#!/usr/bin/env bash
# eval's scoring rate on synthetic medium's training graphs (tile:xla: 300 kernels, every
# configuration; layout:xla:random: 20 graphs, 200 configurations each) at
# 1 thread and at THREADS (default: all cores), for GRAPHCOST_BINARY and, when OLD_BINARY is set,
# for that binary too in the same run (alternating, so both see the same machine load).
# Prints `figure: name: value unit` lines: configurations scored per second of wall time.
# usage: bench/scoring_threads.sh GRAPHCOST_BINARY [WORK_DIR] (THREADS, REPEATS (default 2),
# OLD_BINARY from the environment)
set -euo pipefail
bin=${1:?usage: scoring_threads.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
threads=${THREADS:-$(nproc)}
repeats=${REPEATS:-2}
data="$work/data"
[ -f "$data/synth_report.json" ] || "$bin" synth --out "$data" --seed 7 --scale medium > /dev/null 2>&1
# Small models trained briefly: the scoring work per configuration is the model's, not its accuracy.
for c in tile:xla layout:xla:random; do
  run="$work/run-${c//:/-}"
  [ -f "$run/model.pt" ] || "$bin" train --data "$data" --collection "$c" --out "$run" \
    --iterations 20 --validate-every 0 --valid-split '' --graphs-per-batch 2 --slate-size 16 \
    --hidden 64 64 64 --overwrite > /dev/null 2>&1
done
# configs/s of one eval: the count of configurations scored over the command's wall time.
rate() {
  local binary=$1 c=$2 t=$3 start end configs max=0
  [ "$c" = tile:xla ] || max=200
  start=$(date +%s.%N)
  configs=$("$binary" eval --model "$work/run-${c//:/-}" --data "$data" --collection "$c" \
    --split train --max-configs "$max" --threads "$t" --slate-size 100 2>&1 >/dev/null | grep -o '[0-9]* configs' | tail -1 | awk '{print $1}')
  end=$(date +%s.%N)
  awk -v n="$configs" -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", n / (b - a)}'
}
for c in tile:xla layout:xla:random; do
  for t in 1 "$threads"; do
    for r in $(seq 1 "$repeats"); do
      echo "figure: eval_${c//:/_}_threads_${t}_run_${r}: $(rate "$bin" "$c" "$t") configs/s"
      if [ -n "${OLD_BINARY:-}" ]; then
        echo "figure: old_eval_${c//:/_}_threads_${t}_run_${r}: $(rate "$OLD_BINARY" "$c" "$t") configs/s"
      fi
    done
  done
done
