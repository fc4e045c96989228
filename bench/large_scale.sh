#!/usr/bin/env bash
# The whole synthetic large scale, end to end from memory-mapped packs: each of the five
# collections' train and valid splits packed, then trained from its pack (validated on the
# valid pack at the end). Prints, per collection, `figure: name: value unit` lines: pack size
# and time, peak RSS of packing and of training (/usr/bin/time -v), training configs/s, the
# fraction of step time spent waiting for data, and the final validation metric.
# usage: bench/large_scale.sh GRAPHCOST_BINARY DATA_ROOT WORK_DIR
#   DATA_ROOT from `graphcost synth --out DATA_ROOT --scale large` (about 2 hours on 2 cores)
# Environment: LAYOUT_ITERATIONS (30), TILE_ITERATIONS (300), THREADS (0: all cores),
# TRAIN_FLAGS (extra flags for every training run, e.g. "--prune-hops 1"), COLLECTIONS (all five).
set -euo pipefail
bin=${1:?usage: large_scale.sh GRAPHCOST_BINARY DATA_ROOT WORK_DIR}
root=${2:?usage: large_scale.sh GRAPHCOST_BINARY DATA_ROOT WORK_DIR}
work=${3:?usage: large_scale.sh GRAPHCOST_BINARY DATA_ROOT WORK_DIR}
layout_iterations=${LAYOUT_ITERATIONS:-30} tile_iterations=${TILE_ITERATIONS:-300}
threads=${THREADS:-0}
collections=${COLLECTIONS:-"tile:xla layout:xla:random layout:xla:default layout:nlp:random layout:nlp:default"}
read -r -a extra <<< "${TRAIN_FLAGS:-}"
[ -f "$root/synth_report.json" ] || { echo "large_scale: error: no synth_report.json in $root" >&2; exit 1; }
mkdir -p "$work/packs" "$work/runs"

# Peak resident set size in MiB from a `/usr/bin/time -v` log.
peak_mib() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }
seconds() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; printf "%.0f", s}' "$1"; }
last_metric() { grep -o "\"$1\":[0-9.e+-]*" "$2" | tail -1 | cut -d: -f2; }

for c in $collections; do
  name=${c//:/_}
  for split in train valid; do
    pack="$work/packs/$name.$split.pack"
    if [ ! -f "$pack" ]; then
      /usr/bin/time -v -o "$work/packs/$name.$split.time" \
        "$bin" pack "$root" --collection "$c" --split "$split" --out "$pack" 2> "$work/packs/$name.$split.log" \
        || { tail -3 "$work/packs/$name.$split.log" >&2; exit 1; }
    fi
  done
  echo "figure: ${name}_train_pack_size: $(( $(stat -c %s "$work/packs/$name.train.pack") / 1048576 )) MiB"
  echo "figure: ${name}_train_pack_seconds: $(seconds "$work/packs/$name.train.time") s"
  echo "figure: ${name}_train_pack_peak_rss: $(peak_mib "$work/packs/$name.train.time") MiB"

  iterations=$layout_iterations
  [ "$c" = tile:xla ] && iterations=$tile_iterations
  run="$work/runs/$name"
  rm -rf "$run"
  /usr/bin/time -v -o "$run.time" "$bin" train --data "$work/packs/$name.train.pack" \
    --valid-data "$work/packs/$name.valid.pack" --collection "$c" --out "$run" \
    --iterations "$iterations" --log-every "$iterations" --validate-every 0 \
    --valid-configs-per-graph 200 --threads "$threads" "${extra[@]}" 2> "$run.log" > /dev/null &
  time_pid=$!
  # Peak RSS counts the pack's pages mapped from the page cache (RssFile, evictable) with the
  # process's own memory (RssAnon: model, activations, graph tensors): sample both.
  anon=0 file=0
  while kill -0 "$time_pid" 2> /dev/null; do
    for pid in $(pgrep -P "$time_pid"); do
      read -r a f <<< "$(awk '/^RssAnon:/ {a = $2} /^RssFile:/ {f = $2} END {print a + 0, f + 0}' "/proc/$pid/status" 2> /dev/null || echo "0 0")"
      [ "$a" -gt "$anon" ] && anon=$a
      [ "$f" -gt "$file" ] && file=$f
    done
    sleep 0.5
  done
  wait "$time_pid" || { tail -3 "$run.log" >&2; exit 1; }
  grep -o 'train: [a-z:]*: [0-9]* training graphs.*' "$run.log" | head -1
  echo "figure: ${name}_train_peak_rss: $(peak_mib "$run.time") MiB"
  echo "figure: ${name}_train_peak_rss_anon: $((anon / 1024)) MiB"
  echo "figure: ${name}_train_peak_rss_file: $((file / 1024)) MiB"
  echo "figure: ${name}_train_seconds: $(seconds "$run.time") s"
  echo "figure: ${name}_train_configs_per_s: $(last_metric configs_per_s "$run/metrics.jsonl") configs/s"
  echo "figure: ${name}_data_wait_fraction: $(last_metric data_wait_fraction "$run/metrics.jsonl") fraction"
  if [ "$c" = tile:xla ]; then
    echo "figure: ${name}_valid_top5_error: $(last_metric top5_error "$run/metrics.jsonl") error"
  else
    echo "figure: ${name}_valid_kendall_tau: $(last_metric kendall_tau "$run/metrics.jsonl") tau"
  fi
done
