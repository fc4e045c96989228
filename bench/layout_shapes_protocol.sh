#!/usr/bin/env bash
# --layout-shapes against the same model without them, by the protocol: SEEDS training seeds of
# each (bench/quality_diagnosis.sh's base and shapes variants: SAGE 64 x 3, G = 2, S = 32,
# ITERATIONS iterations), each scored by eval on the validation split and once on the test split
# (synth's answers); prints every seed's taus, then `figure:` lines with each arm's mean and the
# paired difference (shapes - base) with its 95% t interval, per split. No setting is chosen from
# these runs (both arms are fixed), so the validation figure is not inflated by a selection.
# usage: bench/layout_shapes_protocol.sh GRAPHCOST_BINARY WORK_DIR
# environment: SEEDS ("1 2 3 4 5"), ITERATIONS (1000), COLLECTION (layout:xla:random), THREADS (1),
# and quality_diagnosis.sh's SCALE and DATA_SEED (medium, 7)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/skip.sh"
bin=$(realpath "${1:?usage: layout_shapes_protocol.sh GRAPHCOST_BINARY WORK_DIR}")
work=${2:?usage: layout_shapes_protocol.sh GRAPHCOST_BINARY WORK_DIR}
read -r -a seeds <<< "${SEEDS:-1 2 3 4 5}"
collection=${COLLECTION:-layout:xla:random}
threads=${THREADS:-1}
py=/usr/bin/python3
"$py" -c "import scipy" 2> /dev/null ||
  { bench_skip layout_shapes_protocol "python3-scipy missing (t quantile)"; exit 0; }
name=${collection//:/-}
for seed in "${seeds[@]}"; do
  ITERATIONS=${ITERATIONS:-1000} SEEDS=$seed VARIANTS="base shapes" COLLECTIONS=$collection \
    THREADS=$threads bash "$here/quality_diagnosis.sh" "$bin" "$work" > "$work/protocol-$name-$seed.out"
done
tau_of() { grep -o '"kendall_tau": [0-9.e+-]*' | tail -1 | awk '{print $2}'; }
rows=()
for seed in "${seeds[@]}"; do
  for v in base shapes; do
    valid=$(grep "^run: $collection $v seed $seed:" "$work/protocol-$name-$seed.out" | awk '{print $8}')
    test=$("$bin" eval --model "$work/runs/$name-$v-$seed" --data "$work/data" --collection "$collection" \
      --split test --max-configs 1000 --threads "$threads" --json 2> /dev/null | tau_of)
    echo "seed $seed $v: valid tau $valid, test tau $test"
    rows+=("$seed $v $valid $test")
  done
done
printf '%s\n' "${rows[@]}" | "$py" -c '
import statistics, sys
from scipy import stats
taus = {}
for line in sys.stdin:
    seed, variant, valid, test = line.split()
    taus.setdefault(variant, {})[seed] = (float(valid), float(test))
seeds = sorted(taus["base"])
for i, split in enumerate(("valid", "test")):
    base = [taus["base"][s][i] for s in seeds]
    shapes = [taus["shapes"][s][i] for s in seeds]
    d = [b - a for a, b in zip(base, shapes)]
    half = stats.t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / len(d) ** 0.5
    mean = statistics.mean(d)
    print(f"figure: layout_shapes_{split}_base_tau: {statistics.mean(base):.4f} tau")
    print(f"figure: layout_shapes_{split}_shapes_tau: {statistics.mean(shapes):.4f} tau")
    print(f"figure: layout_shapes_{split}_difference: {mean:+.4f} tau "
          f"(95% interval [{mean - half:+.4f}, {mean + half:+.4f}], {len(d)} seeds)")
'
