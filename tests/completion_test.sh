#!/usr/bin/env bash
# The shell completions as installed by `cmake --install` into a scratch prefix: bash's file
# is sourced and its function driven through COMP_WORDS/COMP_CWORD as bash does on <TAB>
# (no bash-completion package needed); zsh's and fish's must parse (zsh -n, fish -n), and
# fish's completes through `complete -C`. The value lists must be iobench's own.
# Usage: completion_test.sh bash|zsh|fish BUILD_DIR IOBENCH
set -euo pipefail
shell=$1
build_dir=$2
iobench=$3
fail() { echo "completion_test ($shell): $*" >&2; exit 1; }
if ! command -v "$shell" >/dev/null; then
  echo "completion_test: skipped: $shell is not installed (apt-get install $shell)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/p" >/dev/null
share=$scratch/p/share
strategies="all $("$iobench" --list | awk '{ print $1 }' | xargs)"

expect() {  # expect "WHAT WAS TYPED" "WHAT IT MUST COMPLETE TO" GOT
  [ "$3" = "$2" ] || fail "'$1<TAB>' completes to '$3', not '$2'"
  echo "completion_test ($shell): '$1<TAB>' -> '$2'"
}

case $shell in
  bash)
    file=$share/bash-completion/completions/iobench
    [ -f "$file" ] || fail "share/bash-completion/completions/iobench is not installed"
    # shellcheck source=/dev/null
    source "$file"
    complete -p iobench >/dev/null || fail "the file does not register a completion for iobench"
    tab() {  # the words typed, the last one being completed
      COMP_WORDS=("$@")
      COMP_CWORD=$(($# - 1))
      COMPREPLY=()
      _iobench
      echo "${COMPREPLY[*]}"
    }
    expect "iobench --str" "--strategy" "$(tab iobench --str)"
    expect "iobench --strategy buf" "buffered" "$(tab iobench --strategy buf)"
    expect "iobench --strategy=buf" "buffered" "$(tab iobench --strategy = buf)"
    expect "iobench -s buffered,mm" "buffered,mmap" "$(tab iobench -s buffered,mm)"
    expect "iobench --strategy " "$strategies" "$(tab iobench --strategy '')"
    expect "iobench tr" "trace" "$(tab iobench tr)"
    expect "iobench trace --form" "--format" "$(tab iobench trace --form)"
    expect "iobench trace --format " "table json" "$(tab iobench trace --format '')"
    expect "iobench --format m" "markdown" "$(tab iobench --format m)"
    expect "iobench compare --tracer p" "ptrace perf" "$(tab iobench compare --tracer p)"
    expect "iobench sweep --buffer-s" "--buffer-size" "$(tab iobench sweep --buffer-s)"
    # After "--" the traced command's name: true is among the commands it offers.
    expect "iobench trace -- tru" "true" "$(tab iobench trace -- tru | xargs -n1 | grep -x true | sort -u)"
    ;;
  zsh)
    file=$share/zsh/site-functions/_iobench
    [ -f "$file" ] || fail "share/zsh/site-functions/_iobench is not installed"
    zsh -n "$file" || fail "zsh -n $file failed"
    head -1 "$file" | grep -qx '#compdef iobench' || fail "$file does not start with #compdef iobench"
    grep -q "_values -s , value $strategies" "$file" || fail "--strategy's values are not: $strategies"
    echo "completion_test (zsh): zsh -n passes"
    ;;
  fish)
    file=$share/fish/vendor_completions.d/iobench.fish
    [ -f "$file" ] || fail "share/fish/vendor_completions.d/iobench.fish is not installed"
    fish -n "$file" || fail "fish -n $file failed"
    tab() { fish --no-config -c "source '$file'; complete -C '$1'" | cut -f1 | xargs; }
    expect "iobench --str" "--strategy" "$(tab 'iobench --str')"
    expect "iobench --strategy buf" "buffered" "$(tab 'iobench --strategy buf')"
    sorted() { xargs -n1 | sort | xargs; }  # fish sorts what it offers
    expect "iobench --strategy " "$(sorted <<<"$strategies")" "$(tab 'iobench --strategy ' | sorted)"
    expect "iobench trace --format " "json table" "$(tab 'iobench trace --format ' | sorted)"
    ;;
  *) fail "unknown shell" ;;
esac
echo "completion_test ($shell): ok"
