#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite: the Release build, the
# parsers' fuzzers briefly, and the suite again under AddressSanitizer + UBSan. CI runs this.
# Usage: tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Each stage's start, in seconds since this script began: CI's limit is on the whole.
stage() { echo "== $1 (at ${SECONDS}s)"; }

stage "Set-up and Release build"
tools/setup.sh build
stage "clang-tidy"
tools/lint.sh build
stage "Fuzzers"
tools/fuzz.sh "${IOBENCH_FUZZ_SECONDS:-20}"
stage "ASan + UBSan build"
# The asan and fuzz presets compile -O1 -g1: line tables are all a sanitizer's report needs, and
# the build took 27 of this script's 75 minutes at -O2 -g.
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"

stage "Release suite"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
stage "ASan + UBSan suite"
ctest --preset asan -j"$jobs" --timeout 600
stage "Done"
