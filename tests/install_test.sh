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
# What a user compiles against: <iobench/trace.h>, including only standard headers and
# <iobench/…>, <iobench/gtest.h> (the GoogleTest glue, which alone includes GoogleTest), and
# exported targets that name no header-only dependency of the internals.
fail() { echo "install_test: $*" >&2; exit 1; }
headers=$(cd "$scratch/prefix/include" && find . ! -type d | sort | tr '\n' ' ')
[ "$headers" = "./iobench/gtest.h ./iobench/trace.h " ] ||
  fail "installed headers other than iobench/trace.h and iobench/gtest.h: $headers"
if grep -E '^\s*#\s*include' "$scratch/prefix/include/iobench/trace.h" |
  grep -vE '^\s*#\s*include <(iobench/[a-z_]+\.h|[a-z_]+)>'; then
  fail "<iobench/trace.h> includes more than standard headers and <iobench/…>"
fi
# The man page and the completions, where man, bash-completion, zsh and fish look for them.
for f in share/man/man1/iobench.1 share/bash-completion/completions/iobench \
  share/zsh/site-functions/_iobench share/fish/vendor_completions.d/iobench.fish; do
  [ -s "$scratch/prefix/$f" ] || fail "$f is not installed"
done
if grep -nE 'CLI11|nlohmann' $(find "$scratch/prefix" -name 'iobenchTargets*.cmake'); then
  fail "the exported targets ask their users for CLI11 or nlohmann_json"
fi
cmake -S "$consumer" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/$program"
