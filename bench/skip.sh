# Sourced by the bench scripts: how a figure that cannot be measured here is reported.
# bench_skip NAME REASON prints `figure: NAME: skipped (REASON)`; then, unless the caller allowed
# skips (BENCH_ALLOW_SKIPS=1 in the environment), it exits the script with status 3, so that
# `make bench` or CI cannot pass without the figure. With skips allowed it returns 0 and the
# script goes on (or ends) as its caller decides.
bench_skip() {
  echo "figure: $1: skipped ($2)"
  if [ "${BENCH_ALLOW_SKIPS:-0}" != 1 ]; then
    echo "$(basename "$0"): $1 could not be measured; set BENCH_ALLOW_SKIPS=1 to allow skips" >&2
    exit 3
  fi
}
