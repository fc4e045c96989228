#!/usr/bin/env bash
# Issue #37's diagnosis on synthetic data: where the gap between the GNN's validation Kendall tau
# and the generator's noise ceiling comes from. For each collection and variant, one training run
# per seed that validates every EVERY iterations on the validation split and on the first
# FIT_GRAPHS training graphs (--validate-train-graphs), so the curves say whether the model
# underfits (training tau low too) or overfits (training tau far above validation's); the
# variants change one thing each against `base`:
#   base       SAGE 64 x 3, G = 2, S = 32, Adam 1e-3 divided by sqrt(10) at 3/4 of the run,
#              --layout-shapes off (as every variant but shapes and default)
#   wide       128 x 3                        (capacity: width)
#   deep       64 x 5                         (capacity: depth)
#   half_data  every other training graph left out, the second of each pair (data)
#   half_other the other half: the first of each pair left out
#   long       2 x ITERATIONS                 (optimisation: schedule length)
#   cosine     100 iterations of warm-up, then a cosine decay to 0 (optimisation: schedule shape)
#   lr3        Adam 3e-3                      (optimisation: step size)
#   shapes     --layout-shapes on: each laid-out tensor's minor dims and tile padding as inputs (inputs)
#   default    train's defaults (SAGE 146 x 4, G = 4, S = 10, 1,000 iterations, no decay,
#              --layout-shapes auto: on for layout data): what a user gets without options
#   xgb        XGBoost on graph features (xgb train defaults), no curve: the tabular reference
# Every final model is scored by `eval --max-configs EVAL_CONFIGS` on the validation split.
# Prints `curve: COLLECTION VARIANT SEED ITERATION TRAIN_TAU VALID_TAU` lines, then
# `figure: diag_COLLECTION_VARIANT_valid_tau: MEAN tau` (mean over seeds) and the noise ceiling.
# usage: bench/quality_diagnosis.sh GRAPHCOST_BINARY WORK_DIR
# environment: SCALE (medium), DATA_SEED (7), COLLECTIONS ("layout:xla:random"), VARIANTS
# ("base wide deep half_data long xgb"), SEEDS ("1"), ITERATIONS (2000), EVERY (250),
# FIT_GRAPHS (8), VALID_CONFIGS (200), EVAL_CONFIGS (1000), THREADS (1)
set -euo pipefail
bin=$(realpath "${1:?usage: quality_diagnosis.sh GRAPHCOST_BINARY WORK_DIR}")
work=${2:?usage: quality_diagnosis.sh GRAPHCOST_BINARY WORK_DIR}
scale=${SCALE:-medium}
data_seed=${DATA_SEED:-7}
read -r -a collections <<< "${COLLECTIONS:-layout:xla:random}"
read -r -a variants <<< "${VARIANTS:-base wide deep half_data long xgb}"
read -r -a seeds <<< "${SEEDS:-1}"
iterations=${ITERATIONS:-2000}
every=${EVERY:-250}
fit_graphs=${FIT_GRAPHS:-8}
valid_configs=${VALID_CONFIGS:-200}
eval_configs=${EVAL_CONFIGS:-1000}
threads=${THREADS:-1}
mkdir -p "$work/packs" "$work/runs"
data="$work/data"
[ -f "$data/synth_report.json" ] ||
  "$bin" synth --out "$data" --seed "$data_seed" --scale "$scale" --threads "$threads" > /dev/null
tau_of() { grep -o '"kendall_tau": [0-9.e+-]*' | tail -1 | awk '{print $2}'; }
for c in "${collections[@]}"; do
  name=${c//:/-}
  for split in train valid; do
    pack="$work/packs/$name-$split.pack"
    [ -f "$pack" ] || "$bin" pack "$data" --collection "$c" --split "$split" --out "$pack" > /dev/null
  done
  train_pack="$work/packs/$name-train.pack" valid_pack="$work/packs/$name-valid.pack"
  # half_data: the training files' stems in name order, every other one left out.
  IFS=/ read -r kind source search <<< "${c//:/\/}"
  mapfile -t stems < <(find "$data/npz/$kind/$source/$search/train" -name '*.npz' -printf '%f\n' |
    sed 's/\.npz$//' | sort)
  excluded=() excluded_other=()
  for ((i = 1; i < ${#stems[@]}; i += 2)); do excluded+=("${stems[i]}"); done
  for ((i = 0; i < ${#stems[@]}; i += 2)); do excluded_other+=("${stems[i]}"); done
  ceiling=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['collections'][sys.argv[2]]['valid']['noise_ceiling_mean'])" "$data/synth_report.json" "$c")
  echo "figure: diag_${name}_noise_ceiling: $ceiling tau"
  for v in "${variants[@]}"; do
    taus=()
    for seed in "${seeds[@]}"; do
      run="$work/runs/$name-$v-$seed"
      if [ "$v" = xgb ]; then
        [ -f "$run/model.xgb" ] || "$bin" xgb train --data "$train_pack" --collection "$c" \
          --out "$run" --overwrite --seed "$seed" --threads "$threads" > "$run.log" 2>&1
      else
        its=$iterations
        extra=(--hidden 64 64 64 --layout-shapes off)
        schedule=(--decay-at $((its * 3 / 4)))
        batch=(--graphs-per-batch 2 --slate-size 32)
        case $v in
          base) ;;
          wide) extra=(--hidden 128 128 128 --layout-shapes off) ;;
          deep) extra=(--hidden 64 64 64 64 64 --layout-shapes off) ;;
          half_data) extra+=(--exclude "${excluded[@]}") ;;
          half_other) extra+=(--exclude "${excluded_other[@]}") ;;
          long) its=$((2 * iterations)) schedule=(--decay-at $((2 * iterations * 3 / 4))) ;;
          cosine) schedule=(--lr-schedule cosine --warmup 100) ;;
          lr3) extra+=(--lr 3e-3) ;;
          shapes) extra=(--hidden 64 64 64 --layout-shapes on) ;;
          default) its=1000 extra=() schedule=() batch=() ;;
          *) echo "quality_diagnosis: unknown variant $v" >&2; exit 2 ;;
        esac
        [ -f "$run/model.pt" ] || "$bin" train --model gnn --data "$train_pack" \
          --valid-data "$valid_pack" --collection "$c" --out "$run" --overwrite \
          --iterations "$its" "${schedule[@]}" "${batch[@]}" \
          --validate-every "$every" --validate-train-graphs "$fit_graphs" \
          --valid-configs-per-graph "$valid_configs" --checkpoint-every 0 --seed "$seed" \
          --threads "$threads" "${extra[@]}" > "$run.log" 2>&1
        /usr/bin/python3 - "$run/metrics.jsonl" "$c" "$v" "$seed" << 'EOF'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if "kendall_tau" in m and "train_kendall_tau" in m and "swa_snapshots" not in m:
        print(f"curve: {sys.argv[2]} {sys.argv[3]} {sys.argv[4]} {m['iteration']} "
              f"{m['train_kendall_tau']:.4f} {m['kendall_tau']:.4f}")
EOF
      fi
      taus+=("$("$bin" eval --model "$run" --data "$valid_pack" --max-configs "$eval_configs" \
        --threads "$threads" --json 2> /dev/null | tau_of)")
      echo "run: $c $v seed $seed: valid tau ${taus[-1]} (eval, $eval_configs configurations)"
    done
    mean=$(printf '%s\n' "${taus[@]}" | awk '{s += $1; n++} END {printf "%.4f", s / n}')
    echo "figure: diag_${name}_${v}_valid_tau: $mean tau"
  done
done
