#!/usr/bin/env bash
# The kernel clock's time per write against the same write self-timed untraced (CPU time),
# alternated in short stretches inside one process (iobench-bpf-clock accuracy), RUNS runs,
# for a file in DIR and for /dev/null. Prints each run's median ratio of the kernel's on-CPU
# time (a write's voluntary wait left out, as CPU time leaves it out) to the untraced CPU
# time, raw and with the measured getppid bias subtracted. Root (or CAP_BPF + CAP_PERFMON).
# Usage: tools/bpf_accuracy.sh [RUNS] [DIR] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
dir=${2:-/tmp}
tool=${3:-build}/iobench-bpf-clock
writes=20000
stretches=6
[ -x "$tool" ] || { echo "no $tool: build with libbpf-dev and bpftool (tools/setup.sh)" >&2; exit 1; }
scratch=$(mktemp -d "$dir/iobench-bpf-accuracy.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# One run: the median over its stretches of bpf, untraced, ratio and corrected ratio.
one_run() {
  "$tool" accuracy "$1" "$writes" "$stretches" | awk '
    /^bias/ { bias = $2 }
    $2 == "bpf" { n++; b[n] = $3; o[n] = $5; u[n] = $7; r[n] = $9; c[n] = $11 }
    function median(a, k,   i, j, t) {
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END { printf "bpf %4.0f (on CPU %4.0f) ns/write  untraced %4.0f ns/write  ratio %.3f  corrected %.3f  (bias %s ns)\n",
                 median(b, n), median(o, n), median(u, n), median(r, n), median(c, n), bias }'
}

date -u +"%F %T UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for target in "$scratch/out" /dev/null; do
  echo "== $target ($writes one-line writes per stretch, $stretches stretches per run)"
  for i in $(seq 1 "$runs"); do
    printf '%2d  ' "$i"
    one_run "$target"
  done
done
