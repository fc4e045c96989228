#!/usr/bin/env bash
# The Kernel Tuner held-out-device table of docs/xgboost.md by the project's protocol for quality
# figures. For each kernel and each device D as the held-out target (the outer fold):
#   1. selection, on the three training devices only: each candidate setting is trained on two of
#      them and scored on the third, for each of the three choices of the third (inner
#      leave-one-device-out, seed 0); the setting with the best mean inner tau is chosen, per
#      method: XGBoost (XGB_CANDIDATES) and the neural model (NEURAL_CANDIDATES);
#   2. test, once: the chosen settings trained on all three training devices for SEEDS seeds
#      (default 5) and scored on D.
# Baseline: ranking D's configurations by another device's measured times, the mean over the
# three training devices (bench/kt_other_device.py; no seed, no setting).
# With STUDY_TRIALS=N (issue #36), two more methods per fold, after the grid's:
#   xgboost_study: a `graphcost study` of XGBoost (STUDY_SPACE, default
#      examples/study/xgboost_space.json; TPE, sampler seed 0, N trials, objective Kendall tau)
#      trained on two training devices and validated on the third, the first training device in
#      name order (one inner fold: a study trial is one training); its best setting is then
#      trained on all three for SEEDS seeds and scored once on D, as the grid's choice is;
#   stack (STACK=1, the default with a study): per seed, the study's setting trained on the two
#      devices, a ridge stack over it and the other devices' times (`stack --member-other-devices`)
#      fitted on the first training device, blended with the seed's three-device run
#      (`--refit-member`, so its references are all three training devices), scored once on D.
# Per kernel and method: the test tau and top-1 / top-5 error averaged over the four held-out
# devices, as mean ± sd over seeds, and the tau difference from the baseline and from the grid's
# XGBoost, paired by seed with its 95% t interval. Prints `figure:` lines and a Markdown table.
# usage: bench/kt_holdout_protocol.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: SEEDS (5), XGB_CANDIDATES ("name:rounds:depth:eta ..."), NEURAL_CANDIDATES
#   ("name:flag,flag,... ...": train's flags, comma-separated, e.g. "i300:--iterations,300"), KERNELS (every folder under ../shared/data/kernel_tuner), THREADS (1), QUICK=1
#   (a smoke test of the mechanics: 2 seeds, tiny runs; its numbers mean nothing), METHODS (the
#   grid's methods, "xgboost neural"), STUDY_TRIALS (0: no study), STUDY_SPACE, STACK (1),
#   HELD (the held-out devices to run, by file stem, e.g. "A100 W6600"; default every one).
# Interrupted, it resumes: rerun the same command with the same WORK_DIR; finished runs are kept
# and only rescored (test.tsv is rebuilt).
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: kt_holdout_protocol.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../shared/data/kernel_tuner"
py=/usr/bin/python3
[ -d "$root" ] || { bench_skip kt_holdout_protocol "$root not present"; exit 0; }
"$py" -c "import scipy, numpy" 2> /dev/null || { bench_skip kt_holdout_protocol "python3-scipy or python3-numpy missing"; exit 0; }
threads=${THREADS:-1}
if [ "${QUICK:-0}" = 1 ]; then
  seeds=${SEEDS:-2}
  xgb_candidates=${XGB_CANDIDATES:-"r10d6:10:6:0.3 r10d3:10:3:0.3"}
  neural_candidates=${NEURAL_CANDIDATES:-"i5:--iterations,5 i10:--iterations,10,--config-one-hot,16"}
else
  seeds=${SEEDS:-5}
  [ "$seeds" -ge 5 ] || { echo "kt_holdout_protocol: SEEDS must be at least 5 (QUICK=1 for a smoke test)" >&2; exit 1; }
  xgb_candidates=${XGB_CANDIDATES:-"r200d6:200:6:0.3 r500d4:500:4:0.1 r1000d3:1000:3:0.05"}
  # The MLP over one-hot parameter values (docs/kernel-tuner.md "The neural model on tabular
  # records"), without and with dropout. The table before 7 Dec 2026 chose between
  # "i300:--iterations,300,--graphs-per-batch,2,--slate-size,32" and the same at 1,000.
  mlp="--architecture,mlp,--config-one-hot,16,--iterations,3000,--graphs-per-batch,2,--slate-size,256"
  neural_candidates=${NEURAL_CANDIDATES:-"mlp3k:$mlp mlp3k-d0.3:$mlp,--dropout,0.3"}
