#!/usr/bin/env bash
# iobench(1) as a user reads it: installed by `cmake --install` into a scratch prefix and shown
# by `MANPATH=PREFIX/share/man man -P cat iobench`, it lists exactly the options each
# command's --help shows: the run's under OPTIONS, trace's and compare's in their sections,
# and sweep's (the run's own) under OPTIONS too.
# Usage: man_page_test.sh BUILD_DIR IOBENCH
set -euo pipefail
build_dir=$1
iobench=$2
fail() { echo "man_page_test: $*" >&2; exit 1; }
if ! command -v man >/dev/null; then
  echo "man_page_test: skipped: man is not installed (apt-get install man-db)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/p" >/dev/null
[ -f "$scratch/p/share/man/man1/iobench.1" ] || fail "share/man/man1/iobench.1 is not installed"
# Wide, so that no paragraph wraps a flag to the start of a line and reads as a flag's row.
MANPATH=$scratch/p/share/man MANWIDTH=1000 man -P cat iobench >"$scratch/page" 2>"$scratch/err" ||
  fail "man -P cat iobench failed: $(cat "$scratch/err")"

# The flag names of each row that starts with `indent` and a dash: "-n, --lines N" -> -n --lines.
flags_of() {
  awk -v indent="$1" 'index($0, indent "-") == 1 {
    for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w); if (w !~ /^-/) break; print w }
  }' | sort -u
}
# The lines of one man section: from its heading to the next heading.
section() { awk -v h="$1" '/^[A-Z]/ { on = ($0 == h) } on' "$scratch/page"; }

check() {  # check WHAT "HELP WORDS" SECTION
  local help man
  # shellcheck disable=SC2086  # $2 unquoted: the run has no subcommand word
  help=$(COLUMNS=100 "$iobench" $2 --help | flags_of "  ")
  man=$(section "$3" | flags_of "       ")
  [ -n "$help" ] || fail "$1: iobench${2:+ $2} --help shows no options"
  if [ "$help" != "$man" ]; then
    diff <(echo "$help") <(echo "$man") | grep '^[<>]' |
      sed 's/^</  only in --help:/; s/^>/  only in the man page:/' >&2 || true
    fail "$1: the man page's $3 section and iobench${2:+ $2} --help list different options"
  fi
  echo "man_page_test: $1: $(echo "$help" | wc -l) options, as in --help"
}
check run "" OPTIONS
check trace trace "IOBENCH TRACE"
check compare compare "IOBENCH COMPARE"
# sweep's --help names some of the run's flags; the page documents them under OPTIONS.
missing=$(comm -23 <(COLUMNS=100 "$iobench" sweep --help | flags_of "  ") \
  <(section OPTIONS | flags_of "       "))
[ -z "$missing" ] || fail "sweep --help shows options the man page lacks: $missing"
for heading in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" EXAMPLES; do
  grep -qx "$heading" "$scratch/page" || fail "no $heading section"
done
grep -q 'iobench trace -- true' "$scratch/page" || fail "EXAMPLES lacks iobench trace -- true"
echo "man_page_test: ok"
