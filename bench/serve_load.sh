#!/usr/bin/env bash
# graphcost serve under load: CLIENTS concurrent HTTP clients for SECONDS_EACH seconds against a
# tile and a layout model (default architecture, a few training iterations on synth --scale
# small), with .npz and JSON bodies, then the same scoring in-process (serve_inprocess, as many
# threads as the server has workers), so HTTP's overhead is a ratio. Loopback only.
#   bench/serve_load.sh [BUILD_DIR]      (CLIENTS=4 SECONDS_EACH=5 WORKERS=2 by default)
# Prints `figure: name: value unit` lines; exits non-zero if any request failed.
set -euo pipefail
BUILD=${1:-build}
CLIENTS=${CLIENTS:-4}
SECONDS_EACH=${SECONDS_EACH:-5}
WORKERS=${WORKERS:-2}
if (( CLIENTS < 1 || CLIENTS > 64 || SECONDS_EACH < 1 || SECONDS_EACH > 60 || WORKERS < 1 || WORKERS > 16 )); then
  echo "serve_load: need 1 <= CLIENTS <= 64, 1 <= SECONDS_EACH <= 60, 1 <= WORKERS <= 16" >&2
  exit 2
fi
G=$BUILD/graphcost
WORK=$(mktemp -d)
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$G" synth --out "$WORK/data" --scale small --seed 3 > /dev/null 2>&1
declare -A COLLECTION=([tile]=tile:xla [layout]=layout:xla:random)
declare -A FOLDER=([tile]=tile/xla [layout]=layout/xla/random)
declare -A FILE
for m in tile layout; do
  "$G" train --data "$WORK/data" --collection "${COLLECTION[$m]}" --valid-split '' --iterations 5 \
    --out "$WORK/run_$m" > /dev/null 2>&1
  FILE[$m]=$(ls "$WORK/data/npz/${FOLDER[$m]}/test/"*.npz | head -1)
  "$G" inspect "${FILE[$m]}" 2>/dev/null | head -3 | sed "s/^/# $m request: /"
done

"$G" serve --model tile="$WORK/run_tile" --model layout="$WORK/run_layout" --port 0 \
  --threads "$WORKERS" --no-request-log > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVER=$!
for _ in $(seq 200); do
  grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break
  sleep 0.1
done
PORT=$(sed -n 's/.*http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
[ -n "$PORT" ] || { echo "serve_load: the server did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
echo "# $CLIENTS clients x $SECONDS_EACH s per run; server: $WORKERS workers; $(nproc) cores"

status=0
for m in tile layout; do
  "$BUILD/bench/serve_load" --port "$PORT" --model "$m" --npz "${FILE[$m]}" --clients "$CLIENTS" \
    --seconds "$SECONDS_EACH" --label "serve_${m}_npz" | tee "$WORK/http_$m" || status=1
  "$BUILD/bench/serve_load" --port "$PORT" --model "$m" --npz "${FILE[$m]}" --json --clients "$CLIENTS" \
    --seconds "$SECONDS_EACH" --label "serve_${m}_json" || status=1
  "$BUILD/bench/serve_inprocess" --model "$WORK/run_$m" --npz "${FILE[$m]}" --threads "$WORKERS" \
    --seconds "$SECONDS_EACH" --label "inprocess_${m}" | tee "$WORK/inprocess_$m"
  http=$(awk '/_requests_per_s:/ {print $3}' "$WORK/http_$m")
  local_rate=$(awk '/_requests_per_s:/ {print $3}' "$WORK/inprocess_$m")
  awk -v a="$local_rate" -v b="$http" -v m="$m" \
    'BEGIN { printf "figure: serve_%s_inprocess_over_http: %.2f x\n", m, (b > 0 ? a / b : 0) }'
done
kill -TERM "$SERVER"
wait "$SERVER" || status=1
SERVER=
exit $status
