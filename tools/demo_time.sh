#!/usr/bin/env bash
# How long the default demo takes, and where the time goes: runs
# `iobench --lines 100000 --strategy all` (traced runs included) RUNS times, prints each wall
# time, then from the last run's JSON each strategy's traced run (traced_time_ns) and its timed
# runs (the sum of time_ns.samples; the warm-up, not in JSON, costs about one more), and what
# is left: forks, checks, calibration and start-up. The tracer's cost per call decides most
# of it, so the figures move with the tracer and with the machine's load.
# A measurement script, not a test.
# Usage: tools/demo_time.sh [--bin PATH] [--runs RUNS (3)] [--dir DIR]  (needs jq)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${IOBENCH:-build/iobench}
runs=3
dir=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "demo_time.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "demo_time.sh: no iobench at $bin (build it, or pass --bin)" >&2; exit 2; }
command -v jq >/dev/null || { echo "demo_time.sh: needs jq (tools/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tools/machine.sh
printf 'iobench --lines 100000 --strategy all, %d times: wall' "$runs"
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  "$bin" --lines 100000 --strategy all --dir "$dir" --format json >"$tmp/demo.json"
  wall_ns=$(($(date +%s%N) - start))
  printf '  %.1f s' "$(awk -v n="$wall_ns" 'BEGIN { print n / 1e9 }')"
done
echo
echo "where the last one went:"
jq -r '.results[] | "\(.strategy) \(.traced_time_ns // 0) \((.time_ns.samples // []) | add // 0)"' \
  "$tmp/demo.json" | awk -v wall="$wall_ns" '
  { printf "  %-18s traced run %6.2f s   timed runs %6.2f s\n", $1, $2 / 1e9, $3 / 1e9
    traced += $2; timed += $3 }
  END { printf "  all traced runs %.2f s, all timed runs %.2f s, the rest %.2f s\n",
               traced / 1e9, timed / 1e9, (wall - traced - timed) / 1e9 }'
