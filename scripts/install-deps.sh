#!/usr/bin/env bash
# Installs the Debian packages graphcost builds against, only those that are missing.
set -euo pipefail
packages=(cmake g++ make pkg-config libtorch-dev libopenblas-dev libprotobuf-dev protobuf-compiler libzip-dev
          zlib1g-dev libcli11-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev libmetis-dev libxgboost-dev
          libgoogle-perftools-dev libboost-dev)
# ccache: CMake uses it when installed, so a rebuild recompiles only what changed.
packages+=(ccache)
# Across machines (src/dist): the Gloo headers that LibTorch's c10d headers include.
packages+=(libgloo-dev)
# graphcost serve: HTTP server on Boost.Beast/Asio (libboost-dev, above), HTTP client of its
# tests and bench (cpp-httplib), token digests (OpenSSL).
packages+=(libcpp-httplib-dev libssl-dev)
# The Python module (python/) and its tests. python3-matplotlib (examples/python_train_plot.py's plot)
# is optional: the example and its test skip the plot without it, and CI does not install it.
packages+=(python3-dev python3-numpy python3-pytest pybind11-dev)
# torch.distributed.run (torchrun) for the README's launch across processes, which a test runs.
packages+=(python3-torch)
# graphcost study (src/study): SQLite and PostgreSQL storage; the postgresql server for its tests.
packages+=(libsqlite3-dev libpq-dev postgresql)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: need root to apt-get install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
