#!/usr/bin/env bash
# TPE with successive halving (ASHA) against random search without pruning, at equal CPU time
# (issue #36): for each collection and study seed, two studies of the same training base on one
# worker: random search runs TRIALS trials, and TPE+ASHA runs until it has used as much time
# (each trial's time is its run time in the study database). Prints,
# per collection, the best validation value each method reached within random search's total
# time (paired by seed: mean difference and its 95% t interval), and the share of random
# search's time TPE+ASHA needed to reach random search's final best (median over seeds; 1 means
# it never did within its own trials).
#
#   bench/study_compare.sh GRAPHCOST_BINARY WORK_DIR
#
# Environment: SCALE (synth scale, small), SEEDS (5), COLLECTIONS ("tile:xla layout:xla:random"),
# TRIALS (20), ITERATIONS (120), VALIDATE_EVERY (20), THREADS (1). Finished studies are reused,
# so an interrupted run resumes (a study holding its trials does nothing more).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 GRAPHCOST_BINARY WORK_DIR" >&2; exit 2; }
bin=$(realpath "$1")
mkdir -p "$2"
work=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
SCALE=${SCALE:-small}
SEEDS=${SEEDS:-5}
COLLECTIONS=${COLLECTIONS:-"tile:xla layout:xla:random"}
TRIALS=${TRIALS:-20}
ITERATIONS=${ITERATIONS:-120}
VALIDATE_EVERY=${VALIDATE_EVERY:-20}
THREADS=${THREADS:-1}
data="$work/data-$SCALE"
[ -d "$data/npz" ] || "$bin" synth --out "$data" --scale "$SCALE" --seed 1 --threads "$THREADS" >/dev/null 2>&1
for collection in $COLLECTIONS; do
  kind=${collection%%:*}
  space="$here/../examples/study/${kind}_space.json"
  name=${collection//:/_}
  for seed in $(seq 1 "$SEEDS"); do
    # Random search first: its total time is the budget. Then TPE+ASHA gets trials in steps of
    # TRIALS until its own total time reaches that budget (pruned trials are cheap, so it runs
    # more of them), at most 10 steps.
    for method in random tpe_asha; do
      if [ "$method" = tpe_asha ]; then
        how=(--sampler tpe --pruner asha --pruner-options "{\"min_resource\": $VALIDATE_EVERY, \"reduction_factor\": 3}")
      else
        how=(--sampler random --pruner none)
      fi
      study="$name-$method-s$seed"
      trials=$TRIALS
      for step in $(seq 1 10); do
        "$bin" study --data "$data" --collection "$collection" --space "$space" \
          --storage "sqlite:///$work/studies.db" --study "$study" --out "$work/runs/$study" \
          --trials "$trials" --sampler-seed "$seed" --iterations "$ITERATIONS" \
          --validate-every "$VALIDATE_EVERY" --threads "$THREADS" "${how[@]}" \
          >> "$work/$study.log" 2>&1 || { echo "study $study failed: see $work/$study.log" >&2; exit 1; }
        "$bin" study export --storage "sqlite:///$work/studies.db" --study "$study" --format json \
          --out "$work/$study.json" 2>/dev/null
        [ "$method" = random ] && break
        used=$(/usr/bin/python3 -c "import json,sys; print(sum(t['finished']-t['started'] for t in json.load(open(sys.argv[1]))))" "$work/$study.json")
        budget=$(/usr/bin/python3 -c "import json,sys; print(sum(t['finished']-t['started'] for t in json.load(open(sys.argv[1]))))" "$work/$name-random-s$seed.json")
        /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$used" "$budget" && break
        trials=$((trials + TRIALS))
      done
    done
  done
done
/usr/bin/python3 - "$work" "$SEEDS" "$COLLECTIONS" <<'EOF'
import json, math, statistics, sys
work, seeds, collections = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
# Two-sided 95% t quantiles by degrees of freedom (no SciPy needed).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 14: 2.145, 19: 2.093, 29: 2.045}
def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)]
def curve(trials, maximize):
    # (cumulative seconds at each trial's end, best value so far) in trial order.
    elapsed, best, out = 0.0, None, []
    for t in sorted(trials, key=lambda t: t["number"]):
        elapsed += max(0.0, t["finished"] - t["started"])
        v = t["value"]
        if t["state"] == "complete" and v is not None:
            if best is None or (v > best if maximize else v < best):
                best = v
        out.append((elapsed, best))
    return out
def best_within(c, seconds):
    b = None
    for elapsed, best in c:
        if elapsed <= seconds + 1e-9:
            b = best
    return b
for collection in collections:
    name = collection.replace(":", "_")
    maximize = True  # tile_score and kendall_tau
    diffs, shares = [], []
    for seed in range(1, seeds + 1):
        tpe = json.load(open(f"{work}/{name}-tpe_asha-s{seed}.json"))
        rnd = json.load(open(f"{work}/{name}-random-s{seed}.json"))
        c_tpe, c_rnd = curve(tpe, maximize), curve(rnd, maximize)
        budget, final = c_rnd[-1][0], c_rnd[-1][1]
        a, b = best_within(c_tpe, budget), final
        if a is None or b is None:
            continue
        diffs.append(a - b)
        reach = next((e for e, v in c_tpe if v is not None and v >= final), None)
        shares.append(reach / budget if reach is not None and reach <= budget else 1.0)
    n = len(diffs)
    mean = statistics.mean(diffs)
    half = t95(n - 1) * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")
    print(f"figure: study_{name}_tpe_asha_minus_random_best_at_equal_time: {mean:+.4f} "
          f"[{mean - half:+.4f}, {mean + half:+.4f}] (mean [95% t] over {n} seeds)")
    print(f"figure: study_{name}_time_share_to_random_final_best: {statistics.median(shares):.2f} "
          f"(median over {n} seeds; per seed {', '.join(f'{s:.2f}' for s in shares)}; 1.00: "
          f"not reached within random search's time)")
    for seed in range(1, seeds + 1):
        for method in ("random", "tpe_asha"):
            t = json.load(open(f"{work}/{name}-{method}-s{seed}.json"))
            done = [x["value"] for x in t if x["state"] == "complete" and x["value"] is not None]
            print(f"  seed {seed} {method}: {len(t)} trials, {len(done)} complete, "
                  f"{sum(x['state'] == 'pruned' for x in t)} pruned, "
                  f"{sum(x['finished'] - x['started'] for x in t):.0f} s, best "
                  f"{max(done) if done else float('nan'):.4f}")
EOF
