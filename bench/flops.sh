#!/usr/bin/env bash
# FLOP accounting (issue #39 item 1; docs/scale.md, "FLOP accounting"): on the speed table's
# synthetic regimes, per regime and precision, the GEMM FLOPs of a training step as the model's
# GEMM ledger counts them (model/kernels/gemm_ledger.h; train's "GEMM" summary line), the step's
# time (configs/s without the first step, as bench/reference_compare.sh counts it), the GFLOP/s
# of the whole step and its share of this machine's GEMM peak at the SAGE layer's shape
# (bench/gemm_peak: parallel_matmul, 200,000 x 438 x 146, the same threads); the forward's and the
# backward's shares of the threads' time (train's "phases" line) and GEMM's share of the forward;
# then scoring: eval of the trained run over the regime's graphs (eval's "scoring: GEMM" line).
# usage: bench/flops.sh GRAPHCOST_BINARY GEMM_PEAK_BINARY [WORK_DIR]
# Environment: REGIMES ("tied_s10 default_s40"), THREADS (2), RUNS (3; medians), PRECISIONS
# ("fp32 bf16"; bf16 only where the CPU has AVX512-BF16 or AMX-BF16).
# Prints `figure:` lines.
set -euo pipefail
. "$(dirname "$0")/skip.sh"
. "$(dirname "$0")/synth_regimes.sh"
bin=${1:?usage: bench/flops.sh GRAPHCOST_BINARY GEMM_PEAK_BINARY [WORK_DIR]}
peak_bin=${2:?usage: bench/flops.sh GRAPHCOST_BINARY GEMM_PEAK_BINARY [WORK_DIR]}
work=${3:-$(mktemp -d)}
runs=${RUNS:-3} threads=${THREADS:-2}
precisions=${PRECISIONS:-fp32 bf16}
if ! grep -qw -e avx512_bf16 -e amx_bf16 /proc/cpuinfo; then precisions=${precisions//bf16/}; fi
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mkdir -p "$work"
"$peak_bin" --threads "$threads" --reps 3 > "$work/peak.txt"
peak_of() {  # PRECISION -> GFLOP/s of parallel_matmul at the SAGE shape
  awk -v p="$1" '$3 == "parallel_matmul" && $4 == p && $5 == "200000x438x146:" {print $6}' "$work/peak.txt"
}
peak_fp32=$(peak_of fp32)
[ -n "$peak_fp32" ] || { cat "$work/peak.txt" >&2; echo "flops.sh: no fp32 peak from $peak_bin" >&2; exit 1; }
echo "figure: flops gemm peak fp32 ($threads threads, 200000x438x146): $peak_fp32 GFLOP/s"
share() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", 100 * a / b}'; }
for regime in ${REGIMES:-tied_s10 default_s40}; do
  synth_regime "$regime" "$work" "$bin"
  for precision in $precisions; do
    step_gflop=() step_rate=() eval_rate=() forward_share=() forward_gemm=() backward_share=()
    for ((r = 1; r <= runs; r++)); do
      run="$work/$regime/run_${precision}_$r"
      train_regime "$bin" "$run" "$precision" "$threads"
      gflop=$(sed -n 's/^train: GEMM \([0-9.]*\) GFLOP.*/\1/p' "$run.log")
      [ -n "$gflop" ] || { cat "$run.log" >&2; echo "flops.sh: no GEMM line in $run.log" >&2; exit 1; }
      rate=$(steady_rate "$run")
      # The phases line: forward and backward thread-seconds against the run's threads x seconds;
      # the timed products (forward only, when slates run apart) against the forward's.
      read -r fwd bwd total <<< "$(sed -n 's/^train: phases: forward and loss \([0-9.]*\) thread-s, backward \([0-9.]*\) thread-s.* of \([0-9.]*\) s$/\1 \2 \3/p' "$run.log")"
      timed=$(sed -n 's/.*the timed products \([0-9.]*\) thread-s of.*/\1/p' "$run.log")
      # Only where no backward product was timed (fp32, slates apart) are the timed products the
      # forward's alone; bf16 runs every product through parallel_matmul's own function.
      read -r backward untimed <<< "$(sed -n 's/.*backward \([0-9.]*\) GFLOP, of which \([0-9.]*\) in LibTorch.*/\1 \2/p' "$run.log")"
      forward_share+=("$(share "$fwd" "$(awk -v t="$total" -v n="$threads" 'BEGIN {print t * n}')")")
      backward_share+=("$(share "$bwd" "$(awk -v t="$total" -v n="$threads" 'BEGIN {print t * n}')")")
      [ "$backward" = "$untimed" ] && forward_gemm+=("$(share "$timed" "$fwd")")
      # GFLOP per step (every step alike: the same graphs and slate sizes) over seconds per step.
      per_step=$(awk -v f="$gflop" -v n="$steps" 'BEGIN {printf "%.3f", f / n}')
      step_gflop+=("$per_step")
      step_rate+=("$(awk -v f="$per_step" -v r="$rate" -v c="$((g * s))" 'BEGIN {printf "%.2f", f * r / c}')")
      "$bin" eval --model "$run" --data "$data" --collection "$collection" --split train \
        --threads "$threads" --precision "$precision" 2> "$run.eval.log" > /dev/null \
        || { cat "$run.eval.log" >&2; exit 1; }
      eval_rate+=("$(sed -n 's/^eval: scoring: GEMM [0-9.]* GFLOP, \([0-9.]*\) GFLOP\/s over the run.*/\1/p' "$run.eval.log")")
      echo "== $regime $precision run $r: $per_step GFLOP a step, ${step_rate[-1]} GFLOP/s training, ${eval_rate[-1]} GFLOP/s scoring" >&2
    done
    gf=$(printf '%s\n' "${step_gflop[@]}" | median)
    tr_rate=$(printf '%s\n' "${step_rate[@]}" | median)
    ev_rate=$(printf '%s\n' "${eval_rate[@]}" | median)
    echo "figure: flops $regime $precision train GEMM per step: $gf GFLOP"
    echo "figure: flops $regime $precision train step rate: $tr_rate GFLOP/s ($(share "$tr_rate" "$peak_fp32") % of the fp32 GEMM peak)"
    echo "figure: flops $regime $precision eval rate: $ev_rate GFLOP/s ($(share "$ev_rate" "$peak_fp32") % of the fp32 GEMM peak)"
    gemm_part="GEMM's part not separable: backward products timed too"
    [ "${#forward_gemm[@]}" -eq 0 ] || gemm_part="GEMM $(printf '%s\n' "${forward_gemm[@]}" | median) % of it"
    echo "figure: flops $regime $precision forward and loss: $(printf '%s\n' "${forward_share[@]}" | median) % of the threads' time ($gemm_part)"
    echo "figure: flops $regime $precision backward: $(printf '%s\n' "${backward_share[@]}" | median) % of the threads' time"
    if [ "$precision" = bf16 ]; then
      peak_bf16=$(peak_of bf16)
      [ -z "$peak_bf16" ] || echo "figure: flops $regime bf16 train step rate against the bf16 peak ($peak_bf16 GFLOP/s): $(share "$tr_rate" "$peak_bf16") %"
    fi
  done
done
