#!/usr/bin/env bash
# Data-parallel training on one machine: the same data, seed and global batch (G graphs x S
# configurations) trained by 1 process x 2 threads, 1 process x 1 thread and 2 ranks x 1 thread,
# the 2 ranks launched by Debian's torchrun. Alternating the three REPEATS times, so each sees
# the same machine load; prints every run and the medians as `figure: name: value unit` lines:
# configs/s (the last logged interval: warm), and for 2 ranks the allreduce's time and bytes per
# step (one flat buffer of every gradient). docs/distributed.md works out scaling from these.
# usage: bench/distributed.sh GRAPHCOST_BINARY [WORK_DIR]
#        (ITERATIONS (default 60), G (4), S (16), REPEATS (3) from the environment)
set -euo pipefail
bin=$(realpath "${1:?usage: distributed.sh GRAPHCOST_BINARY [WORK_DIR]}")
work=${2:-$(mktemp -d)}
iterations=${ITERATIONS:-60}
graphs=${G:-4}
slate=${S:-16}
repeats=${REPEATS:-3}
data="$work/data"
[ -f "$data/synth_report.json" ] || "$bin" synth --out "$data" --seed 7 --scale small > /dev/null 2>&1
train_args=(train --data "$data" --collection layout:xla:random --valid-split ''
            --iterations "$iterations" --log-every $((iterations / 3)) --validate-every 0
            --graphs-per-batch "$graphs" --slate-size "$slate" --seed 1 --overwrite)
# The configs/s of a run's last metrics line.
rate() { tail -1 "$1/metrics.jsonl" | /usr/bin/python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["configs_per_s"])'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
one2=(); one1=(); two1=(); ar_ms=(); ar_bytes=()
for r in $(seq 1 "$repeats"); do
  "$bin" "${train_args[@]}" --out "$work/one-t2" --threads 2 2> "$work/one-t2.log"
  one2+=("$(rate "$work/one-t2")")
  "$bin" "${train_args[@]}" --out "$work/one-t1" --threads 1 2> "$work/one-t1.log"
  one1+=("$(rate "$work/one-t1")")
  # Debian's torchrun (torch 1.13 on Python 3.11) needs --redirects 1 --tee 1: without them it
  # fails at start with "'NoneType' object has no attribute 'get'" (docs/distributed.md).
  /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 --redirects 1 --tee 1 \
    --no_python "$bin" "${train_args[@]}" --out "$work/two-t1" --threads 1 > "$work/two-t1.log" 2>&1
  two1+=("$(rate "$work/two-t1")")
  line=$(grep -o 'allreduce [0-9.]* ms and [0-9]* bytes per step' "$work/two-t1.log" | tail -1)
  ar_ms+=("$(echo "$line" | awk '{print $2}')")
  ar_bytes+=("$(echo "$line" | awk '{print $5}')")
  echo "figure: distributed_1proc_2threads_run_$r: ${one2[-1]} configs/s"
  echo "figure: distributed_1proc_1thread_run_$r: ${one1[-1]} configs/s"
  echo "figure: distributed_2ranks_1thread_run_$r: ${two1[-1]} configs/s"
  echo "figure: distributed_2ranks_allreduce_time_run_$r: ${ar_ms[-1]} ms/step"
done
echo "figure: distributed_global_batch: $((graphs * slate)) configs"
echo "figure: distributed_1proc_2threads: $(median "${one2[@]}") configs/s"
echo "figure: distributed_1proc_1thread: $(median "${one1[@]}") configs/s"
echo "figure: distributed_2ranks_1thread: $(median "${two1[@]}") configs/s"
echo "figure: distributed_2ranks_allreduce_time: $(median "${ar_ms[@]}") ms/step"
echo "figure: distributed_2ranks_allreduce_bytes: $(median "${ar_bytes[@]}") bytes/step"
