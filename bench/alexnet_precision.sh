#!/usr/bin/env bash
# bf16 against fp32 on the real AlexNet layout file, by the project's protocol (issue #39, item 2):
# the GNN at the setting alexnet_headline.sh chose on validation for fp32 (S = 64, 1,500
# iterations, decay at 1,000), trained on the same 20% share for SEEDS seeds in each precision
# (`train --precision`), each scored once on the 80% test share in its own precision
# (`eval --precision`). Prints one line per run, then `figure:` lines: each precision's mean ± sd
# tau and bf16 minus fp32 paired by seed with its 95% t interval, and each precision's median
# training seconds (the two runs of a seed train side by side, one thread each).
#
#   bench/alexnet_precision.sh GRAPHCOST_BINARY [WORK_DIR]
#
# environment: DATA (the .npz; default ../shared/data/tpugraphs/alexnet_layout_reduced.npz beside
#   the repository), SEEDS (5), ITERATIONS (1500). On a CPU without AVX512-BF16 the bf16 runs stop
#   with graphcost's own error line.
set -euo pipefail
. "$(dirname "$0")/alexnet_inputs.sh"
alexnet_inputs alexnet_precision "$@"
seeds=${SEEDS:-5}
iterations=${ITERATIONS:-1500}
c=layout:xla:default
mkdir -p "$work"
cd "$work"
[ -d split ] || "$bin" split "$file" --fraction 0.2 --seed 0 --out split > split.log 2>&1
: > results.tsv
for seed in $(seq 0 $((seeds - 1))); do
  for precision in fp32 bf16; do
    out=gnn-$precision-$seed
    (
      if [ ! -s "$out.tau" ]; then
        start=$(date +%s.%N)
        "$bin" train --data split --valid-split "" --collection $c --graphs-per-batch 1 \
          --slate-size 64 --iterations "$iterations" --decay-at $((iterations * 2 / 3)) \
          --seed "$seed" --precision "$precision" --threads 1 --out "$out" --overwrite \
          > "$out.log" 2>&1
        end=$(date +%s.%N)
        "$bin" eval --model "$out" --data split --split valid --collection $c --threads 1 \
          --precision "$precision" --json 2> /dev/null |
          "$py" -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["kendall_tau"])' > "$out.tau"
        "$py" -c "print('%.1f' % ($end - $start))" > "$out.seconds"
      fi
    ) &
  done
  wait
  for precision in fp32 bf16; do
    out=gnn-$precision-$seed
    [ -s "$out.tau" ] || { tail -n 3 "$out.log" >&2; echo "alexnet_precision: $out failed" >&2; exit 1; }
    printf '%s\t%s\t%s\t%s\n' "$precision" "$seed" "$(cat "$out.tau")" "$(cat "$out.seconds")" | tee -a results.tsv
  done
done
"$py" - results.tsv <<'EOF'
import statistics, sys
from scipy import stats
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n") if line]
tau = {p: {int(s): float(t) for q, s, t, _ in rows if q == p} for p in ("fp32", "bf16")}
secs = {p: [float(x) for q, _, _, x in rows if q == p] for p in ("fp32", "bf16")}
for p in ("fp32", "bf16"):
    v = list(tau[p].values())
    print(f"figure: alexnet_{p}_tau: {statistics.fmean(v):.4f} ± {statistics.stdev(v):.4f} tau")
    print(f"figure: alexnet_{p}_train_seconds: {statistics.median(secs[p]):.0f} s")
d = [tau["bf16"][s] - tau["fp32"][s] for s in sorted(tau["fp32"])]
half = stats.t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
m = statistics.fmean(d)
print(f"figure: alexnet_bf16_minus_fp32: {m:+.4f} [{m - half:+.4f}, {m + half:+.4f}] tau")
EOF
