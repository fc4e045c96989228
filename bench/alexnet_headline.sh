#!/usr/bin/env bash
# The headline rows of docs/results.md on the real AlexNet layout file, by the project's protocol
# for quality figures: every setting chosen on validation data carved out of the training share,
# then the chosen settings trained on the whole training share for SEEDS seeds and scored once on
# the test share, reported as mean ± sd over seeds and as the difference from the baseline paired
# by seed with a 95% t interval.
#
#   1. split: `graphcost split FILE --fraction 0.2 --seed 0`: 20% of the distinct configurations
#      to train on (split/train), the other 80% the test share (split/valid), as before;
#   2. carve-out: the training share split again, 75% / 25% (tune/train, tune/valid: 15% and 5%
#      of the file);
#   3. selection, on tune/valid only, with seed 0: the GNN's iteration count (GNN_ITERATIONS,
#      default 1000 1500 3000; decay at 2/3), the tuned XGBoost's depth, eta and rounds (the five
#      settings of XGB_CANDIDATES, subsample 0.8, colsample 0.5), and the ensemble's members
#      (the GNN with the best, or the best two, tuned XGBoost models, or none of them);
#   3b. with STUDY_TRIALS=N (default 0: off), a `graphcost study` of the GNN on the carve-out
#      (trained on tune/train, its objective Kendall tau on every configuration of tune/valid;
#      space STUDY_SPACE, default examples/study/alexnet_space.json; sampler STUDY_SAMPLER, tpe;
#      pruner STUDY_PRUNER, median; base: the GNN's flags below at STUDY_ITERATIONS, 1500); its
#      best trial is scored by `eval` on tune/valid like every candidate, and the ensemble of it
#      with the best one or two tuned XGBoost models is chosen the same way;
#   3c. with STACK=1 (the default), no choice: a ridge stack (graphcost stack) over the chosen GNN
#      and the two best tuned XGBoost settings, fitted on tune/valid with their carve-out runs;
#   4. test, once: for seeds 0 .. SEEDS-1 (default 5), the baseline (untuned XGBoost: 500 rounds,
#      every node's values), the chosen tuned XGBoost, the chosen GNN and the chosen ensemble
#      (its members of the same seed), and with a study the study's GNN (its trial's config.json
#      retrained with `train --config`) and its ensemble, and the stacks (the weights fitted
#      in 3c, scoring with this seed's runs: `stack --refit-member`), trained on split/train and
#      scored on split/valid. A rerun reuses the models and taus it finds.
#
# Prints what was chosen and why (the validation taus), one line per test run, then
# `figure: alexnet_<row>_tau: MEAN ± SD tau`, `figure: alexnet_<row>_minus_baseline: MEAN
# [LOW, HIGH] tau` and `figure: alexnet_<row>_minus_tuned_xgboost: ...` lines (paired by seed;
# t(0.975, SEEDS - 1)), and a Markdown table.
# The untuned XGBoost has no random draws (no subsampling), so its seeds agree.
# Time on an idle 2-core machine: selection about 15 minutes, each test seed about 5 minutes.
# usage: bench/alexnet_headline.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: DATA (the .npz; default ../shared/data/tpugraphs/alexnet_layout_reduced.npz beside
#   the repository), SEEDS (5, at least 5 unless QUICK=1), GNN_ITERATIONS, XGB_CANDIDATES,
#   THREADS (0: all cores), STACK (1; 0: no stack rows), STUDY_TRIALS, STUDY_SPACE, STUDY_SAMPLER, STUDY_PRUNER,
#   STUDY_ITERATIONS (above), QUICK=1 (a smoke test of the mechanics: 2 seeds, tiny runs; its
#   numbers mean nothing).
set -euo pipefail
. "$(dirname "$0")/alexnet_inputs.sh"
alexnet_inputs alexnet_headline "$@"
threads=${THREADS:-0}
c=layout:xla:default
if [ "${QUICK:-0}" = 1 ]; then
  seeds=${SEEDS:-2}
  gnn_candidates=${GNN_ITERATIONS:-"20 40"}
  study_iterations=${STUDY_ITERATIONS:-40}
  xgb_candidates=${XGB_CANDIDATES:-"d4:4:0.1:30 d6:6:0.1:30"}
  baseline_rounds=20
else
  seeds=${SEEDS:-5}
  [ "$seeds" -ge 5 ] || { echo "alexnet_headline: SEEDS must be at least 5 (QUICK=1 for a smoke test)" >&2; exit 1; }
  gnn_candidates=${GNN_ITERATIONS:-"1000 1500 3000"}
  # name:depth:eta:rounds
  xgb_candidates=${XGB_CANDIDATES:-"d4:4:0.03:1500 d6:6:0.03:1500 d3:3:0.03:2000 d2:2:0.05:3000 d8:8:0.05:1000"}
  baseline_rounds=500
  study_iterations=${STUDY_ITERATIONS:-1500}
