#!/usr/bin/env bash
# The autotuning table of docs/tune.md by the project's protocol for quality figures. For each
# kernel and each device T as the held-out target (the outer fold):
#   1. selection, on the other three devices only: each setting of bo (BO_CANDIDATES) and of
#      genetic search (GENETIC_CANDIDATES) tunes each of them (seeds 0 .. SEEDS-1); per strategy
#      the setting with the fewest measurements to come within 5% of the optimum (the mean over
#      seeds counting a miss as budget + 1, then the mean over the three devices) is chosen;
#   2. test, once, on fresh seeds (TEST_SEED .. TEST_SEED + SEEDS - 1): random search (the
#      baseline; it has no settings), the chosen genetic setting, the chosen bo setting, and the
#      chosen bo setting with the other three devices' records as its prior (--pretrained), tune T.
# Per space and strategy: measurements to come within 1%, 5%, 10% of the optimum as mean / median
# over seeds (a miss counted as budget + 1) and the seeds that got there; and each strategy's
# difference from random search within 5%, paired by seed, with its 95% t interval, per space and
# per kernel (each seed's mean over the four targets); per kernel also bo's difference from
# genetic search. Prints `figure:` lines and Markdown tables.
# usage: bench/tune_protocol.sh GRAPHCOST_BINARY [WORK_DIR]
# environment: SEEDS (10, at least 5), TEST_SEED (1000), BUDGET (1000), BATCH (10),
#   BO_CANDIDATES and GENETIC_CANDIDATES ("name:flag=value,flag=value ...", `graphcost tune` flags
#   without their dashes; the first is the default, which a tie keeps), KERNELS (convolution
#   dedispersion), DEVICES (A100 A4000 A6000 W6600), DATA (../shared/data/kernel_tuner), QUICK=1
#   (a smoke test of the mechanics: budget 60, 5 seeds, one kernel; its numbers mean nothing).
# Interrupted, it resumes: finished campaigns (WORK_DIR/*.json, written by rename) are kept.
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: tune_protocol.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
data=${DATA:-$here/../../shared/data/kernel_tuner}
[ -d "$data" ] || { bench_skip tune_protocol "no Kernel Tuner data at $data"; exit 0; }
"$py" -c "import scipy" 2> /dev/null || { bench_skip tune_protocol "python3-scipy missing"; exit 0; }
if [ "${QUICK:-0}" = 1 ]; then
  seeds=${SEEDS:-5} budget=${BUDGET:-60} kernels=${KERNELS:-dedispersion}
else
  seeds=${SEEDS:-10} budget=${BUDGET:-1000} kernels=${KERNELS:-convolution dedispersion}
fi
[ "$seeds" -ge 5 ] || { echo "tune_protocol: SEEDS must be at least 5" >&2; exit 1; }
test_seed=${TEST_SEED:-1000}
batch=${BATCH:-10}
devices=${DEVICES:-A100 A4000 A6000 W6600}
# Candidates: "name:flag=value,flag=value"; the first is the strategy's default, which a tie keeps.
bo_candidates=${BO_CANDIDATES:-"e0.1d5:explore=0.1,max-depth=5 e0.3d5:explore=0.3,max-depth=5 e0.1d3:explore=0.1,max-depth=3 e0.3d3:explore=0.3,max-depth=3"}
genetic_candidates=${GENETIC_CANDIDATES:-"p20t2:population=20,tournament=2 p10t2:population=10,tournament=2 p40t2:population=40,tournament=2 p20t4:population=20,tournament=4"}
mkdir -p "$work"

tune() {  # OUT ARGS...: one campaign set, kept as JSON (a rerun skips it)
  local out=$1; shift
  [ -s "$out" ] && return 0
  # --warp log: bo as these figures measured it (its default is rank since 7 December 2026).
  if "$bin" tune "$@" --budget "$budget" --batch "$batch" --warp log --seeds "$seeds" --threads 1 --json \
      > "$out.tmp" 2> "$out.log"; then
    mv "$out.tmp" "$out"
  else
    tail -n 3 "$out.log" >&2
    echo "tune_protocol: failed: $out (see $out.log)" >&2
    exit 1
  fi
}
reach5() {  # JSON -> the mean over seeds within 5%, a miss counted as budget + 1
  "$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["reach_5pct_mean_with_misses"])' "$1"
}
flags_of() {  # "name:a=1,b=2" -> the words --a 1 --b 2, one a line
  local pair
  IFS=, read -ra pairs <<< "${1#*:}"
  for pair in "${pairs[@]}"; do printf -- '--%s\n%s\n' "${pair%%=*}" "${pair#*=}"; done
}
# choose KERNEL TARGET STRATEGY CANDIDATES: tunes every device but TARGET with each candidate
# (seeds 0 .. SEEDS-1), prints the candidate with the fewest measurements within 5% on average.
# Tuning device D with a setting is the same run whichever device is held out, so each
# (strategy, setting, D) runs once and serves every fold but D's.
choose() {
  local kernel=$1 target=$2 strategy=$3 best="" best_value="" setting name mean d
  for setting in $4; do
    name=${setting%%:*}
    local values=()
    for d in $devices; do
      [ "$d" = "$target" ] && continue
      local out="$work/select-$kernel-$d-$strategy-$name.json"
      mapfile -t flags < <(flags_of "$setting")
      # --pretrained none: bo's default prior would be the folder's other devices, the held-out
      # target among them (the genetic search ignores it).
      tune "$out" --space "$data/$kernel" --device "$d" --strategy "$strategy" "${flags[@]}" --seed 0 \
        --pretrained none
      values+=("$(reach5 "$out")")
    done
    mean=$("$py" -c 'import sys; v = [float(x) for x in sys.argv[1:]]; print("%.2f" % (sum(v) / len(v)))' "${values[@]}")
    echo "$kernel $target select $strategy $name: within 5% on the other devices ${values[*]}, mean $mean" >&2
    if [ -z "$best" ] || "$py" -c "import sys; sys.exit(0 if $mean < $best_value else 1)"; then
      best=$setting best_value=$mean
    fi
  done
  printf '%s\t%s\t%s\t%s\t%s\n' "$kernel" "$target" "$strategy" "${best%%:*}" "$best_value" >> "$chosen_file"
  echo "$kernel $target: chosen $strategy setting $best" >&2
  echo "$best"
}

