#!/usr/bin/env bash
# Installs iobench into a scratch prefix, builds one consumer project (tests/consumer by
# default) against it with find_package(iobench), and runs the program it names.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR [CONSUMER_DIR PROGRAM]
set -euo pipefail
build_dir=$1
source_dir=$2
consumer=${3:-$source_dir/tests/consumer}
program=${4:-api_example_test}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$consumer" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/$program"
