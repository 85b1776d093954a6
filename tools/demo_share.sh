#!/usr/bin/env bash
# The demo as a presenter runs it, RUNS times: per run, the backend that ran, "% of time" of
# unbuffered and unbuffered-pieces (syscall_share; "—" where iobench prints "—", with its
# reason), and the traced demo's wall time over its --no-trace twin's, run back to back.
# Then `iobench trace -- true` in timing mode, 5 times with each backend this user may run.
# Run it as root (auto: bpf) and as a plain user (ptrace); beside a load with
# tools/onoff_load.sh tools/demo_share.sh 5. A measurement script, not a test. Needs jq.
# Usage: tools/demo_share.sh [RUNS (10)] [LINES (100000)]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
lines=${2:-100000}
bin=$(realpath "${IOBENCH:-build/iobench}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"  # the demo's files, and nothing left in the tree
now_ns() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }

echo "$(date -u +'%F %T UTC'), $(id -un), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%3s %-7s %11s %18s %8s %8s %6s\n' run backend unbuffered unbuffered-pieces traced no-trace ratio
for i in $(seq "$runs"); do
  t0=$(now_ns)
  "$bin" --lines "$lines" --strategy all --format json >demo.json
  t1=$(now_ns)
  "$bin" --lines "$lines" --strategy all --no-trace >/dev/null
  t2=$(now_ns)
  read -r backend u p < <(jq -r '
    def share(s): (.results[] | select(.strategy == s)
      | if .syscall_share == null then "—" else "\(.syscall_share * 1000 | round / 10)%" end);
    [.config.tracer.backend, share("unbuffered"), share("unbuffered-pieces")] | @tsv' demo.json)
  printf '%3d %-7s %11s %18s %7ss %7ss %6s\n' "$i" "$backend" "$u" "$p" "$(secs $((t1 - t0)))" \
    "$(secs $((t2 - t1)))" "$(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN { printf "%.2f", a / b }')"
  if [ "$u" = "—" ] || [ "$p" = "—" ]; then
    jq -r '.results[] | select(.strategy | startswith("unbuffered")) | select(.syscall_share == null)
      | "    \(.strategy): \(.syscall_time_unavailable // "share above 100% by more than its error")"' demo.json
  fi
done

for tracer in bpf ptrace; do
  "$bin" trace --tracer "$tracer" -- true >/dev/null 2>&1 || { echo "trace --tracer $tracer: cannot run here"; continue; }
  printf 'iobench trace --tracer %-6s -- true:' "$tracer"
  for _ in 1 2 3 4 5; do
    t0=$(now_ns); "$bin" trace --tracer "$tracer" -- true >/dev/null 2>&1; t1=$(now_ns)
    printf ' %ss' "$(secs $((t1 - t0)))"
  done
  echo
done
