#!/usr/bin/env bash
# The ptrace estimate against the kernel clock in the same run (--cross-check), RUNS times,
# one line per run: `iobench trace --cross-check` of a program making N one-line writes, and
# the demo's unbuffered row under `iobench --cross-check`. ratio: ptrace's corrected write time
# over the kernel clock's for the same calls (bias taken out); ±: its 95% half-width. Needs
# root (or CAP_BPF + CAP_PERFMON), build/, jq. --load: beside a process busy 50 ms / asleep
# 50 ms on every CPU. A measurement script: no test judges the ratio (CrossCheckClock holds
# the counts alone).
# Usage: tools/cross_check.sh [--load] [RUNS] [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
load=0
if [ "${1:-}" = "--load" ]; then load=1; shift; fi
runs=${1:-10}
lines=${2:-100000}
bin=${IOBENCH:-build/iobench}
writer=${WRITER:-build/tests/tracer/tracer_program_writer}
tmp=$(mktemp -d)
loaders=()
cleanup() {
  for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$load" = 1 ]; then
  for _ in $(seq "$(nproc)"); do
    (while :; do timeout 0.05 sh -c 'while :; do :; done'; sleep 0.05; done) &
    loaders+=($!)
  done
fi

# The row of one cross_check object: ratio ± half-width, ns per call both ways, calls.
row() {
  jq -r '.cross_check as $c
    | if $c.unavailable != null then "skipped: \($c.unavailable)"
      else [ ($c.ratio * 100 | round / 100), (($c.ratio_ci95[1] - $c.ratio) * 100 | round / 100),
             ($c.estimate_ns / $c.calls | round), ($c.kernel_ns / $c.kernel_calls | round),
             $c.calls, $c.kernel_calls ] | @tsv end'
}

printf '%-6s %3s %6s %5s %9s %9s %8s %8s\n' what run ratio '±' ptrace_ns kernel_ns calls kernel
ratios=()
for i in $(seq "$runs"); do
  "$bin" trace --cross-check --format json -- "$writer" "$tmp/out" "$lines" >"$tmp/trace.json"
  line=$(row <"$tmp/trace.json")
  case $line in skipped:*) echo "$line"; exit 0 ;; esac
  read -r ratio ci p k c kc <<<"$line"
  ratios+=("$ratio")
  printf '%-6s %3d %6s %5s %9s %9s %8s %8s\n' trace "$i" "$ratio" "$ci" "$p" "$k" "$c" "$kc"
  "$bin" --cross-check --lines "$lines" --strategy unbuffered --runs 1 --warmup 0 --format json \
    | jq '.results[0]' | row | {
    read -r ratio ci p k c kc
    printf '%-6s %3d %6s %5s %9s %9s %8s %8s\n' demo "$i" "$ratio" "$ci" "$p" "$k" "$c" "$kc"
  }
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 }
  END { printf "trace ratios: median %s, range %s..%s, within ±15%%: %d of %d\n",
        a[int((NR + 1) / 2)], a[1], a[NR], n15, NR }
  { if ($1 >= 0.85 && $1 <= 1.15) n15++ }'
