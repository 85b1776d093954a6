#!/usr/bin/env bash
# Runs CMD beside an on-off load: on every CPU a process busy 50 ms, asleep 50 ms, over and
# over (issue 26's "busy machine"); the load stops when CMD ends, however it ends.
# A measurement helper, not a test. Usage: tools/onoff_load.sh CMD [ARGS...]
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: tools/onoff_load.sh CMD [ARGS...]" >&2; exit 2; }
loaders=()
stop() { for p in "${loaders[@]}"; do kill -- "-$p" 2>/dev/null || true; done; }
trap stop EXIT
for _ in $(seq "$(nproc)"); do
  # Its own process group (setsid), so that one kill ends the loop and the busy child.
  setsid bash -c 'while :; do timeout 0.05 sh -c "while :; do :; done"; sleep 0.05; done' &
  loaders+=($!)
done
"$@"
