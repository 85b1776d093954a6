#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, "fuzz" preset) and runs each for SECONDS (default 20)
# from its seed corpus. Fails on the first crash, leak or sanitizer report.
# Usage: tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_expect fuzz_size fuzz_baseline
for name in expect size baseline; do
  corpus=$(mktemp -d)
  cp tests/fuzz/corpus/$name/* "$corpus"/
  echo "fuzz_$name: ${seconds}s"
  # Crash artifacts go to the scratch directory (printed on failure), never into the tree.
  build-fuzz/tests/fuzz/fuzz_$name -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$corpus/" "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done
