#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite: the Release build and its
# suite, clang-tidy, and one clang build with AddressSanitizer + UBSan that runs the parsers'
# fuzzers briefly and the suite again. CI runs this. Each stage prints its start and length,
# and the total at the end (docs/development.md gives the usual figures).
# Usage: tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stage_name="" stage_start=0
declare -a summary=()
stage() {
  if [ -n "$stage_name" ]; then summary+=("$(printf '%5ds  %s' $((SECONDS - stage_start)) "$stage_name")"); fi
  stage_name=$1 stage_start=$SECONDS
  [ -n "$stage_name" ] && echo "== $stage_name (at ${SECONDS}s)"
  return 0
}
report() {
  stage ""
  echo "== stages"
  printf '%s\n' "${summary[@]}"
  printf '%5ds  total\n' "$SECONDS"
}
trap report EXIT

stage "Set-up and Release build"
tools/setup.sh build all
stage "clang-tidy"
tools/lint.sh build
stage "Release suite"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
stage "Sanitizer build (clang: ASan + UBSan, the fuzz targets)"
# -O1 -g1 (the preset): line tables are all a sanitizer's report needs.
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j"$jobs"
stage "Fuzzers"
tools/fuzz.sh "${IOBENCH_FUZZ_SECONDS:-20}"
stage "Sanitizer suite"
ctest --preset sanitize -j"$jobs" --timeout 600
