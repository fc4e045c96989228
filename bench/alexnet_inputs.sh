# Sourced by the AlexNet bench scripts (alexnet_headline.sh, alexnet_precision.sh): their
# arguments, the AlexNet file and the Python they use.
# alexnet_inputs NAME "$@" sets bin (the graphcost binary, absolute), work (WORK_DIR, default a
# fresh temporary folder), file (DATA, default ../shared/data/tpugraphs/alexnet_layout_reduced.npz
# beside the repository, absolute) and py; reports the figure NAME skipped (bench_skip) when the
# file or python3-scipy (the t quantile) is missing.
. "$(dirname "${BASH_SOURCE[0]}")/skip.sh"
alexnet_inputs() {
  local name=$1 here
  shift
  bin=${1:?usage: $name.sh GRAPHCOST_BINARY [WORK_DIR]}
  work=${2:-$(mktemp -d)}
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  file=${DATA:-$here/../../shared/data/tpugraphs/alexnet_layout_reduced.npz}
  [ -f "$file" ] || { bench_skip "$name" "$file not present (set DATA)"; exit 0; }
  py=/usr/bin/python3
  "$py" -c "import scipy" 2> /dev/null || { bench_skip "$name" "python3-scipy missing (t quantile)"; exit 0; }
  bin=$(realpath "$bin")
  file=$(realpath "$file")
}