fi
methods=${METHODS:-xgboost neural}
study_trials=${STUDY_TRIALS:-0}
study_space=$(realpath "${STUDY_SPACE:-$here/../examples/study/xgboost_space.json}")
stacking=${STACK:-1}
mkdir -p "$work"
results="$work/test.tsv"
: > "$results"

graph_metrics() {  # NAME < eval --json -> "tau top1 top5" of that graph
  "$py" -c '
import json, sys
for g in json.load(sys.stdin)["graphs"]:
    if g["name"] == sys.argv[1]:
        f = lambda v: "nan" if v is None else "%.6f" % v
        print(f(g.get("kendall_tau")), f(g["top1_error"]), f(g["top5_error"]))
' "$1"
}
run() {  # LOG CMD...: quietly; on failure shows the log's tail and stops
  local out=$1; shift
  "$@" > "$out" 2>&1 || { tail -n 5 "$out" >&2; echo "kt_holdout_protocol: failed: $*" >&2; exit 1; }
}
# fit METHOD SETTING SEED OUT EXCLUDED...: trains on the kernel's caches less the excluded graphs.
# A run holding both its model file and config.json is kept, so an interrupted protocol resumes
# where it stopped (both files are written by rename).
fit() {
  local method=$1 setting=$2 seed=$3 out=$4; shift 4
  if [ -f "$out/config.json" ] && { [ -f "$out/model.xgb" ] || [ -f "$out/model.pt" ]; }; then return 0; fi
  local common=(--data "$kernel_dir" --collection tile:xla --threads "$threads" --seed "$seed" --out "$out")
  for name in "$@"; do common+=(--exclude "$name"); done
  if [ "$method" = xgboost ]; then
    IFS=: read -r _ rounds depth eta <<< "$setting"
    run "$out.log" "$bin" xgb train "${common[@]}" --rounds "$rounds" --max-depth "$depth" --eta "$eta" \
      --subsample 0.8 --overwrite
  else
    local flags
    IFS=, read -ra flags <<< "${setting#*:}"
    rm -rf "$out"
    run "$out.log" "$bin" train --model gnn "${common[@]}" --valid-split "" "${flags[@]}"
  fi
}
score() {  # RUN NAME -> "tau top1 top5" on that graph
  "$bin" eval --model "$1" --data "$kernel_dir" --threads "$threads" --json 2> /dev/null | graph_metrics "$2"
}

