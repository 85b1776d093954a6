#!/usr/bin/env bash
# Side by side, in one run: the `unbuffered` strategy (one write(2) per line) untraced,
# under iobench's count mode, under its timing mode, and under `strace -f -c`.
# Prints how much each slows the strategy down, and how far iobench's corrected syscall
# time per write is from the untraced truth ((unbuffered - format-only) / N), and what the
# perf backend costs once per iobench process to register its tracepoints (the wall time of
# `--lines 1` with --tracer perf minus the same with --no-trace, median of RUNS).
# A measurement script, not a test: numbers vary from machine to machine.
# Usage: tools/compare_tracers.sh [LINES] [RUNS]   (needs build/iobench, strace, jq)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-100000}
runs=${2:-5}
bin=${IOBENCH:-build/iobench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# wall_ns ARGS...: the wall time of one iobench invocation, in ns.
wall_ns() {
  local start
  start=$(date +%s%N)
  "$bin" "$@" >/dev/null 2>&1
  echo $(($(date +%s%N) - start))
}
tools/machine.sh

# Untraced truth: the same strategy with the floor beside it.
"$bin" --lines "$lines" --strategy unbuffered,format-only --runs "$runs" --no-trace --format json >"$tmp/plain.json"
untraced=$(jq '.results[0].time_ns.median' "$tmp/plain.json")
floor=$(jq '.results[1].time_ns.median' "$tmp/plain.json")

# iobench's own tracer: the strategy's time inside its traced run (one per invocation).
for mode in perf count timing; do
  flag=""
  [ "$mode" = perf ] && flag="--count-only --tracer perf"
  [ "$mode" = count ] && flag="--count-only --tracer ptrace"
  if [ "$mode" = perf ] && ! "$bin" --lines 1 --strategy unbuffered --runs 1 --warmup 0 $flag --format json >/dev/null 2>&1; then
    echo 0 >"$tmp/perf.median"; continue  # perf counters unavailable here (not root, no tracefs)
  fi
  for _ in $(seq "$runs"); do
    "$bin" --lines "$lines" --strategy unbuffered --runs 1 --warmup 0 $flag --format json >"$tmp/$mode.json"
    jq '.results[0].traced_time_ns' "$tmp/$mode.json"
  done | median >"$tmp/$mode.median"
done
perf_setup=0
if [ "$(cat "$tmp/perf.median")" != 0 ]; then
  one=(--lines 1 --strategy format-only --runs 1 --warmup 0)
  with=$(for _ in $(seq "$runs"); do wall_ns "${one[@]}" --count-only --tracer perf; done | median)
  without=$(for _ in $(seq "$runs"); do wall_ns "${one[@]}" --no-trace; done | median)
  perf_setup=$((with - without))
fi
perf_time=$(cat "$tmp/perf.median")
count_time=$(cat "$tmp/count.median")
timing_time=$(cat "$tmp/timing.median")
calls=$(jq '.results[0].write_calls' "$tmp/timing.json")
syscall_ns=$(jq '.results[0].syscall_time_ns' "$tmp/timing.json")
overhead=$(jq '.config.tracer.overhead_ns' "$tmp/timing.json")

# strace -f -c around an untraced iobench: the child still times itself, so its time_ns is
# the strategy's time under strace.
for _ in $(seq "$runs"); do
  strace -f -c -o "$tmp/strace.txt" "$bin" --lines "$lines" --strategy unbuffered --runs 1 --warmup 0 \
    --no-trace --format json | jq '.results[0].time_ns.median'
done | median >"$tmp/strace.median"
strace_time=$(cat "$tmp/strace.median")
strace_writes=$(awk '$NF=="write" {print $4}' "$tmp/strace.txt")

awk -v n="$lines" -v ps="$perf_setup" -v u="$untraced" -v f="$floor" -v p="$perf_time" -v c="$count_time" -v t="$timing_time" \
    -v s="$strace_time" -v calls="$calls" -v sys="$syscall_ns" -v ov="$overhead" -v sw="$strace_writes" 'BEGIN {
  printf "unbuffered, %d lines, median of runs (ms)\n", n
  printf "  %-28s %10.2f ms\n", "untraced", u/1e6
  if (p > 0) printf "  %-28s %10.2f ms  %6.2fx untraced\n", "iobench --count-only (perf)", p/1e6, p/u
  printf "  %-28s %10.2f ms  %6.2fx untraced\n", "iobench --count-only (ptrace)", c/1e6, c/u
  printf "  %-28s %10.2f ms  %6.2fx untraced\n", "iobench (timing mode)", t/1e6, t/u
  printf "  %-28s %10.2f ms  %6.2fx untraced\n", "strace -f -c", s/1e6, s/u
  printf "ptrace count mode adds %.2f of what strace -f -c adds (%.2f ms vs %.2f ms)\n", (c-u)/(s-u), (c-u)/1e6, (s-u)/1e6
  printf "write calls: iobench %d, strace %s\n", calls, sw
  if (p > 0) printf "perf set-up, once per iobench process: %.0f ms\n", ps/1e6
  truth = (u - f) / n
  got = sys / calls
  printf "syscall time per write: iobench %.0f ns (tracer cost %d ns/call subtracted), untraced truth %.0f ns (unbuffered - format-only) / N: error %+.0f%%\n", got, ov, truth, 100*(got-truth)/truth
}'