fi
study_trials=${STUDY_TRIALS:-0}
stack_on=${STACK:-1}
study_space=$(realpath "${STUDY_SPACE:-$(dirname "$0")/../examples/study/alexnet_space.json}")
mkdir -p "$work"
cd "$work"
log() { echo "$*" >&2; }
# run LOG CMD...: runs quietly into LOG; on failure shows LOG's last lines and stops.
run() {
  local out=$1; shift
  mkdir -p "$(dirname "$out")"
  "$@" > "$out" 2>&1 || { tail -n 5 "$out" >&2; echo "alexnet_headline: failed: $*" >&2; exit 1; }
}
tau() {  # eval --json on stdin -> kendall_tau
  "$py" -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["kendall_tau"])'
}
evaluate() {  # DATA SPLIT MODEL... -> tau of the models (their standardised mean when several)
  local data=$1 split=$2; shift 2
  local models=()
  for m in "$@"; do models+=(--model "$m"); done
  "$bin" eval "${models[@]}" --data "$data" --split "$split" --collection $c --threads "$threads" \
    --json 2> /dev/null | tau
}
# Training runs validate on nothing (--valid-split ''): choosing is done by `eval` on tune/valid
# only, and the final runs must not see the test share at all.
gnn() {  # DATA OUT ITERATIONS SEED   (DATA: a folder holding train/)
  run "$2.log" "$bin" train --data "$1" --valid-split "" --collection $c --graphs-per-batch 1 --slate-size 64 \
    --iterations "$3" --decay-at $(($3 * 2 / 3)) --seed "$4" --threads "$threads" --out "$2" --overwrite
}
xgb() {  # DATA OUT SEED ARGS...
  local data=$1 out=$2 seed=$3; shift 3
  run "$out.log" "$bin" xgb train --data "$data" --collection $c --layout-nodes 26 --max-configs 0 \
    --seed "$seed" --threads "$threads" --out "$out" --overwrite "$@"
}
xgb_args() {  # CANDIDATE (name:depth:eta:rounds) -> the xgb train flags
  IFS=: read -r _ depth eta rounds <<< "$1"
  echo "--max-depth $depth --eta $eta --rounds $rounds --subsample 0.8 --colsample 0.5"
}
best_of() {  # lines "tau name" on stdin -> the name of the highest tau (the first of ties)
  sort -s -k1,1gr | head -n 1 | awk '{print $2}'
}

# 1-2. The test split and the validation carve-out of its training share.
[ -d split ] || run split.log "$bin" split "$file" --fraction 0.2 --seed 0 --out split
[ -d tune ] || run tune.log "$bin" split split/train --fraction 0.75 --seed 1 --out tune

# 3. Selection on tune/valid, seed 0.
log "== selection on the validation carve-out (tune/valid)"
: > selection.txt
for it in $gnn_candidates; do
  [ -f "sel/gnn$it/model.pt" ] || gnn tune "sel/gnn$it" "$it" 0
  echo "$(evaluate tune valid "sel/gnn$it") gnn$it" | tee -a selection.txt >&2
