#!/usr/bin/env bash
# Ablation of the model options on synthetic medium: each variant of bench/ablation_grid.json,
# several seeds (default 5), per collection; tables in OUT/<collection>/results.md, with each
# variant's difference from the baseline row (c000) paired by seed and its 95% t interval.
# Usage: bench/ablation.sh [GRAPHCOST] [OUT] [SEEDS] [COLLECTIONS...]   (JOBS=N: runs at once)
# Validation scores the attention variant against 31 anchors (slates of 32, the training size,
# each configuration with the same 31 others; docs/model-architecture.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
graphcost="${1:-build/graphcost}"
out="${2:-ablation-out}"
seeds="${3:-5}"
shift $(( $# < 3 ? $# : 3 ))
collections=("$@")
[ ${#collections[@]} -gt 0 ] || collections=(layout:xla:default layout:xla:random tile:xla)
mkdir -p "$out"
[ -d "$out/data/npz" ] || "$graphcost" synth --scale medium --seed 0 --out "$out/data"
for c in "${collections[@]}"; do
  # Tile kernels have ~40 nodes: 10x the iterations cost what the layout runs do.
  grid="$here/ablation_grid.json"
  [[ "$c" == tile:* ]] && grid="$here/ablation_grid_tile.json"
  "$graphcost" sweep --data "$out/data" --collection "$c" --grid "$grid" \
    --seeds "$seeds" --jobs "${JOBS:-1}" --baseline c000 --out "$out/${c//:/_}"
done
