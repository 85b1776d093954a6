#!/usr/bin/env bash
# Runs iobench-microbench (the shared formatter, every strategy's write loop at N = 1e3,
# 1e5, 1e6, and the tracer's cost per traced call) and keeps Google Benchmark's JSON.
# The console table goes to stdout; the JSON to OUT (default microbench-<date>.json).
# Extra arguments go to the binary, e.g. --benchmark_filter=format/ or --iobench_trace=0
# (no syscall counters: skips the one traced run per case, which takes ~20 s for the
# per-line strategies at N = 1e6).
# Usage: tools/microbench.sh [--bin PATH] [--out FILE] [BENCHMARK FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${IOBENCH_MICROBENCH:-build/iobench-microbench}
out="microbench-$(date +%Y%m%d-%H%M%S).json"
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -x "$bin" ] || { echo "microbench.sh: no binary at $bin (build it, or pass --bin)" >&2; exit 2; }
# Load from other work is the usual reason for a noisy run: say so next to the numbers.
tools/machine.sh >&2
"$bin" --benchmark_out="$out" --benchmark_out_format=json "${args[@]}"
echo "JSON: $out" >&2