done
gnn_best=$(grep ' gnn' selection.txt | best_of)
gnn_iterations=${gnn_best#gnn}
for cand in $xgb_candidates; do
  name=${cand%%:*}
  # shellcheck disable=SC2046
  [ -f "sel/xgb_$name/model.xgb" ] || xgb tune "sel/xgb_$name" 0 $(xgb_args "$cand")
  echo "$(evaluate tune valid "sel/xgb_$name") xgb_$name" | tee -a selection.txt >&2
done
ranked=($(grep ' xgb_' selection.txt | sort -s -k1,1gr | awk '{print $2}'))
xgb_best=${ranked[0]#xgb_}
xgb_second=${ranked[1]#xgb_}
declare -A ensembles=(
  [gnn+1xgb]="sel/$gnn_best sel/xgb_$xgb_best"
  [gnn+2xgb]="sel/$gnn_best sel/xgb_$xgb_best sel/xgb_$xgb_second"
  [2xgb]="sel/xgb_$xgb_best sel/xgb_$xgb_second"
)
for e in gnn+1xgb gnn+2xgb 2xgb; do
  # shellcheck disable=SC2086
  echo "$(evaluate tune valid ${ensembles[$e]}) ens_$e" | tee -a selection.txt >&2
done
ensemble=$(grep ' ens_' selection.txt | best_of)
ensemble=${ensemble#ens_}
candidate_of() { for cand in $xgb_candidates; do [ "${cand%%:*}" = "$1" ] && echo "$cand"; done; }
echo "chosen on validation: GNN $gnn_iterations iterations; tuned XGBoost $(candidate_of "$xgb_best") (second $(candidate_of "$xgb_second")); ensemble $ensemble" | tee chosen.txt

# 3b. A study of the GNN on the same carve-out; its best trial is a run trained on tune/train.
ensemble_study=none
if [ "$study_trials" -gt 0 ]; then
  log "== study: $study_trials trials of the GNN on tune/ ($(basename "$study_space"))"
  run study.log "$bin" study --data tune --valid-split valid --valid-configs-per-graph 0 --collection $c \
    --graphs-per-batch 1 --slate-size 64 --iterations "$study_iterations" --validate-every 500 --seed 0 \
    --threads "$threads" --space "$study_space" --storage "sqlite:///$work/study.db" --study alexnet-gnn \
    --trials "$study_trials" --sampler "${STUDY_SAMPLER:-tpe}" --pruner "${STUDY_PRUNER:-median}" \
    --sampler-seed 0 --out sel/study
  run study_export.log "$bin" study export --storage "sqlite:///$work/study.db" --study alexnet-gnn \
    --format json --out study.json
  study_best=$("$py" -c '
import json, sys
done = [t for t in json.load(open(sys.argv[1])) if t["state"] == "complete"]
print(max(done, key=lambda t: t["value"])["run_dir"])' study.json)
  study_best=$(realpath "$study_best")
  echo "$(evaluate tune valid "$study_best") gnn_study" | tee -a selection.txt >&2
  echo "$(evaluate tune valid "$study_best" "sel/xgb_$xgb_best") ens_study+1xgb" | tee -a selection.txt >&2
  echo "$(evaluate tune valid "$study_best" "sel/xgb_$xgb_best" "sel/xgb_$xgb_second") ens_study+2xgb" | tee -a selection.txt >&2
  ensemble_study=$(grep ' ens_study' selection.txt | best_of)
  ensemble_study=${ensemble_study#ens_}
  echo "chosen by the study: $(basename "$study_best") $("$py" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["params"]))' "$study_best/trial.json"); ensemble $ensemble_study" | tee -a chosen.txt
fi

# 4. The chosen settings on the whole training share, SEEDS seeds, scored once on the test share.
log "== test: $seeds seeds on split/train, scored on split/valid"
# A rerun reuses the taus of models it scored before (eval of a saved model is deterministic).
[ -f test.tsv ] && mv test.tsv test.prev.tsv
touch test.prev.tsv
: > test.tsv
for ((s = 0; s < seeds; ++s)); do
  d="test/s$s"
  mkdir -p "$d"
  [ -f "$d/baseline/model.xgb" ] || xgb split "$d/baseline" "$s" --rounds "$baseline_rounds"
  # shellcheck disable=SC2046
  [ -f "$d/xgb1/model.xgb" ] || xgb split "$d/xgb1" "$s" $(xgb_args "$(candidate_of "$xgb_best")")
  [ -f "$d/gnn/model.pt" ] || gnn split "$d/gnn" "$gnn_iterations" "$s"
  if [ "$study_trials" -gt 0 ]; then
    [ -f "$d/gnn_study/model.pt" ] || run "$d/gnn_study.log" "$bin" train --config "$study_best/config.json" \
      --data split --valid-split "" --seed "$s" --threads "$threads" --out "$d/gnn_study" --overwrite
  fi
  members=("$d/gnn" "$d/xgb1")
  if [ "$stack_on" = 1 ] || [ "$ensemble" = gnn+2xgb ] || [ "$ensemble" = 2xgb ]; then
    # shellcheck disable=SC2046
    [ -f "$d/xgb2/model.xgb" ] || xgb split "$d/xgb2" "$s" $(xgb_args "$(candidate_of "$xgb_second")")
  fi
  case $ensemble in
    gnn+1xgb) members=("$d/gnn" "$d/xgb1") ;;
    gnn+2xgb) members=("$d/gnn" "$d/xgb1" "$d/xgb2") ;;
    2xgb) members=("$d/xgb1" "$d/xgb2") ;;
  esac
  rows=(baseline xgb1 gnn ensemble)
  if [ "$study_trials" -gt 0 ]; then
    rows+=(gnn_study ensemble_study)
    study_members=("$d/gnn_study" "$d/xgb1")
    if [ "$ensemble_study" = study+2xgb ]; then
      # shellcheck disable=SC2046
      [ -f "$d/xgb2/model.xgb" ] || xgb split "$d/xgb2" "$s" $(xgb_args "$(candidate_of "$xgb_second")")
      study_members+=("$d/xgb2")
    fi
  fi
  if [ "$stack_on" = 1 ]; then
    # The stacks: ridge over the GNN and the two tuned XGBoost models, fitted on tune/valid with
    # the carve-out's runs (trained on tune/train), scoring with this seed's runs of the same
    # settings (--refit-member); nothing chosen, the meta-learner weighs the members.
    rows+=(stack)
    [ -f "$d/stack/config.json" ] || run "$d/stack.log" "$bin" stack --data tune --collection $c \
      --member "sel/$gnn_best" --member "sel/xgb_$xgb_best" --member "sel/xgb_$xgb_second" \
      --refit-member "$d/gnn" --refit-member "$d/xgb1" --refit-member "$d/xgb2" --seed "$s" \
      --threads "$threads" --out "$d/stack" --overwrite
    if [ "$study_trials" -gt 0 ]; then
      rows+=(stack_study)
      [ -f "$d/stack_study/config.json" ] || run "$d/stack_study.log" "$bin" stack --data tune --collection $c \
        --member "$study_best" --member "sel/xgb_$xgb_best" --member "sel/xgb_$xgb_second" \
        --refit-member "$d/gnn_study" --refit-member "$d/xgb1" --refit-member "$d/xgb2" --seed "$s" \
        --threads "$threads" --out "$d/stack_study" --overwrite
    fi
  fi
  for row in "${rows[@]}"; do
    t=$(awk -v r="$row" -v s="$s" '$1 == r && $2 == s {print $3}' test.prev.tsv | tail -n 1)
    if [ -z "$t" ]; then
      case $row in
        ensemble) t=$(evaluate split valid "${members[@]}") ;;
        ensemble_study) t=$(evaluate split valid "${study_members[@]}") ;;
        *) t=$(evaluate split valid "$d/$row") ;;
      esac
    fi
    printf '%s\t%s\t%s\n' "$row" "$s" "$t" | tee -a test.tsv >&2
  done
