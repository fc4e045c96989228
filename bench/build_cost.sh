#!/usr/bin/env bash
# CPU cost of a clean build, per target, from a sample of its compile commands.
#
#   bench/build_cost.sh BUILD_DIR [STRIDE]
#
# BUILD_DIR must be configured with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON. Every STRIDE-th
# translation unit of each target (default 4; 1 = all) is compiled again with ccache off
# (CCACHE_DISABLE=1) into a scratch file, timed by /usr/bin/time as user + sys CPU seconds, which
# other work on the machine changes far less than wall time. Precompiled headers (cmake_pch)
# are built first and counted in full. Per target the mean of the sample times the number of
# its units estimates its clean compile cost; links are not counted. Prints
# `figure: build_cpu_<target>: S s` per target, then the program (graphcost and the libraries
# it links: what `make demo` builds) and everything (tests and benches too).
set -euo pipefail
build=$(realpath "${1:?usage: build_cost.sh BUILD_DIR [STRIDE]}")
stride=${2:-4}
db="$build/compile_commands.json"
[ -f "$db" ] || { echo "build_cost: $db missing (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

/usr/bin/python3 - "$db" "$stride" "$scratch" <<'EOF'
import json, os, re, shlex, subprocess, sys
db, stride, scratch = sys.argv[1], int(sys.argv[2]), sys.argv[3]
entries = json.load(open(db))

def target_of(entry):
    m = re.search(r'([A-Za-z0-9_]+)\.dir/', entry.get("output", "") or entry["command"])
    return m.group(1) if m else "?"

def command_of(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    # Drop a compiler launcher (ccache, or cmake -E env ... ccache) in front of the compiler.
    while args and ("ccache" in os.path.basename(args[0]) or args[0].endswith("cmake")
                    or args[0] in ("-E", "env") or "=" in args[0]):
        args = args[1:]
    return args

def cpu_seconds(entry, out):
    args = command_of(entry)
    if "-o" in args:
        args[args.index("-o") + 1] = out
    env = dict(os.environ, CCACHE_DISABLE="1")
    timing = os.path.join(scratch, "time")
    subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", timing] + args, cwd=entry["directory"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    user, system = open(timing).read().split()[-2:]
    return float(user) + float(system)

by_target = {}
for e in entries:
    by_target.setdefault(target_of(e), []).append(e)
pch_cost = {}
# Precompiled headers first (the others include them), built where the build expects them.
for target, units in by_target.items():
    for e in units:
        if "cmake_pch" in e["file"]:
            args = command_of(e)
            out = args[args.index("-o") + 1]
            pch_cost[target] = pch_cost.get(target, 0.0) + cpu_seconds(e, out)
totals = {}
for target in sorted(by_target):
    units = [e for e in by_target[target] if "cmake_pch" not in e["file"]]
    sample = units[::stride]
    spent = [cpu_seconds(e, os.path.join(scratch, "unit.o")) for e in sample]
    mean = sum(spent) / len(spent) if spent else 0.0
    totals[target] = mean * len(units) + pch_cost.get(target, 0.0)
    print(f"figure: build_cpu_{target}: {totals[target]:.0f} s  "
          f"({len(units)} units, {len(sample)} timed, mean {mean:.1f} s, "
          f"pch {pch_cost.get(target, 0.0):.0f} s)", flush=True)
program = {"graphcost", "graphcost_torch", "graphcost_base", "graphcost_proto"}
print(f"figure: build_cpu_program: {sum(v for k, v in totals.items() if k in program):.0f} s")
print(f"figure: build_cpu_all: {sum(totals.values()):.0f} s")
EOF