# study_fold TRAINING_CACHES...: the xgboost_study and stack methods of one fold (above); sets
# study_setting to the chosen parameters.
study_fold() {
  local inner=$1 inner_name
  inner_name=$(name_of "$(device_of "$inner")")
  local others=("${@:2}") study_dir="$fold/study"
  # The study's data: folders of links, the two devices to train on and the one to validate on.
  mkdir -p "$study_dir/train" "$study_dir/valid" "$fold/test" "$fold/stack"
  for c in "${others[@]}"; do ln -sfn "$c" "$study_dir/train/"; done
  ln -sfn "$inner" "$study_dir/valid/"
  run "$study_dir/study.log" "$bin" study --model-type xgboost --space "$study_space" \
    --data "$study_dir/train" --valid-data "$study_dir/valid" --collection tile:xla \
    --objective kendall_tau:max --trials "$study_trials" --sampler tpe --pruner none --sampler-seed 0 \
    --seed 0 \
    --storage "sqlite:///$study_dir/study.db" --study xgb --out "$study_dir/runs" --threads "$threads"
  run "$study_dir/export.log" "$bin" study export --storage "sqlite:///$study_dir/study.db" \
    --study xgb --format json --out "$study_dir/trials.json"
  # The best complete trial's parameters as xgb train's flags.
  study_setting=$("$py" -c '
import json, sys
done = [t for t in json.load(open(sys.argv[1])) if t["state"] == "complete" and t["value"] is not None]
best = max(done, key=lambda t: t["value"])
flags = {"xgboost.eta": "--eta", "xgboost.max_depth": "--max-depth", "xgboost.rounds": "--rounds",
         "xgboost.subsample": "--subsample", "xgboost.colsample": "--colsample"}
unknown = sorted(set(best["params"]) - set(flags))
if unknown:
    sys.exit("kt_holdout_protocol: the study space has keys xgb train takes no flag for: " + ", ".join(unknown))
print(",".join(f"{flags[k]},{v}" for k, v in sorted(best["params"].items())))
' "$study_dir/trials.json")
  echo "$kernel $device study: best of $study_trials trials on $(device_of "$inner"): $study_setting" >&2
  local setting_flags
  IFS=, read -ra setting_flags <<< "$study_setting"
  for ((s = 0; s < seeds; ++s)); do
    local out="$fold/test/xgboost_study-s$s"
    fit_study "$out" "$s" "${setting_flags[@]}" --exclude "$held_name"
    printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$device" xgboost_study "$s" "$(score "$out" "$held_name")" |
      tr ' ' '\t' >> "$results"
    [ "$stacking" = 1 ] || continue
    local member="$fold/stack/member-s$s" stacked="$fold/stack/stack-s$s"
    fit_study "$member" "$s" "${setting_flags[@]}" --exclude "$held_name" --exclude "$inner_name"
    if [ ! -f "$stacked/config.json" ]; then
      local fit_excludes=(--exclude "$held_name")
      for c in "${others[@]}"; do fit_excludes+=(--exclude "$(name_of "$(device_of "$c")")"); done
      run "$stacked.log" "$bin" stack --data "$kernel_dir" --collection tile:xla "${fit_excludes[@]}" \
        --member "$member" --member-other-devices --refit-member "$out" --meta ridge --folds 5 \
        --seed "$s" --threads "$threads" --out "$stacked" --overwrite
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$device" stack "$s" "$(score "$stacked" "$held_name")" |
      tr ' ' '\t' >> "$results"
  done
}
fit_study() {  # OUT SEED FLAGS...: XGBoost with the study's setting on the kernel's caches
  local out=$1 seed=$2; shift 2
  [ -f "$out/config.json" ] && [ -f "$out/model.xgb" ] && return 0
  run "$out.log" "$bin" xgb train --data "$kernel_dir" --collection tile:xla --threads "$threads" \
    --seed "$seed" --out "$out" --overwrite "$@"
}

kernels=(${KERNELS:-$(cd "$root" && for d in */; do echo "${d%/}"; done)})
for kernel in "${kernels[@]}"; do
  kernel_dir="$root/$kernel/"
  caches=("$kernel_dir"*.json.gz)
  [ -e "${caches[0]}" ] || { bench_skip "kt_holdout_protocol_$kernel" "no caches in $kernel_dir"; continue; }
  mapfile -t names < <("$bin" eval --baseline random --collection tile:xla --data "$kernel_dir" \
    --max-configs 2 --json 2> /dev/null | "$py" -c 'import json,sys; [print(g["name"]) for g in json.load(sys.stdin)["graphs"]]')
  device_of() { basename "$1" .json.gz; }
  name_of() { for n in "${names[@]}"; do if [[ "$n" == *"_$1"* ]]; then echo "$n"; fi; done; }
  for held in "${caches[@]}"; do
    device=$(device_of "$held")
    # HELD: only these held-out devices (folds run apart, e.g. side by side in two work folders
    # whose fold folders are then gathered into one for the summary).
    [ -z "${HELD:-}" ] || [[ " $HELD " == *" $device "* ]] || continue
    held_name=$(name_of "$device")
    [ -n "$held_name" ] || { bench_skip "kt_holdout_protocol_${kernel}_$device" "no graph named after $device"; continue; }
    fold="$work/$kernel/$device"
    mkdir -p "$fold"
    training=()
    for c in "${caches[@]}"; do [ "$c" = "$held" ] || training+=("$c"); done
    # 1. Selection by inner leave-one-device-out over the training devices.
    chosen=()
    for method in $methods; do
      candidates=$xgb_candidates
      [ "$method" = neural ] && candidates=$neural_candidates
      best="" best_tau=""
      for setting in $candidates; do
        taus=()
        for inner in "${training[@]}"; do
          inner_name=$(name_of "$(device_of "$inner")")
          out="$fold/select/$method-${setting%%:*}-$(device_of "$inner")"
          mkdir -p "$(dirname "$out")"
          fit "$method" "$setting" 0 "$out" "$held_name" "$inner_name"
          taus+=("$(score "$out" "$inner_name" | awk '{print $1}')")
        done
        mean=$("$py" -c 'import sys; v = [float(x) for x in sys.argv[1:]]; print("%.6f" % (sum(v) / len(v)))' "${taus[@]}")
        echo "$kernel $device select $method ${setting%%:*}: inner tau ${taus[*]} mean $mean" >&2
        if [ -z "$best" ] || "$py" -c "import sys; sys.exit(0 if $mean > $best_tau else 1)"; then
          best=$setting best_tau=$mean
        fi
      done
      chosen+=("$method=$best")
      # 2. The chosen setting on all three training devices, SEEDS seeds, scored once on D.
      for ((s = 0; s < seeds; ++s)); do
        out="$fold/test/$method-s$s"
        mkdir -p "$(dirname "$out")"
        fit "$method" "$best" "$s" "$out" "$held_name"
        printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$device" "$method" "$s" "$(score "$out" "$held_name")" |
          tr ' ' '\t' >> "$results"
      done
    done
    if [ "$study_trials" -gt 0 ]; then
      study_fold "${training[@]}"
      chosen+=("xgboost_study=$study_setting")
    fi
    echo "$kernel $device: chosen on the training devices: ${chosen[*]}" | tee -a "$work/chosen.txt" >&2
    for reference in "${training[@]}"; do
      metrics=$("$py" "$here/kt_other_device.py" "$reference" "$held" | "$py" -c '
import json, sys; j = json.load(sys.stdin); print("%.6f %.6f %.6f" % (j["kendall_tau"], j["top1_error"], j["top5_error"]))')
      printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$device" "device:$(device_of "$reference")" - "$metrics" |
        tr ' ' '\t' >> "$results"
    done
  done
done

"$py" - "$results" <<'PY'
import collections, statistics, sys
from scipy import stats
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
# (kernel, method, seed) -> device -> metrics; the baseline: (kernel, device) -> mean over references
model = collections.defaultdict(dict)
reference = collections.defaultdict(list)
for kernel, device, method, seed, tau, top1, top5 in rows:
    values = [float(tau), float(top1), float(top5)]
    if method.startswith("device:"):
        reference[(kernel, device)].append(values)
    else:
        model[(kernel, method, int(seed))][device] = values
mean = lambda v: sum(v) / len(v)
print("| kernel | method | tau (mean ± sd over seeds) | top-1 error | top-5 error | tau minus other device, paired by seed (95% t) | tau minus XGBoost (grid), paired by seed (95% t) |")
print("|---|---|---|---|---|---|---|")
def interval(diffs):
    half = stats.t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    lo, hi = mean(diffs) - half, mean(diffs) + half
    verdict = "effect" if lo > 0 or hi < 0 else "no detectable effect"
    return mean(diffs), lo, hi, verdict
for kernel in sorted({k for k, _ in reference}):
    devices = sorted(d for k, d in reference if k == kernel)
    base = [mean([mean([r[i] for r in reference[(kernel, d)]]) for d in devices]) for i in range(3)]
    print(f"| {kernel} | other device (mean of the three) | {base[0]:.4f} | {base[1]:.4f} | {base[2]:.4f} | baseline | |")
    print(f"figure: kt_protocol_{kernel}_other_device_tau: {base[0]:.4f} tau")
    def seeds_of(method):  # seed -> [tau, top1, top5] averaged over the held-out devices
        return {s: [mean([model[(kernel, method, s)][d][i] for d in devices]) for i in range(3)]
                for s in sorted(s for k, m, s in model if k == kernel and m == method)}
    xgb = seeds_of("xgboost")
    for method in ("xgboost", "neural", "xgboost_study", "stack"):
        per_seed = seeds_of(method)
        if not per_seed:
            continue
        values = list(per_seed.values())
        cols = [(mean([p[i] for p in values]), statistics.stdev([p[i] for p in values]) if len(values) > 1 else 0.0)
                for i in range(3)]
        m, lo, hi, verdict = interval([p[0] - base[0] for p in values])
        cells = " | ".join(f"{a:.4f} ± {sd:.4f}" for a, sd in cols)
        versus = "baseline" if method == "xgboost" else ""
        if method != "xgboost" and xgb and set(xgb) == set(per_seed):
            xm, xlo, xhi, xverdict = interval([per_seed[s][0] - xgb[s][0] for s in per_seed])
            versus = f"{xm:+.4f} [{xlo:+.4f}, {xhi:+.4f}], {xverdict}"
            print(f"figure: kt_protocol_{kernel}_{method}_minus_xgboost: {xm:+.4f} [{xlo:+.4f}, {xhi:+.4f}] tau")
        print(f"| {kernel} | {method} | {cells} | {m:+.4f} [{lo:+.4f}, {hi:+.4f}], {verdict} | {versus} |")
        print(f"figure: kt_protocol_{kernel}_{method}_tau: {cols[0][0]:.4f} ± {cols[0][1]:.4f} tau")
        print(f"figure: kt_protocol_{kernel}_{method}_minus_other_device: {m:+.4f} [{lo:+.4f}, {hi:+.4f}] tau")
PY
