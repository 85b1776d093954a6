#!/usr/bin/env bash
# Installs iobench's dependencies from Debian's packages and builds a Release build of the
# iobench binary (with `all`: of everything, the tests too, as tools/test.sh asks).
# Idempotent; run as root on Debian 12, or with sudo (the build is then yours, not root's).
# Usage: tools/setup.sh [BUILD_DIR [all]]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
targets=(--target iobench)
[ "${2:-}" = all ] && targets=()

packages=(
  build-essential cmake ninja-build pkg-config git
  ccache  # the compilers' launcher: a second build, in any clone, compiles only what changed
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

# Run with sudo, the packages are root's business but the build is the user's: configured and
# built as SUDO_USER, so that nothing in their tree is root's and a later plain `cmake --build`
# of theirs does not fail on it. A build directory an earlier root run left is given back first.
# (Only for a tree SUDO_USER owns; root's own tree is built as root.)
as_user=()
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ] &&
   [ "$(stat -c %U .)" = "$SUDO_USER" ]; then
  [ -e "$build_dir" ] && chown -R "$SUDO_USER:$(id -gn "$SUDO_USER")" "$build_dir"
  as_user=(runuser -u "$SUDO_USER" -- env HOME="$(getent passwd "$SUDO_USER" | cut -d: -f6)")
fi
# Ninja for a new build directory; one a plain `cmake -S . -B build` made keeps its generator
# (CMake refuses to switch it).
generator=()
[ -f "$build_dir/CMakeCache.txt" ] || generator=(-G Ninja)
"${as_user[@]}" cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
"${as_user[@]}" cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"