chosen_file="$work/chosen.tsv"
: > "$chosen_file"
for kernel in $kernels; do
  [ -d "$data/$kernel" ] || { bench_skip "tune_protocol_$kernel" "no folder $data/$kernel"; continue; }
  for target in $devices; do
    bo=$(choose "$kernel" "$target" bo "$bo_candidates")
    genetic=$(choose "$kernel" "$target" genetic "$genetic_candidates")
    mapfile -t bo_flags < <(flags_of "$bo")
    mapfile -t genetic_flags < <(flags_of "$genetic")
    space=(--space "$data/$kernel" --device "$target" --seed "$test_seed")
    test="$work/test-$kernel-$target"
    tune "$test-random.json" "${space[@]}" --strategy random
    tune "$test-genetic-${genetic%%:*}.json" "${space[@]}" --strategy genetic "${genetic_flags[@]}"
    tune "$test-bo-${bo%%:*}.json" "${space[@]}" --strategy bo "${bo_flags[@]}" --pretrained none
    # The prior: the kernel's folder, whose target graph the search leaves out itself.
    tune "$test-bo-pretrained-${bo%%:*}.json" "${space[@]}" --strategy bo "${bo_flags[@]}" \
      --pretrained "$data/$kernel"
  done
done

"$py" - "$work" "$budget" "$kernels" "$devices" <<'PY'
import json, os, statistics, sys
from scipy import stats
work, budget, kernels, devices = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
strategies = ["random", "genetic", "bo", "bo-pretrained"]
chosen = {}
for line in open(os.path.join(work, "chosen.tsv")):
    k, d, strategy, name, value = line.rstrip("\n").split("\t")
    chosen[(k, d, strategy)] = name
def setting(k, d, s):  # the chosen setting's name, "" for random search
    return "" if s == "random" else chosen.get((k, d, "bo" if s.startswith("bo") else s), "?")
def load(k, d, s):
    name = setting(k, d, s)
    p = os.path.join(work, f"test-{k}-{d}-{s}" + (f"-{name}" if name else "") + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
def per_seed(j, key):
    return [budget + 1 if v < 0 else v for v in j[key + "_per_seed"]]
def interval(diffs):
    m = statistics.mean(diffs)
    half = stats.t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
    return m, m - half, m + half
def fmt(m, lo, hi):
    return "%+.1f [%+.1f, %+.1f]" % (m, lo, hi)
print()
print(f"Test, once, on seeds the selection did not use; budget {budget}. Cells: measurements to come "
      f"within 1%, 5%, 10% of the optimum, mean / median over seeds with a miss counted as {budget + 1} "
      f"(seeds that got there / seeds). Last column: the difference from random search within 5%, "
      f"paired by seed, with its 95% t interval (negative: fewer measurements).")
print()
print("| kernel | target (held out) | strategy | 1% | 5% | 10% | 5%: minus random |")
print("|---|---|---|---|---|---|---|")
pooled = {}
for k in kernels:
    for d in devices:
        base = load(k, d, "random")
        for s in strategies:
            j = load(k, d, s)
            if j is None or base is None: continue
            cells = []
            for key in ("reach_1pct", "reach_5pct", "reach_10pct"):
                v = per_seed(j, key)
                cells.append("%.0f / %.0f (%d/%d)" % (statistics.mean(v), statistics.median(v),
                                                      sum(x <= budget for x in v), len(v)))
            diff = "baseline"
            if s != "random":
                diffs = [a - b for a, b in zip(per_seed(j, "reach_5pct"), per_seed(base, "reach_5pct"))]
                diff = fmt(*interval(diffs)) if statistics.stdev(diffs) > 0 else "%+.1f (every seed)" % diffs[0]
                pooled.setdefault((k, s, "random"), []).append(diffs)
            genetic = load(k, d, "genetic")
            if s.startswith("bo") and genetic is not None:
                pooled.setdefault((k, s, "genetic"), []).append(
                    [a - b for a, b in zip(per_seed(j, "reach_5pct"), per_seed(genetic, "reach_5pct"))])
            label = s if s == "random" else f"{s} ({setting(k, d, s)})"
            print(f"| {k} | {d} | {label} | {' | '.join(cells)} | {diff} |")
            print(f"figure: tune_protocol_{k}_{d}_{s}_reach_5pct_mean: {statistics.mean(per_seed(j, 'reach_5pct')):.1f} measurements",
                  file=sys.stderr)
print()
print("Per kernel: each seed's difference within 5% from the baseline (random search; genetic search "
      "for bo), averaged over the targets, then the mean and 95% t interval over seeds.")
print()
print("| kernel | strategy | baseline | targets | 5%: minus baseline, paired by seed |")
print("|---|---|---|---|---|")
for (k, s, b), lists in pooled.items():
    by_seed = [statistics.mean(col) for col in zip(*lists)]
    m, lo, hi = interval(by_seed)
    print(f"| {k} | {s} | {b} | {len(lists)} | {fmt(m, lo, hi)} |")
    print(f"figure: tune_protocol_{k}_{s}_minus_{b}_reach_5pct: {m:+.1f} [{lo:+.1f}, {hi:+.1f}] measurements",
          file=sys.stderr)
PY
