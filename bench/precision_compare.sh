#!/usr/bin/env bash
# graphcost training in fp32 against --precision bf16 (model/kernels/precision.h), on the speed
# table's synthetic regimes (docs/scale.md): per regime, RUNS (default 3) pairs of training runs on
# the same data, the two precisions alternating which goes first, and per precision the median
# configs/s without the first step (as bench/reference_compare.sh counts it), and the median of
# the per-pair ratios bf16 / fp32.
# usage: bench/precision_compare.sh GRAPHCOST_BINARY [WORK_DIR]   (REGIMES, RUNS, THREADS from the
# environment; REGIMES default "tied_s10 default_s40")
# Prints `figure:` lines. Needs a CPU with AVX512-BF16 or AMX-BF16 (else a skip: bench/skip.sh).
set -euo pipefail
. "$(dirname "$0")/skip.sh"
. "$(dirname "$0")/synth_regimes.sh"
bin=${1:?usage: bench/precision_compare.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
runs=${RUNS:-3} threads=${THREADS:-2}
if ! grep -qw -e avx512_bf16 -e amx_bf16 /proc/cpuinfo; then
  bench_skip precision_compare "this CPU has neither AVX512-BF16 nor AMX-BF16"
  exit 0  # skips allowed (bench_skip exits 3 otherwise)
fi
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mkdir -p "$work"
for regime in ${REGIMES:-tied_s10 default_s40}; do
  synth_regime "$regime" "$work" "$bin"
  declare -A rates=()
  ratios=()
  for ((r = 1; r <= runs; r++)); do
    order="fp32 bf16"
    [ $((r % 2)) -eq 0 ] && order="bf16 fp32"
    for precision in $order; do
      run="$work/$regime/run_${precision}_$r"
      train_regime "$bin" "$run" "$precision" "$threads"
      rate=$(steady_rate "$run")
      rates[$precision]+="$rate "
      echo "== $regime run $r $precision: $rate configs/s" >&2
    done
    fp32=$(awk '{print $NF}' <<< "${rates[fp32]}") bf16=$(awk '{print $NF}' <<< "${rates[bf16]}")
    ratios+=("$(awk -v a="$bf16" -v b="$fp32" 'BEGIN {printf "%.3f", a / b}')")
  done
  for precision in fp32 bf16; do
    echo "figure: ${regime}_${precision}_train_configs_per_s: $(tr ' ' '\n' <<< "${rates[$precision]}" | grep . | median) configs/s"
  done
  echo "figure: ${regime}_bf16_over_fp32: $(printf '%s\n' "${ratios[@]}" | median) x (median of $runs paired runs)"
  unset rates
done
