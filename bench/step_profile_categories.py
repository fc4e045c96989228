#!/usr/bin/python3
"""Sorts `perf report --no-children --sort dso,sym --stdio` lines (stdin) into the categories of
bench/step_profile.sh and prints `figure: REGIME CATEGORY: SHARE % of samples` lines; the top
functions of each category go to REPORT. oneDNN's generated (JIT) GEMM code has no symbols and
spreads over thousands of addresses, each shown as 0.00%: its share, JIT_SHARE, comes from a
report by library alone and counts as GEMM.
usage: step_profile_categories.py REGIME REPORT JIT_SHARE"""
import re
import sys
from collections import defaultdict

# (category, test on the library and the function); the first that matches takes the sample.
RULES = [
    ("gemm", lambda dso, sym: re.search(r"openblas|dnnl|mkl", dso) or
        re.search(r"gemm|brgemm|jit_avx|jit_uni|jit_brg", sym)),
    ("openmp wait", lambda dso, sym: "libgomp" in dso),
    ("bf16 conversions", lambda dso, sym: dso.startswith("graphcost") and
        re.search(r"round_block|widen_block", sym)),
    ("graphcost kernels", lambda dso, sym: dso.startswith("graphcost") and
        re.search(r"aggregate|scaled_add|change_agg|segment", sym)),
    ("memory", lambda dso, sym: re.search(r"tcmalloc|jemalloc", dso) or
        re.search(r"^(__)?(memcpy|memmove|memset|malloc|free|_int_malloc|_int_free|operator new|operator delete)",
                  sym) or re.search(r"page_fault|clear_page|do_anonymous_page|handle_mm_fault", sym)),
    ("aten kernels", lambda dso, sym: "torch" in dso and
        re.search(r"at::native|cpu_kernel|vectorized|Vectorized|index_|scatter|gather|copy_|"
                  r"reduce|binary_kernel|unary_kernel|basic_loop|VectorizedLoop|loop2d", sym)),
    # Debian's LibTorch keeps no symbols for its internal (static) functions, its vectorised
    # element-wise and indexing loops among them: perf shows their addresses.
    ("libtorch, unnamed", lambda dso, sym: re.search(r"torch|c10", dso) and
        re.match(r"0x[0-9a-f]+$", sym)),
    ("dispatch and autograd", lambda dso, sym: re.search(r"torch|c10", dso)),
    ("kernel", lambda dso, sym: "kernel" in dso),
    ("graphcost other", lambda dso, sym: dso.startswith("graphcost")),
]


def main():
    regime, report_path, jit_share = sys.argv[1], sys.argv[2], float(sys.argv[3])
    shares = defaultdict(float)
    shares["gemm"] = jit_share
    top = defaultdict(list)
    line_re = re.compile(r"^\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$")
    for line in sys.stdin:
        if "[JIT]" in line:
            continue
        m = line_re.match(line)
        if not m:
            continue
        share, dso, sym = float(m.group(1)), m.group(2), m.group(3).strip()
        category = next((name for name, test in RULES if test(dso, sym)), "other")
        shares[category] += share
        top[category].append((share, dso, sym[:140]))
    total = sum(shares.values())
    for name in [r[0] for r in RULES] + ["other"]:
        print(f"figure: {regime} {name}: {shares[name]:.1f} % of samples")
    print(f"figure: {regime} counted: {total:.1f} % of samples")
    with open(report_path, "w") as report:
        for name in [r[0] for r in RULES] + ["other"]:
            report.write(f"== {name}: {shares[name]:.1f} %\n")
            for share, dso, sym in sorted(top[name], reverse=True)[:12]:
                report.write(f"  {share:6.2f}%  {dso}  {sym}\n")


if __name__ == "__main__":
    main()
