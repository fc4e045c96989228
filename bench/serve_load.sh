#!/usr/bin/env bash
# graphcost serve under load: CLIENTS concurrent HTTP clients for SECONDS_EACH seconds against a
# tile and a layout model (default architecture, a few training iterations on synth --scale
# small), with .npz and JSON bodies, then the same scoring in-process (serve_inprocess, as many
# threads as the server has workers), so HTTP's overhead is a ratio. Loopback only.
# Then the attack section (issue #40, docs/serve.md): healthy clients' p99 latency and answers
# while SLOW slow clients trickle header bytes, the server's peak RSS under the largest graph it
# allows (--max-nodes 50000), and SIGTERM-to-exit time with the slow clients connected; timings
# are the median of 3 runs.
#   bench/serve_load.sh [BUILD_DIR]      (CLIENTS=4 SECONDS_EACH=5 WORKERS=2 SLOW=100 by default)
# Prints `figure: name: value unit` lines; exits non-zero if any request failed.
set -euo pipefail
BUILD=${1:-build}
CLIENTS=${CLIENTS:-4}
SECONDS_EACH=${SECONDS_EACH:-5}
WORKERS=${WORKERS:-2}
SLOW=${SLOW:-100}
if (( CLIENTS < 1 || CLIENTS > 64 || SECONDS_EACH < 1 || SECONDS_EACH > 60 || WORKERS < 1 || WORKERS > 16 || SLOW < 1 || SLOW > 500 )); then
  echo "serve_load: need 1 <= CLIENTS <= 64, 1 <= SECONDS_EACH <= 60, 1 <= WORKERS <= 16, 1 <= SLOW <= 500" >&2
  exit 2
fi
G=$BUILD/graphcost
WORK=$(mktemp -d)
SERVER=
HOLDER=
cleanup() {
  if [ -n "$SERVER" ]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$HOLDER" ]; then kill -TERM "$HOLDER" 2>/dev/null || true; wait "$HOLDER" 2>/dev/null || true; fi
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

# start_server EXTRA_FLAGS...: serves both models on a free port; sets SERVER and PORT.
start_server() {
  rm -f "$WORK/serve.out"
  "$G" serve --model tile="$WORK/run_tile" --model layout="$WORK/run_layout" --port 0 \
    --threads "$WORKERS" --no-request-log "$@" > "$WORK/serve.out" 2> "$WORK/serve.log" &
  SERVER=$!
  for _ in $(seq 200); do
    grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break
    sleep 0.1
  done
  PORT=$(sed -n 's/.*http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
  [ -n "$PORT" ] || { echo "serve_load: the server did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
}
# kib NAME: the server's /proc status field NAME (VmRSS, VmHWM) in KiB.
kib() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$SERVER/status"; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

start_server
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
# Keep-alive latency of a request that costs nothing: one client, GET /healthz back to back
# (without TCP_NODELAY each answer after the first waited ~40 ms for a delayed ACK).
for run in 1 2 3; do
  "$BUILD/bench/serve_load" --port "$PORT" --get /healthz --clients 1 --seconds 2 \
    --label keepalive > "$WORK/keepalive_$run" || status=1
done
for f in p50_latency p99_latency; do
  echo "figure: serve_keepalive_healthz_$f: $(awk -v f="keepalive_$f:" '$2 == f {print $3}' \
    "$WORK"/keepalive_[123] | median) ms"
done
kill -TERM "$SERVER"
wait "$SERVER" || status=1
SERVER=

# Attack section. Every slow client comes from 127.0.0.1, so the per-client limit is raised to
# let all of them in (a real deployment keeps it at its default, 32, and refuses the rest).
echo "# attack: $SLOW slow clients (a header line a second each, from 127.0.0.1); median of 3 runs"
SLOW_FLAGS=(--max-connections $((SLOW + 64)) --max-connections-per-client $((SLOW + 32)))
for run in 1 2 3; do
  start_server "${SLOW_FLAGS[@]}"
  # The same healthy load without and with the slow clients, on the same server, back to back.
  "$BUILD/bench/serve_load" --port "$PORT" --model tile --npz "${FILE[tile]}" --clients "$CLIENTS" \
    --seconds "$SECONDS_EACH" --label attack > "$WORK/calm_$run" || status=1
  "$BUILD/bench/serve_load" --port "$PORT" --model tile --npz "${FILE[tile]}" --clients "$CLIENTS" \
    --seconds "$SECONDS_EACH" --slow-clients "$SLOW" --label attack > "$WORK/attack_$run" || status=1
  # Shutdown with the slow clients connected: SIGTERM to exit.
  "$BUILD/bench/serve_load" --port "$PORT" --model tile --npz "${FILE[tile]}" --clients 0 \
    --seconds 30 --slow-clients "$SLOW" --label hold > "$WORK/hold_$run" &
  HOLDER=$!
  sleep 2
  start_ns=$(date +%s%N)
  kill -TERM "$SERVER"
  wait "$SERVER" || status=1
  end_ns=$(date +%s%N)
  SERVER=
  kill -TERM "$HOLDER" 2>/dev/null || true
  wait "$HOLDER" 2>/dev/null || true
  HOLDER=
  echo $(( (end_ns - start_ns) / 1000000 )) >> "$WORK/stop_ms"
done
for f in p99_latency p50_latency answers errors; do
  unit=$(awk -v f="attack_$f:" '$2 == f {print $4; exit}' "$WORK/attack_1")
  value=$(awk -v f="attack_$f:" '$2 == f {print $3}' "$WORK"/calm_[123] | median)
  echo "figure: serve_attack_healthy_${f}_without_slow_clients: $value $unit"
  value=$(awk -v f="attack_$f:" '$2 == f {print $3}' "$WORK"/attack_[123] | median)
  echo "figure: serve_attack_healthy_${f}_with_${SLOW}_slow_clients: $value $unit"
done
grep -h "attack_slow_clients:" "$WORK"/attack_[123] | head -1 | sed 's/attack_/serve_attack_/'
echo "figure: serve_attack_stop_with_${SLOW}_slow_clients: $(median < "$WORK/stop_ms") ms"

# Memory under the largest graph the defaults allow: each model's test graph copied side by side
# to 50,000 nodes (its configurations unchanged), posted once as .npz to a fresh server.
for m in tile layout; do
  start_server
  echo "figure: serve_attack_${m}_rss_idle: $(( $(kib VmRSS) / 1024 )) MiB"
  "$BUILD/bench/serve_load" --port "$PORT" --model "$m" --npz "${FILE[$m]}" --grow-nodes 50000 \
    --max-edges 200000 --label "serve_attack_${m}_largest_graph" || status=1
  echo "figure: serve_attack_${m}_peak_rss_largest_graph: $(( $(kib VmHWM) / 1024 )) MiB"
  echo "figure: serve_attack_${m}_rss_after_largest_graph: $(( $(kib VmRSS) / 1024 )) MiB"
  kill -TERM "$SERVER"
  wait "$SERVER" || status=1
  SERVER=
done
exit $status
