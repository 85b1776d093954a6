#!/usr/bin/env bash
# One line naming where and when a measurement was made, printed by every measurement script
# above its numbers, so that a figure quoted in README carries its machine and date:
#   measured 2026-12-01 02:30 UTC · 2 CPUs (Intel(R) Xeon(R) Processor) · kernel 6.18.44 · load 0.12 0.30 0.41
# The load averages say whether other work ran beside it (above ~0.5 per CPU: it did).
set -euo pipefail
model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
printf 'measured %s · %s CPUs (%s) · kernel %s · load %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(nproc)" "${model:-unknown CPU}" "$(uname -r)" "$(cut -d' ' -f1-3 /proc/loadavg)"