done

"$py" - test.tsv "$gnn_iterations" "$(candidate_of "$xgb_best")" "$ensemble" "$ensemble_study" <<'EOF'
import sys
from collections import defaultdict
from statistics import mean, stdev
from scipy import stats

path, gnn_iterations, xgb_choice, ensemble, ensemble_study = sys.argv[1:6]
tau = defaultdict(dict)
for line in open(path):
    row, seed, value = line.split()
    tau[row][int(seed)] = float(value)
names = {
    "baseline": "XGBoost, untuned (500 rounds)",
    "xgb1": f"XGBoost, tuned on validation ({xgb_choice})",
    "gnn": f"GNN default, S = 64, {gnn_iterations} iterations (chosen on validation)",
    "ensemble": f"ensemble {ensemble} (chosen on validation)",
    "gnn_study": "GNN chosen by the study on validation",
    "ensemble_study": f"ensemble {ensemble_study} (the study's GNN; chosen on validation)",
    "stack": "stack, ridge over the GNN and both tuned XGBoost models (fitted on validation)",
    "stack_study": "stack, ridge over the study's GNN and both tuned XGBoost models",
}


def paired(row, against):
    """Mean difference row - against over their common seeds, its 95% t interval, a verdict."""
    seeds = sorted(set(tau[against]) & set(tau[row]))
    diffs = [tau[row][s] - tau[against][s] for s in seeds]
    m = mean(diffs)
    half = stats.t.ppf(0.975, len(diffs) - 1) * stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    lo, hi = m - half, m + half
    verdict = "effect" if lo > 0 or hi < 0 else "no detectable effect"
    return f"{m:+.4f} [{lo:+.4f}, {hi:+.4f}]", verdict


table = []
table.append("| method | test tau, mean ± sd over seeds | minus the untuned XGBoost | minus the tuned XGBoost |")
table.append("|---|---|---|---|")
for row in [r for r in names if r in tau]:
    values = [tau[row][s] for s in sorted(tau[row])]
    sd = stdev(values) if len(values) > 1 else 0.0
    print(f"figure: alexnet_{row}_tau: {mean(values):.4f} ± {sd:.4f} tau")
    cells = []
    for against, label in (("baseline", "baseline"), ("xgb1", "tuned_xgboost")):
        if row in ("baseline", against):
            cells.append("baseline" if row == against else "-")
            continue
        interval, verdict = paired(row, against)
        print(f"figure: alexnet_{row}_minus_{label}: {interval} tau")
        cells.append(f"{interval}, {verdict}")
    table.append(f"| {names[row]} | {mean(values):.4f} ± {sd:.4f} | {cells[0]} | {cells[1]} |")
print(f"test: {len(tau['baseline'])} seeds, trained on the 20% training share, scored once on the 80%")
print("\n".join(table))
EOF
