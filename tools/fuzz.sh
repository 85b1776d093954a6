#!/usr/bin/env bash
# Runs each libFuzzer target of the parsers for SECONDS (default 20) from its seed corpus,
# built in the "sanitize" preset's tree (clang, ASan + UBSan: built there if missing). Fails on
# the first crash, leak or sanitizer report.
# Usage: tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize --target fuzz_expect fuzz_size fuzz_baseline
for name in expect size baseline; do
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/$name/* "$corpus"/
  echo "fuzz_$name: ${seconds}s"
  # Crash artifacts go to the scratch directory (printed on failure), never into the tree.
  build-sanitize/tests/fuzz/fuzz_$name -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$corpus/" "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done
