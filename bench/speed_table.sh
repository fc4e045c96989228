#!/usr/bin/env bash
# The training-speed table of docs/scale.md ("The speed table"), every regime measured the same
# way: for each regime, REPEATS (default 3) runs of bench/reference_compare.sh, and per column the
# median over those runs of
#   - the reference: the project's own plain-PyTorch rewrite of the layout model
#     (bench/python_reference/reference_train.py, run on tcmalloc), configs/s;
#   - graphcost exact (delta evaluation) and approximate (`--prune-hops 1`), configs/s, and each one's
#     ratio to the reference of the same run (the median of the per-run ratios);
# all rates without the first training step (which pages in fresh memory on both sides).
# Regimes: the synthetic default search (6k nodes, 10% configurable, G = 4) at S = 10, 40 and
# 64 (G = 2 at S = 64, so the reference can hold its slates), the tied random search at S = 10
# and 40, and the real 3,163-node program at G = 1, S = 64 (skipped, as a figure, without
# ../shared/data; see bench/skip.sh).
# Prints one `figure:` line per cell and a Markdown table. Takes about REPEATS x 25 minutes on
# 2 cores, and the figures are only as steady as the machine: run it on an otherwise idle one.
# usage: bench/speed_table.sh GRAPHCOST_BINARY [WORK_DIR]   (REPEATS, REGIMES from the environment)
# Interrupted, or run a few REGIMES at a time, it keeps the finished runs in WORK_DIR: the same
# command again measures only what is missing (same binary and machine, or start a new WORK_DIR).
set -euo pipefail
. "$(dirname "$0")/skip.sh"
bin=${1:?usage: bench/speed_table.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
repeats=${REPEATS:-3}
[ "$repeats" -ge 3 ] || { echo "speed_table: REPEATS must be at least 3 (a median of fewer is one run)" >&2; exit 1; }
real_pb="$here/../../shared/data/tpugraphs/module_tuning_data_layout.pb"

# name: environment for reference_compare.sh
declare -A regime_env=(
  [default_s10]="COLLECTION=layout:xla:default G=4 S=10 REFERENCE_STEPS=4 GRAPHCOST_STEPS=40"
  [default_s40]="COLLECTION=layout:xla:default G=4 S=40 REFERENCE_STEPS=4 GRAPHCOST_STEPS=20"
  [default_s64]="COLLECTION=layout:xla:default G=2 S=64 REFERENCE_STEPS=3 GRAPHCOST_STEPS=20"
  [tied_s10]="RANDOM_SEARCH=tied G=4 S=10 REFERENCE_STEPS=4 GRAPHCOST_STEPS=40"
  [tied_s40]="RANDOM_SEARCH=tied G=4 S=40 REFERENCE_STEPS=4 GRAPHCOST_STEPS=20"
  [real_s64]="DATA_FOLDER=$work/real/train COLLECTION=layout:xla:default G=1 S=64 REFERENCE_STEPS=6 GRAPHCOST_STEPS=100"
)
regimes=(${REGIMES:-default_s10 default_s40 default_s64 tied_s10 tied_s40 real_s64})

median() {  # values on stdin, one a line -> their median
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
value() { awk -v key="figure: $1:" 'index($0, key) == 1 {print $3}' "$2"; }

mkdir -p "$work"
table="| regime | G x S | reference (configs/s) | graphcost exact (configs/s) | exact / reference | graphcost --prune-hops 1 (configs/s) | prune / reference |"
table+=$'\n|---|---|---|---|---|---|---|'
for regime in "${regimes[@]}"; do
  [ -n "${regime_env[$regime]:-}" ] || { echo "speed_table: unknown regime $regime" >&2; exit 1; }
  if [ "$regime" = real_s64 ]; then
    if [ ! -f "$real_pb" ]; then bench_skip speed_real_s64 "$real_pb not present"; continue; fi
    [ -d "$work/real/train" ] || "$bin" ingest "$real_pb" --out "$work/real/train" > /dev/null
  fi
  logs=()
  for ((r = 1; r <= repeats; r++)); do
    log="$work/$regime.run$r.log"
    logs+=("$log")
    # A finished run is kept: the table can be measured in pieces, each on an idle machine (a
    # log is renamed into place only once its run has finished).
    if [ -f "$log" ]; then echo "== $regime, run $r of $repeats: kept from $log" >&2; continue; fi
    echo "== $regime, run $r of $repeats" >&2
    env ${regime_env[$regime]} bash "$here/reference_compare.sh" "$bin" "$work/$regime" > "$log.part"
    mv "$log.part" "$log"
  done
  cells=()
  for key in reference_train_configs_per_s graphcost_train_configs_per_s graphcost_over_reference \
             graphcost_prune1_train_configs_per_s graphcost_prune1_over_reference; do
    m=$(for log in "${logs[@]}"; do value "$key" "$log"; done | median) ||
      { bench_skip "speed_${regime}_$key" "reference_compare.sh printed no $key"; m="-"; }
    echo "figure: speed_${regime}_${key}_median: $m $( [[ $key == *over* ]] && echo x || echo configs/s)"
    cells+=("$m")
  done
  gs=$(sed -n 's/.* G=\([0-9]*\) S=\([0-9]*\).*/\1 x \2/p' <<< "${regime_env[$regime]}")
  table+=$'\n'"| $regime | $gs | ${cells[0]} | ${cells[1]} | ${cells[2]}x | ${cells[3]} | ${cells[4]}x |"
done
echo
echo "Median of $repeats runs per regime; rates without the first step on both sides; the"
echo "reference is graphcost's own plain-PyTorch rewrite (bench/python_reference), on tcmalloc."
echo "$table"
