#!/usr/bin/env bash
# Runs every iobench command line of README.md's ```sh blocks, in README order, in one scratch
# directory, and checks each exits as README documents. A line's status is 0 unless its
# trailing comment names another ("# exits 1", "# in CI: exit 1 on a regression" allows 0 or 1).
# Large N becomes a small one (--lines 2000), so the suite stays fast; nothing else changes.
# The programs README names (./prog, ./writer_c, ./writer_rust) are small stand-ins with known
# write counts. Usage: readme_examples.sh README IOBENCH_BIN WRITER_BIN LINE_WRITER_BIN
set -uo pipefail
readme=$1 iobench=$2 writer=$3 line_writer=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
ln -s "$(realpath "$iobench")" "$scratch/bin/iobench"
# The stand-ins check their argv: iobench must pass a command's arguments exactly.
standin() {  # NAME NARGS EXEC...: a script that runs EXEC only when given exactly NARGS arguments
  local name=$1 nargs=$2
  shift 2
  printf '#!/bin/sh\n[ $# -eq %d ] || { echo "%s: got arguments: $*" >&2; exit 64; }\nexec %s\n' \
    "$nargs" "$name" "$*" >"$scratch/$name"
}
# ./prog: exactly 1000 write(2) calls to prog.txt, and a status line on stdout and one on
# stderr, as a real program prints: README's `--expect 'write_calls==1000'` holds (write is 1002).
standin prog 0 "$(realpath "$line_writer")" per-line prog.txt 1000
standin writer_c 1 "$(realpath "$line_writer")" per-line '"$1"' 2000
standin writer_rust 1 "$(realpath "$line_writer")" buffered '"$1"' 2000
chmod +x "$scratch/prog" "$scratch/writer_c" "$scratch/writer_rust"

# The command lines: inside ```sh fences, from `iobench` or `build/iobench` on.
mapfile -t lines < <(awk '
  /^```/ { if (inb) { inb = 0 } else { inb = ($0 == "```sh") } ; next }
  inb && /^(build\/)?iobench / { print; next }
  inb && match($0, /&& (build\/)?iobench /) { print substr($0, RSTART + 3) }' "$readme")
[ ${#lines[@]} -gt 0 ] || { echo "no iobench command lines found in $readme"; exit 1; }

small_n() {  # $1: the command without its comment
  local cmd=$1
  cmd=$(sed -E 's/--lines ([0-9]{5,})( |$)/--lines 2000\2/' <<<"$cmd")
  # A run or sweep with no --lines takes the default N: make it small too (not trace/compare).
  if ! grep -qE -- '--lines|^iobench (trace|compare)|--(list|version|help)' <<<"$cmd"; then
    cmd="$cmd --lines 2000"
  fi
  printf '%s' "$cmd"
}

failed=0 passed=0
for line in "${lines[@]}"; do
  cmd=${line%%#*}
  cmd=$(sed -E 's/^build\/iobench/iobench/; s/[[:space:]]+$//' <<<"$cmd")
  comment=""
  [[ $line == *"#"* ]] && comment=${line#*#}
  allowed=" 0 $(grep -oE 'exits? [0-9]+' <<<"$comment" | grep -oE '[0-9]+' | tr '\n' ' ')"
  run=$(small_n "$cmd")
  (cd "$scratch" && PATH="$scratch/bin:$PATH" timeout 300 sh -c "$run" >"$scratch/out" 2>"$scratch/err")
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
echo "README examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
