#!/usr/bin/env bash
# The kernel clock's time per write against the same write self-timed untraced (CPU time),
# RUNS runs, for a file in DIR and for /dev/null (iobench-bpf-clock accuracy). Each run is 30
# triples of short stretches on one CPU: untraced, traced, untraced, each in a new child as a
# traced run is; a triple whose two untraced stretches differ by more than 5% straddled a
# change of the host's speed and is left out. Prints each run's median over the kept triples
# of the ratio of the kernel's on-CPU time (a write's voluntary wait left out, as CPU time
# leaves it out) to the untraced CPU time, raw and as iobench reports it (the write family's
# bias, measured beside the run as iobench measures it, taken out).
# Root (or CAP_BPF + CAP_PERFMON). Usage: tools/bpf_accuracy.sh [RUNS] [DIR] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
dir=${2:-/tmp}
tool=${3:-build}/iobench-bpf-clock
writes=2000
triples=30
[ -x "$tool" ] || { echo "no $tool: build with libbpf-dev and bpftool (tools/setup.sh)" >&2; exit 1; }
scratch=$(mktemp -d "$dir/iobench-bpf-accuracy.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# One run: medians over the kept triples (all of them if none agreed, said so).
one_run() {
  "$tool" accuracy "$1" "$writes" "$triples" | awk '
    /^bias/ { sub(/^bias /, ""); bias = $0; next }
    $2 == "bpf" {
      t++
      if ($13 <= 0.05) { n++; b[n] = $3; u[n] = $7; r[n] = $9; c[n] = $11 }
      ab[t] = $3; au[t] = $7; ar[t] = $9; ac[t] = $11
    }
    function median(a, k,   i, j, x) {
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      kept = n " of " t " kept"
      if (n == 0) { n = t; for (i = 1; i <= t; i++) { b[i] = ab[i]; u[i] = au[i]; r[i] = ar[i]; c[i] = ac[i] }; kept = "none agreed: all " t }
      printf "bpf %4.0f ns/write  untraced %4.0f ns/write  ratio %.3f  corrected %.3f  (%s; bias %s)\n",
             median(b, n), median(u, n), median(r, n), median(c, n), kept, bias }'
}

date -u +"%F %T UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for target in "$scratch/out" /dev/null; do
  echo "== $target ($writes one-line writes per stretch, $triples triples per run)"
  for i in $(seq 1 "$runs"); do
    printf '%2d  ' "$i"
    one_run "$target"
  done
done
