#!/usr/bin/env bash
# Where a training step's CPU time goes (docs/scale.md, "Where a step's time goes"): `perf record`
# samples a `graphcost train` run on one of the speed table's synthetic regimes, and every sample is
# put in one category by the function and library it fell in: GEMM (OpenBLAS's and oneDNN's
# kernels), graphcost's own kernels (aggregation, change aggregation, scaled adds), LibTorch's
# named element-wise, indexing and copy kernels, LibTorch's functions without a symbol (Debian's
# build keeps none for its internal ones, which include its vectorised loops), LibTorch's named
# rest (dispatch, autograd), memory (malloc/free, memcpy/memset, page faults), OpenMP's waiting,
# the kernel otherwise, and the rest.
# usage: bench/step_profile.sh GRAPHCOST_BINARY [WORK_DIR]
# Environment: REGIMES (default "tied_s10 default_s40"), THREADS (2), PRECISION (fp32), STEPS
# (default: the regime's), PERF (perf). Prints `figure: <regime> <category>: <share> % of samples`
# lines, the run's configs/s, and the top functions of each category to WORK_DIR/<regime>.report.
set -euo pipefail
. "$(dirname "$0")/skip.sh"
. "$(dirname "$0")/synth_regimes.sh"
bin=${1:?usage: bench/step_profile.sh GRAPHCOST_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
threads=${THREADS:-2} precision=${PRECISION:-fp32} perf=${PERF:-perf}
here=$(cd "$(dirname "$0")" && pwd)
if ! "$perf" --version > /dev/null 2>&1; then
  bench_skip step_profile "no perf (Debian: linux-perf)"
  exit 0
fi
mkdir -p "$work"
for regime in ${REGIMES:-tied_s10 default_s40}; do
  synth_regime "$regime" "$work" "$bin"
  steps=${STEPS:-$steps}
  run="$work/$regime/run"
  train_regime "$bin" "$run" "$precision" "$threads" "$perf" record -F 499 -o "$work/$regime/perf.data" --
  rate=$(steady_rate "$run")
  echo "figure: $regime $precision train_configs_per_s: $rate configs/s (under perf)"
  jit=$("$perf" report -i "$work/$regime/perf.data" --no-children --sort dso --stdio 2> /dev/null |
        awk '/\[JIT\]/ {s += $1} END {printf "%.2f", s}')
  "$perf" report -i "$work/$regime/perf.data" --no-children --sort dso,sym --stdio 2> /dev/null |
    /usr/bin/python3 "$here/step_profile_categories.py" "$regime $precision" "$work/$regime.$precision.report" "$jit"
done
