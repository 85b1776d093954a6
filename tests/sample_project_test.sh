#!/usr/bin/env bash
# Builds tests/consumer_gtest against the installed package, as a user's project, and runs its
# CTest tests three times. As it is, every test passes. With LINE_LOG_MUTATION=extra_writes
# (a write per line) every test fails, the GoogleTest matchers and iobench_add_test each
# showing the per-file table. With miscount (the same writes, a wrong line count) exactly the
# test whose assertion inside the traced callable fails, fails, with that assertion's message.
# Usage: sample_project_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
project=$scratch/build
fail() { echo "sample_project_test: $*" >&2; exit 1; }
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null

# build MUTATION: the sample configured with LINE_LOG_MUTATION=MUTATION and built.
build() {
  cmake -S "$source_dir/tests/consumer_gtest" -B "$project" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$scratch/prefix" -DLINE_LOG_MUTATION="$1" >/dev/null
  cmake --build "$project" >/dev/null
}
# run_ctest: every test, each one's result and output in $project/ctest.xml; ctest's status.
run_ctest() {
  local status=0
  (cd "$project" && ctest --output-junit ctest.xml >"$scratch/ctest.log" 2>&1) || status=$?
  echo "$status"
}
xpath() { xmllint --xpath "$2" "$1" 2>/dev/null || true; }
# failed: the names of the failed tests, one a line, sorted.
failed() {
  local n i
  n=$(xpath "$project/ctest.xml" 'count(//testcase[@status="fail"])')
  for ((i = 1; i <= n; i++)); do
    printf '%s\n' "$(xpath "$project/ctest.xml" "string((//testcase[@status=\"fail\"])[$i]/@name)")"
  done | sort
}
output_of() { xpath "$project/ctest.xml" "string(//testcase[@name=\"$1\"]/system-out)"; }
# has TEST PATTERN WHY: the test's output matches the extended regex PATTERN.
has() { output_of "$1" | grep -qE -- "$2" || { output_of "$1" >&2; fail "$1: no $3 (/$2/)"; }; }
junit=$project/iobench-junit/log_lines.xml
case_names() {
  local n i
  n=$(xpath "$junit" 'count(//testcase)')
  for ((i = 1; i <= n; i++)); do
    printf '%s\n' "$(xpath "$junit" "string((//testcase)[$i]/@name)")"
  done
}
gtests="LineLogTest.AFewLinesAreOneWrite
LineLogTest.WritesAThousandLinesInThreeCalls"
table_row='^ +/tmp/line-log-test\.[A-Za-z0-9]+ +[0-9,]+ '  # the file's row of the trace table

build ""
[ "$(run_ctest)" = 0 ] || { cat "$scratch/ctest.log" >&2; fail "unchanged, a test failed"; }
[ -z "$(failed)" ] || fail "unchanged, failed: $(failed)"
[ "$(xpath "$junit" 'string(//testsuite/@name)')" = "iobench trace log_lines" ] ||
  fail "log_lines's JUnit suite: $(xpath "$junit" 'string(//testsuite/@name)')"
[ "$(xpath "$junit" 'string(//testsuite/@failures)')" = 0 ] || fail "log_lines's JUnit failed"
passing_cases=$(case_names)

build extra_writes
[ "$(run_ctest)" != 0 ] || fail "extra_writes: ctest passed"
[ "$(failed)" = "$gtests
log_lines" ] || fail "extra_writes: failed: $(failed)"
for t in $gtests; do
  has "$t" 'the trace:$' "matcher message"
  has "$t" "$table_row" "per-file table"
done
has LineLogTest.WritesAThousandLinesInThreeCalls 'line_log_test\.cc:[0-9]+: Failure' \
  "replayed assertion"
has LineLogTest.WritesAThousandLinesInThreeCalls 'two full buffers before the last one' \
  "replayed message"
has log_lines 'FAIL write_calls <= 3 \(measured 1000\)' "failed expectation"
has log_lines 'iobench: regression: log_lines\.write_calls: 3 → 1,000' "regression"
has log_lines "^$project/log\.txt +1,000 " "per-file table"
[ "$(case_names)" = "$passing_cases" ] ||
  fail "log_lines's JUnit cases differ: $(case_names) against $passing_cases"

build miscount
[ "$(run_ctest)" != 0 ] || fail "miscount: ctest passed"
[ "$(failed)" = LineLogTest.WritesAThousandLinesInThreeCalls ] ||
  fail "miscount: failed: $(failed)"
has LineLogTest.WritesAThousandLinesInThreeCalls 'line_log_test\.cc:[0-9]+: Failure' \
  "replayed assertion"
has LineLogTest.WritesAThousandLinesInThreeCalls 'Which is: 997' "the child's value"
has LineLogTest.WritesAThousandLinesInThreeCalls \
  'in the child process iobench::trace ran the callable in' "where it failed"
echo "sample_project_test: passed unchanged; extra_writes and miscount failed as they should"
