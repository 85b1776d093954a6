#!/usr/bin/env bash
# The table of README "Durability and direct I/O": each strategy that honours --direct, at
# N = 1e6, plain, with --direct, --sync end, --sync every:16 and --direct --sync end. One
# iobench invocation per column (--runs 7, counts from one --count-only traced run), printed
# as the Markdown table README shows (median times; every:16 with its fdatasync count), then
# the same table of write calls (io_uring_enter for the io_uring rows) with the ftruncate
# calls of the --direct columns. Runs on a shared machine move by tens of percent between
# minutes: read the differences within a column, not the digits.
# A measurement script, not a test.
# Usage: tools/durability.sh [--bin PATH] [--lines N] [--runs R] [--dir DIR]  (needs jq)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${IOBENCH:-build/iobench}
lines=1000000
runs=7
dir=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --lines) lines=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "durability.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "durability.sh: no iobench at $bin (build it, or pass --bin)" >&2; exit 2; }
command -v jq >/dev/null || { echo "durability.sh: needs jq (tools/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

strategies=(buffered io_uring io_uring-sqpoll single-write)
columns=("" "--direct" "--sync end" "--sync every:16" "--direct --sync end")
for i in "${!columns[@]}"; do
  # shellcheck disable=SC2086  # a column's flags are words
  "$bin" --lines "$lines" --strategy "$(IFS=,; echo "${strategies[*]}")" --runs "$runs" \
    --count-only --dir "$dir" --format json ${columns[$i]} >"$tmp/$i.json"
done

tools/machine.sh
echo "iobench durability: N = $lines, median of $runs runs, $dir on $(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || echo unknown)"
header() {
  printf '\n| %s | plain |' "$1"
  for c in "${columns[@]:1}"; do printf " \`%s\` |" "$c"; done
  printf '\n|---|---:|---:|---:|---:|---:|\n'
}
# cell COLUMN STRATEGY JQ-EXPRESSION: one value of one row, "—" unless the row is ok.
cell() {
  jq -r --arg s "$2" ".results[] | select(.strategy == \$s) |
    if .status != \"ok\" then .status else ($3) end" "$tmp/$1.json"
}
header strategy
for s in "${strategies[@]}"; do
  printf "| \`%s\` |" "$s"
  for i in "${!columns[@]}"; do
    read -r ms syncs < <(cell "$i" "$s" '"\(.time_ns.median / 1e6) \(.syscalls.fdatasync.calls // 0)"')
    case $ms in *[!0-9.e+-]*) printf ' %s |' "$ms"; continue ;; esac  # not ok: the status
    text=$(printf '%.1f ms' "$ms")
    [ "$i" = 3 ] && text+=" ($syncs sync$([ "$syncs" = 1 ] || echo s))"
    printf ' %s |' "$text"
  done
  echo
done
header "write calls"
for s in "${strategies[@]}"; do
  printf "| \`%s\` |" "$s"
  for i in "${!columns[@]}"; do
    truncs=""
    case "${columns[$i]}" in *--direct*) truncs=' + \(.syscalls.ftruncate.calls // 0) ftruncate' ;; esac
    printf ' %s |' "$(cell "$i" "$s" "\"\(.write_calls)$truncs\"")"
  done
  echo
done
