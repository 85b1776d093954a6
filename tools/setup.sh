#!/usr/bin/env bash
# Installs iobench's dependencies from Debian's packages and builds a Release build.
# Idempotent; run as root on Debian 12. Usage: tools/setup.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}

packages=(
  build-essential cmake ninja-build pkg-config git
  libfmt-dev libcli11-dev nlohmann-json3-dev libseccomp-dev liburing-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  strace jq time clang libclang-rt-14-dev clang-tidy
  libbpf-dev bpftool  # the kernel clock (src/tracer/bpf_clock.h); without them iobench builds without it
  gnuplot-nox librsvg2-bin libxml2-utils  # --plot draws with gnuplot; tests check and render the SVG
  tmux  # the on-stage test: the demo's final screen in a real terminal emulator
  man-db zsh fish  # iobench(1) and the shell completions: their tests read them as a user would
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
