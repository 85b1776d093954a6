#!/usr/bin/env bash
# Runs every iobench command line of the ```sh blocks of README.md and of every docs/*.md, in
# each file's order, and checks each exits as its page documents. Prints every line it ran,
# checked or skipped, file by file.
#
# The rules a page's ```sh block follows:
# - A line from `iobench` or `build/iobench` on (also after `&&`) is run, in a scratch directory
#   of its file's own (so a page's --baseline finds its --save-baseline), through `sh -c`.
#   Its status must be 0 unless its trailing comment names another: "# exits 1", "# in CI:
#   exit 1 on a regression" (allows 0 or 1), "# exits 2 without root" (0 or 2).
# - Large N becomes a small one (--lines 2000), and a run or sweep without --lines gets it, so
#   the suite stays fast; nothing else changes.
# - Any other line (tools/*.sh, cmake, sudo ...) is not run: benchmarks and builds do not belong
#   in a test. Its program must exist (a path in the source tree, or a command on PATH), so a
#   renamed script turns the test red.
# - "# not run: WHY" at the end of a line lists it without running or checking it, for the very
#   few that cannot run in a test (they need special hardware, or change the machine, as
#   `sudo setcap` does). Keep them few.
# - Output listings and commands that are not meant to be copied go in fences other than
#   ```sh (plain ``` or ```text).
#
# The programs the pages name (./prog, ./writer_c, ./writer_rust) are small stand-ins with
# known write counts.
# Usage: readme_examples.sh SOURCE_DIR|FILE.md IOBENCH_BIN WRITER_BIN LINE_WRITER_BIN
# (SOURCE_DIR: README.md, then docs/*.md in name order.)
set -uo pipefail
target=$1 iobench=$2 writer=$3 line_writer=$4
if [ -d "$target" ]; then
  source_dir=$(realpath "$target")
  docs=("$source_dir/README.md" "$source_dir"/docs/*.md)
else
  docs=("$(realpath "$target")")
  source_dir=$(git -C "$(dirname "${docs[0]}")" rev-parse --show-toplevel 2>/dev/null ||
               dirname "${docs[0]}")
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
ln -s "$(realpath "$iobench")" "$scratch/bin/iobench"
# The stand-ins check their argv: iobench must pass a command's arguments exactly.
standin() {  # NAME NARGS EXEC...: a script that runs EXEC only when given exactly NARGS arguments
  local name=$1 nargs=$2
  shift 2
  printf '#!/bin/sh\n[ $# -eq %d ] || { echo "%s: got arguments: $*" >&2; exit 64; }\nexec %s\n' \
    "$nargs" "$name" "$*" >"$scratch/bin/$name"
  chmod +x "$scratch/bin/$name"
}
# ./prog: exactly 1000 write(2) calls to prog.txt, and a status line on stdout and one on
# stderr, as a real program prints: README's `--expect 'write_calls==1000'` holds (write is 1002).
standin prog 0 "$(realpath "$line_writer")" per-line prog.txt 1000
standin writer_c 1 "$(realpath "$line_writer")" per-line '"$1"' 2000
standin writer_rust 1 "$(realpath "$line_writer")" buffered '"$1"' 2000
: "$writer"  # kept in the usage for the callers; the stand-ins above cover every page

small_n() {  # $1: the command without its comment
  local cmd=$1
  cmd=$(sed -E 's/--lines ([0-9]{5,})( |$)/--lines 2000\2/' <<<"$cmd")
  # A run or sweep with no --lines takes the default N: make it small too (not trace/compare).
  if ! grep -qE -- '--lines|^iobench (trace|compare)|--(list|version|help)' <<<"$cmd"; then
    cmd="$cmd --lines 2000"
  fi
  printf '%s' "$cmd"
}

failed=0 passed=0 skipped=0 checked=0
for doc in "${docs[@]}"; do
  name=${doc#"$source_dir"/}
  echo "== $name"
  work="$scratch/work/${name//\//_}"
  mkdir -p "$work"
  for f in prog writer_c writer_rust; do ln -s "$scratch/bin/$f" "$work/$f"; done
  # Every line of a ```sh block, tagged "run" (an iobench command line) or "other".
  mapfile -t lines < <(awk '
    /^```/ { if (inb) { inb = 0 } else { inb = ($0 == "```sh") } ; next }
    !inb || /^[[:space:]]*$/ || /^[[:space:]]*#/ { next }
    /^(build\/)?iobench / { print "run\t" $0; next }
    match($0, /&& (build\/)?iobench /) { print "run\t" substr($0, RSTART + 3); next }
    { print "other\t" $0 }' "$doc")
  for tagged in "${lines[@]}"; do
    kind=${tagged%%$'\t'*} line=${tagged#*$'\t'}
    cmd=${line%%#*}
    cmd=$(sed -E 's/^build\/iobench/iobench/; s/[[:space:]]+$//' <<<"$cmd")
    comment=""
    [[ $line == *"#"* ]] && comment=${line#*#}
    if [[ $comment =~ ^[[:space:]]*not\ run: ]]; then
      skipped=$((skipped + 1))
      echo "not run: ${comment#*not run:} -- $cmd"
      continue
    fi
    if [ "$kind" = other ]; then
      program=$(sed -E 's/^([A-Za-z_][A-Za-z0-9_]*=[^ ]* +)*//; s/ .*//' <<<"$cmd")  # past VAR=value
      if [ -e "$source_dir/$program" ] || command -v "$program" >/dev/null 2>&1; then
        checked=$((checked + 1))
        echo "not run, found  $cmd"
      else
        failed=$((failed + 1))
        echo "FAIL  (no such program: $program) $cmd"
      fi
      continue
    fi
    allowed=" 0 $(grep -oE 'exits? [0-9]+' <<<"$comment" | grep -oE '[0-9]+' | tr '\n' ' ')"
    run=$(small_n "$cmd")
    (cd "$work" && PATH="$scratch/bin:$PATH" timeout 300 sh -c "$run" >"$scratch/out" 2>"$scratch/err")
    status=$?
    if [[ $allowed == *" $status "* ]]; then
      passed=$((passed + 1))
      echo "ok    ($status) $run"
    else
      failed=$((failed + 1))
      echo "FAIL  ($status, documented:$allowed) $run"
      sed 's/^/    stderr: /' "$scratch/err" | tail -n 5
    fi
  done
done
echo "Examples: $passed passed, $failed failed, $skipped not run (marked), $checked other commands found"
[ "$passed" -gt 0 ] || { echo "no iobench command lines found"; exit 1; }
[ "$failed" -eq 0 ]
