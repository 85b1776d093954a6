#!/usr/bin/env bash
# clang-tidy (the checked-in .clang-tidy) over src/ and strategies/, using the compile
# commands of BUILD_DIR; fails on any warning. Usage: tools/lint.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
files=$(git ls-files 'src/*.cc' 'strategies/*.cc')
out=$(echo "$files" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build_dir" --quiet 2>/dev/null || true)
warnings=$(printf '%s\n' "$out" | grep -E '(warning|error):' || true)
if [ -n "$warnings" ]; then
  printf '%s\n' "$out"
  echo "clang-tidy: $(printf '%s\n' "$warnings" | wc -l) warnings"
  exit 1
fi
echo "clang-tidy: clean ($(echo "$files" | wc -l) files)"
