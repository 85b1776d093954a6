#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite: the Release build, the
# parsers' fuzzers briefly, and the suite again under AddressSanitizer + UBSan. CI runs this.
# Usage: tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

tools/setup.sh build
tools/lint.sh build
tools/fuzz.sh "${IOBENCH_FUZZ_SECONDS:-20}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"

echo "== Release suite"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
echo "== ASan + UBSan suite"
ctest --preset asan -j"$jobs" --timeout 600
