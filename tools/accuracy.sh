#!/usr/bin/env bash
# The accuracy checks of the tracer's syscall times, run RUNS times each, one line per run:
#  demo   the demo's unbuffered row (traced, default options): corrected ns per write against
#         the untraced differential estimate (unbuffered - format-only) / N of the same run,
#         the calls timed, syscall_share, and the wall time of
#         `iobench --lines N --strategy all` traced over --no-trace, back to back.
#  trace  `iobench trace` of a program making N one-line writes: corrected ns per write against
#         the median of the demo runs' references (one run's moves with the host's speed).
# --load: the trace runs beside a process that is busy 50 ms and asleep 50 ms on every CPU;
# the demo runs, and so the reference, stay quiet: the truth is the quiet machine's.
# A measurement script, not a test: run it on a quiet machine (and once beside a load, e.g.
# tools/accuracy.sh --load) to see what holds there. Needs build/, jq.
# Usage: tools/accuracy.sh [--load] [RUNS] [LINES]
set -euo pipefail
cd "$(dirname "$0")/.."
load=0
if [ "${1:-}" = "--load" ]; then load=1; shift; fi
runs=${1:-10}
lines=${2:-100000}
bin=${IOBENCH:-build/iobench}
writer=${WRITER:-build/tests/tracer/tracer_program_writer}
wall=${WALL:-1}  # WALL=0 skips the (slow) whole-demo wall-time ratio
tmp=$(mktemp -d)
loaders=()
cleanup() {
  for p in "${loaders[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

start_load() {
  # On and off on every CPU: busy 50 ms, asleep 50 ms, until this script ends.
  for _ in $(seq "$(nproc)"); do
    (while :; do timeout 0.05 sh -c 'while :; do :; done'; sleep 0.05; done) &
    loaders+=($!)
  done
}

now_ns() { date +%s%N; }
# shown: "—" where iobench itself prints "—" (the figure's 95% interval holds 0, or it
# exceeds 1.5x the whole untraced run): the ratio is then printed but not a claim.
printf '%-5s %3s %10s %10s %7s %9s %7s %7s %5s\n' what run corrected reference ratio timed share wall shown
refs=()
for i in $(seq "$runs"); do
  "$bin" --lines "$lines" --strategy unbuffered,format-only --format json >"$tmp/demo.json"
  read -r corrected ref timed share shown < <(jq -r --argjson n "$lines" '
    (.results[] | select(.strategy=="unbuffered")) as $u
    | (.results[] | select(.strategy=="format-only")) as $f
    | [ (if $u.syscall_time_ns == null then "null" else ($u.syscall_time_ns / $u.write_calls) end),
        (($u.time_ns.median - $f.time_ns.median) / $n),
        ($u.syscalls.write.timed_calls // "null"),
        ($u.syscall_share // "null"),
        (if $u.syscall_time_ns == null or $u.syscall_time_ci95_ns[0] == 0
            or $u.syscall_time_ns > 1.5 * $u.time_ns.median then "—" else "num" end) ] | @tsv' "$tmp/demo.json")
  refs+=("$ref")
  wall_ratio="-"
  if [ "$wall" = 1 ]; then
    t0=$(now_ns); "$bin" --lines "$lines" --strategy all >/dev/null; t1=$(now_ns)
    "$bin" --lines "$lines" --strategy all --no-trace >/dev/null; t2=$(now_ns)
    wall_ratio=$(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN {printf "%.2f", a/b}')
  fi
  awk -v w=demo -v i="$i" -v c="$corrected" -v r="$ref" -v t="$timed" -v s="$share" -v x="$wall_ratio" \
    -v sh="$shown" \
    'BEGIN {printf "%-5s %3d %10s %10.1f %7s %9s %7s %7s %5s\n", w, i, (c=="null"?"—":sprintf("%.1f",c)), r,
            (c=="null"?"—":sprintf("%.2f",c/r)), t, (s=="null"?"—":sprintf("%.3f",s)), x, sh}'
done
ref=$(printf '%s\n' "${refs[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
if [ "$load" = 1 ]; then start_load; fi
for i in $(seq "$runs"); do
  "$bin" trace --format json -- "$writer" "$tmp/out" "$lines" >"$tmp/trace.json"
  read -r corrected timed shown < <(jq -r '.syscalls.write as $w
    | [ (if $w.time_ns == null then "null" else ($w.time_ns / $w.calls) end),
        ($w.timed_calls // "null"),
        (if $w.time_ns == null or $w.time_ci95_ns[0] == 0 then "—" else "num" end) ] | @tsv' \
    "$tmp/trace.json")
  awk -v i="$i" -v c="$corrected" -v r="$ref" -v t="$timed" -v sh="$shown" \
    'BEGIN {printf "%-5s %3d %10s %10.1f %7s %9s %7s %7s %5s\n", "trace", i, (c=="null"?"—":sprintf("%.1f",c)), r,
            (c=="null"?"—":sprintf("%.2f",c/r)), t, "", "", sh}'
done
