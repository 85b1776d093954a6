#!/usr/bin/env bash
# Scale: runs strategies over N = 1e3 .. 1e7 lines (1e8, 1.4 GB per file, with --with-1e8),
# untraced, and prints for each strategy the median time at every N, the cost per line, where
# time becomes linear in N, and the peak RSS at the largest N:
#   ns/line       the slope of the top decade: (time at the largest N - time at the one
#                 before) / (difference in N), the marginal cost of a line at scale
#   linear from   the smallest N from which every decade's slope is within 25% of ns/line:
#                 below it a fixed cost (a fork, a thread waking) hides the lines. Each decade
#                 is judged on its own, unlike a least-squares fit over 1e3..1e8, whose R^2 is
#                 decided by the largest N alone and scores a row flat up to 1e5 as a line.
#   parent  VmHWM of the iobench process itself (polled from /proc while it runs; a lower
#           bound, but its peak is the streaming check, which runs between child runs)
#   max     GNU time's "Maximum resident set size": the largest of iobench and every child
#           it waited for, i.e. the strategy's own footprint when that is larger
# and checks that both stay under 64 MiB for every streaming strategy at the largest N.
# single-write is not streaming: at 1e7 it legitimately holds the whole 129 MB file in one
# buffer, and above 1 GiB it refuses. A measurement script, not a test.
#
# Usage: tools/scale.sh [--bin PATH] [--strategies LIST] [--runs R] [--dir DIR] [--with-1e8]
#   (needs jq and /usr/bin/time: tools/setup.sh installs both)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${IOBENCH:-build/iobench}
strategies=stdio,buffered,writev,io_uring,io_uring-sqpoll,mmap,single-write,format-only
runs=3
dir=${TMPDIR:-/tmp}
sizes=(1000 10000 100000 1000000 10000000)
limit_kib=$((64 * 1024))
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --with-1e8) sizes+=(100000000); shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "scale.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "scale.sh: no iobench at $bin (build it, or pass --bin)" >&2; exit 2; }
command -v jq >/dev/null || { echo "scale.sh: needs jq (tools/setup.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale.sh: needs GNU time at /usr/bin/time (tools/setup.sh)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One iobench run per (strategy, N); echoes "median_ns parent_kib any_kib status".
measure() {
  local strategy=$1 lines=$2 out=$tmp/run.json
  /usr/bin/time -f %M -o "$tmp/time.txt" \
    "$bin" --lines "$lines" --strategy "$strategy" --no-trace --runs "$runs" --warmup 1 \
    --dir "$dir" --format json >"$out" 2>"$tmp/stderr.txt" &
  local tpid=$! pid="" hwm=0
  # The iobench process is GNU time's child; its VmHWM only grows, so the last read wins.
  while kill -0 "$tpid" 2>/dev/null; do
    [ -n "$pid" ] || pid=$(pgrep -P "$tpid" -x iobench 2>/dev/null | head -1 || true)
    if [ -n "$pid" ]; then
      local v
      v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$v" ] && hwm=$v
    fi
    sleep 0.02
  done
  wait "$tpid" || true
  local status median
  status=$(jq -r '.results[0].status' "$out" 2>/dev/null || echo error)
  median=$(jq -r '.results[0].time_ns.median // "null"' "$out" 2>/dev/null || echo null)
  echo "$median $hwm $(tail -1 "$tmp/time.txt") $status"
}

label() { awk -v n="$1" 'BEGIN { printf "1e%d", log(n) / log(10) + 0.5 }'; }
fs=$(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || echo unknown)
tools/machine.sh
printf '%s' "iobench scale: $dir on $fs, median of $runs runs per point"
printf '\n\n%-16s' strategy
for n in "${sizes[@]}"; do printf '%12s' "N=$(label "$n")"; done
printf '%12s%13s%14s%14s  %s\n' "ns/line" "linear from" "parent RSS" "max RSS" "RSS check (largest N run)"

fail=0
IFS=, read -r -a list <<<"$strategies"
for s in "${list[@]}"; do
  printf '%-16s' "$s"
  : >"$tmp/points"
  last="0 0 none 0"
  for n in "${sizes[@]}"; do
    read -r median parent any status < <(measure "$s" "$n")
    if [ "$status" = ok ] && [ "$median" != null ]; then
      last="$parent $any $status $n"  # RSS is checked at the largest N that ran
      echo "$n $median" >>"$tmp/points"
      printf '%12s' "$(awk -v t="$median" 'BEGIN {
        if (t >= 1e9) printf "%.2f s", t / 1e9; else if (t >= 1e6) printf "%.2f ms", t / 1e6;
        else printf "%.0f us", t / 1e3 }')"
    else
      printf '%12s' "$status"
    fi
  done
  # The slope of each decade, and the smallest N from which all are within 25% of the top one.
  awk '{ x[++n] = $1; y[n] = $2 }
       END {
         if (n < 2) { printf "%12s%13s", "-", "-"; exit }
         top = (y[n] - y[n - 1]) / (x[n] - x[n - 1]); from = n - 1
         for (k = n - 2; k >= 1; k--) {
           slope = (y[k + 1] - y[k]) / (x[k + 1] - x[k])
           if (top <= 0 || slope < 0.75 * top || slope > 1.25 * top) break
           from = k
         }
         printf "%12.2f%13s", top, sprintf("1e%d", log(x[from]) / log(10) + 0.5)
       }' "$tmp/points"
  read -r parent any status at <<<"$last"
  printf '%11.1f MiB%10.1f MiB' "$(awk -v k="$parent" 'BEGIN {print k / 1024}')" \
    "$(awk -v k="$any" 'BEGIN {print k / 1024}')"
  if [ "$status" != ok ]; then
    echo "  no run succeeded"
    fail=1
  elif [ "$s" = single-write ]; then
    echo "  at $(label "$at"): not streaming (a buffer the size of the file; refuses above 1 GiB)"
  elif [ "$parent" -lt "$limit_kib" ] && [ "$any" -lt "$limit_kib" ]; then
    echo "  at $(label "$at"): ok (< 64 MiB)"
  else
    echo "  at $(label "$at"): OVER 64 MiB"
    fail=1
  fi
done
exit $fail
