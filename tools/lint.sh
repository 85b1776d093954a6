#!/usr/bin/env bash
# clang-tidy (the checked-in .clang-tidy) over src/ and strategies/, using the compile
# commands of BUILD_DIR; fails on any warning. A file is skipped when it passed clean before
# on this machine with the same preprocessed text (its headers included), compile flags,
# .clang-tidy and clang-tidy: a stamp per such key, kept in ~/.cache/iobench/clang-tidy (any
# clone shares them; delete the folder to check everything again).
# Usage: tools/lint.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
stamps=${XDG_CACHE_HOME:-$HOME/.cache}/iobench/clang-tidy
mkdir -p "$stamps"
top=$(pwd)
# What every key shares: the tool and its configuration.
export LINT_BASE
LINT_BASE=$( (clang-tidy --version; cat .clang-tidy) | sha256sum | cut -d' ' -f1)
export LINT_BUILD=$build_dir LINT_STAMPS=$stamps LINT_TOP=$top

# One file: its key from its compile command (the clone's path taken out, so clones share
# keys) and its preprocessed text; clang-tidy only when no stamp has that key.
lint_one() {
  local file=$1 command key out
  command=$(jq -r --arg f "$LINT_TOP/$file" '.[] | select(.file == $f) | .command' \
    "$LINT_BUILD/compile_commands.json" | head -n 1)
  if [ -z "$command" ]; then
    echo "$file: not in $LINT_BUILD/compile_commands.json" >&2
    return 1
  fi
  # The same compiler and flags, preprocessing only, without line markers (they hold paths).
  local pre=${command/ -o * -c / -E -P } text
  if text=$(eval "$pre" 2>/dev/null); then
    key=$( { echo "$LINT_BASE"; echo "${command//$LINT_TOP/@}"; echo "$text"; } |
      sha256sum | cut -d' ' -f1)
    [ -e "$LINT_STAMPS/$key" ] && return 0
  else
    key=""  # not preprocessed here: checked every time, never stamped
  fi
  out=$(clang-tidy -p "$LINT_BUILD" --quiet "$file" 2>/dev/null || true)
  if printf '%s\n' "$out" | grep -qE '(warning|error):'; then
    printf '%s\n' "$out"
    return 1
  fi
  [ -z "$key" ] || touch "$LINT_STAMPS/$key"
}
export -f lint_one

files=$(git ls-files 'src/*.cc' 'strategies/*.cc')
total=$(echo "$files" | wc -l)
before=$(find "$stamps" -type f | wc -l)
if ! echo "$files" | xargs -P "$(nproc)" -n 1 bash -c 'lint_one "$0"'; then
  echo "clang-tidy: warnings (above)"
  exit 1
fi
checked=$(( $(find "$stamps" -type f | wc -l) - before ))
echo "clang-tidy: clean ($total files, $checked checked now, the rest unchanged since a clean pass)"
