"""How a Python bench script reports a figure it cannot measure, as bench/skip.sh does for the
shell scripts: skip(NAME, REASON) prints `figure: NAME: skipped (REASON)` and exits with status 3,
so that `make bench` or CI cannot pass without the figure, unless BENCH_ALLOW_SKIPS=1 is set in
the environment (then it exits 0). Standard library only: it runs before the imports it reports."""
import os
import sys


def skip(name, reason):
    print(f"figure: {name}: skipped ({reason})", flush=True)
    if os.environ.get("BENCH_ALLOW_SKIPS", "0") == "1":
        sys.exit(0)
    print(f"{os.path.basename(sys.argv[0])}: {name} could not be measured; set "
          "BENCH_ALLOW_SKIPS=1 to allow skips", file=sys.stderr)
    sys.exit(3)
