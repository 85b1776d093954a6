// A flag that several commands take is declared once, in a flag group (src/cli/flag_groups.h,
// tracer_flags.h): the same bad value gets the same one-line error, and the same value the
// same meaning, from every command that takes it.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "run/run_plan.h"
#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;

struct SharedFlag {
  std::vector<std::string> flag;  // the flag and its bad value
  std::string error;              // the whole line each command prints
  bool trace = false;             // `iobench trace` takes it too
};

void PrintTo(const SharedFlag& p, std::ostream* os) {
  for (const std::string& w : p.flag) *os << w << ' ';
}

class SharedFlags : public ::testing::TestWithParam<SharedFlag> {};

TEST_P(SharedFlags, TheSameBadValueGetsTheSameLineFromEveryCommand) {
  const SharedFlag& p = GetParam();
  std::vector<std::vector<std::string>> command_lines;
  std::vector<std::string> bench = p.flag, compare = {"compare"};
  compare.insert(compare.end(), p.flag.begin(), p.flag.end());
  compare.push_back("/bin/true");
  command_lines = {bench, compare};
  if (p.trace) {
    std::vector<std::string> trace = {"trace"};
    trace.insert(trace.end(), p.flag.begin(), p.flag.end());
    trace.insert(trace.end(), {"--", "/bin/true"});
    command_lines.push_back(trace);
  }
  for (const auto& args : command_lines) {
    const ProcessOutput r = iobench(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_EQ(r.err, "iobench: error: " + p.error + "\n") << args[0];
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cli, SharedFlags,
    ::testing::Values(
        SharedFlag{{"--timeout", "abc"},
                   "--timeout: 'abc' is not a duration (e.g. 30s, 500ms, 2m; a bare number is "
                   "seconds)",
                   true},
        SharedFlag{
            {"--timeout", "0"}, "--timeout: '0' is out of range (above 0, at most 1000000s)", true},
        SharedFlag{{"--runs", "0"}, "--runs: 0 is out of range (1 to 100000)"},
        SharedFlag{{"--runs", "abc"}, "--runs: 'abc' is not a whole number"},
        SharedFlag{{"--runs", "-1"}, "--runs: '-1' is negative"},
        SharedFlag{{"--warmup", "100001"}, "--warmup: 100001 is out of range (0 to 100000)"},
        SharedFlag{{"--format", "xml"},
                   "--format: unknown format 'xml' (table, json, csv, markdown)"},
        SharedFlag{{"--color", "blue"}, "--color: unknown mode 'blue' (auto, always, never)"},
        SharedFlag{{"--sort", "size"}, "--sort: unknown order 'size' (name, time, syscalls)"},
        SharedFlag{{"--columns", "10"}, "--columns: 10 is out of range (60 to 10000)"},
        SharedFlag{{"--tracer", "nope"},
                   "--tracer: unknown backend 'nope' (ptrace, perf, bpf, auto)",
                   true}));

CompareOptions compare_options(const std::vector<std::string>& words) {
  std::vector<std::string> args = words;
  args.push_back("/bin/true");
  return parse_compare(args);
}

TEST(SharedFlagValues, CompareTakesTheRunsTheBenchRunTakesAuto) {
  EXPECT_EQ(compare_options({"--runs", "auto"}).run.runs, std::nullopt);
  EXPECT_EQ(compare_options({"--runs", "3"}).run.runs, 3);
  EXPECT_EQ(compare_options({}).run.runs, 5);  // compare's default, unchanged
}

TEST(SharedFlagValues, AFlagGivenTwiceTakesItsLastValueInCompareToo) {
  EXPECT_EQ(compare_options({"--runs", "2", "--runs", "7"}).run.runs, 7);
  EXPECT_EQ(compare_options({"--format", "xml", "--format", "json"}).format, OutputFormat::kJson);
  // ... while the list-valued words keep every value: two names, two commands.
  const CompareOptions two = parse_compare({"-n", "a", "/bin/true", "-n", "b", "/bin/false"});
  ASSERT_EQ(two.commands.size(), 2u);
  EXPECT_EQ(two.commands[0].name, "a");
  EXPECT_EQ(two.commands[1].name, "b");
  EXPECT_EQ(two.commands[1].command, "/bin/false");
}

}  // namespace
}  // namespace iobench
