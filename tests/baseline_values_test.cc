// The values a baseline file holds, at the edges: how a count may be spelled in JSON, and how
// a median of any magnitude is compared and printed. Plain values, no process; the same
// files through the real binary are in baseline_file_test.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "base/error.h"
#include "check/baseline.h"
#include "report/baseline_table.h"
#include "report/reporter.h"

namespace iobench {
namespace {

/// A one-strategy baseline whose buffered.write_calls is spelled `calls` and whose median is
/// spelled `median`, as an edited file would have them.
std::string document(const std::string& calls, const std::string& median = "1000000") {
  return R"({"schema":"iobench/1","config":{"lines":100},"results":[{"strategy":"buffered",)"
         R"("status":"ok","write_calls":)" +
         calls + R"(,"time_ns":{"median":)" + median + "}}]}";
}

/// The message parse_baseline refuses `text` with, or "" when it accepts it.
std::string refusal(const std::string& text) {
  try {
    (void)parse_baseline(text, "b.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), kExitUsage);
    return e.what();
  }
  return "";
}

// A count is its value, however JSON spells it: nlohmann reads -0 as a signed integer and
// 1.0 or 1e3 as floating point, and those were once refused as "not a count".
TEST(BaselineCounts, ZeroAndIntegralFloatsAreCounts) {
  const std::pair<const char*, std::uint64_t> counts[] = {
      {"0", 0},
      {"-0", 0},
      {"-0.0", 0},
      {"1.0", 1},
      {"1e3", 1000},
      {"17", 17},
      {"18446744073709551615", UINT64_MAX},
      // The largest double below 2^64: whole, and it fits.
      {"18446744073709549568.0", 18446744073709549568ull},
  };
  for (const auto& [text, value] : counts) {
    const Baseline b = parse_baseline(document(text), "b.json");
    ASSERT_TRUE(b.rows.at("buffered").write_calls) << text;
    EXPECT_EQ(*b.rows.at("buffered").write_calls, value) << text;
  }
  const Baseline lines =
      parse_baseline(R"({"schema":"iobench/1","config":{"lines":100.0},"results":[]})", "b.json");
  EXPECT_EQ(lines.lines, 100u);
}

// nlohmann keeps the last of two equal keys: a file holding two must be refused, by its path.
TEST(BaselineKeys, AKeyTwiceInOneObjectIsNamedByItsPath) {
  EXPECT_EQ(refusal(R"({"schema":"iobench/1","schema":"iobench/1"})"),
            "--baseline b.json: schema appears twice (a key may appear once in an object)");
  EXPECT_EQ(refusal(R"({"schema":"iobench/1","config":{"lines":100},"results":[{"strategy":"a",)"
                    R"("status":"ok"},{"strategy":"b","status":"ok","syscalls":{"write":{"calls":)"
                    R"(1},"write":{"calls":2}}}]})"),
            "--baseline b.json: results[1].syscalls.write appears twice (a key may appear once in "
            "an object)");
  // The same key in two objects is two members.
  EXPECT_EQ(refusal(document("3")), "");
}

TEST(BaselineCounts, AFractionANegativeAndTwoToThe64AreNot) {
  const std::pair<const char*, const char*> bad[] = {
      {"1.5", "1.5"},
      {"-1", "-1"},
      {"-1.0", "-1.0"},
      {"0.5", "0.5"},
      {"1e30", "1e+30"},
      {"18446744073709551616", "1.8446744073709552e+19"},
      {"18446744073709551616.0", "1.8446744073709552e+19"},
      {"\"7\"", "\"7\""},
  };
  for (const auto& [text, shown] : bad)
    EXPECT_EQ(refusal(document(text)), std::string("--baseline b.json: buffered.write_calls is ") +
                                           shown +
                                           ", not a count (a whole number from 0 to 2^64-1)")
        << text;
  EXPECT_EQ(
      refusal(R"({"schema":"iobench/1","config":{"lines":1.5},"results":[]})"),
      "--baseline b.json: config.lines is 1.5, not a count (a whole number from 0 to 2^64-1)");
}

StrategyResult measured(std::int64_t median_ns) {
  StrategyResult r;
  r.strategy = "buffered";
  r.write_calls = 1;
  r.time_ns = summarize({median_ns, median_ns, median_ns});
  return r;
}

/// The "buffered.time (median)" diff of a baseline median `was` against a run's `is`.
BaselineDiff time_diff(const std::string& was, std::int64_t is) {
  const Baseline b = parse_baseline(document("1", was), "b.json");
  RunRecord after;
  after.lines = 100;
  after.results = {measured(is)};
  for (const BaselineDiff& d : compare_with_baseline(b, after, {}).diffs)
    if (d.metric == "time (median)") return d;
  ADD_FAILURE() << "no time diff for " << was;
  return {};
}

// Every magnitude a file may hold prints in a few characters: a median of 1e-300 ns once
// printed its change as a percentage of 300 digits. Up to +900% the change is a
// percentage, then a factor, capped at >999×; the numbers keep format_duration's units
// wherever a run can land and three significant digits beyond.
TEST(BaselineTimes, EveryMagnitudePrintsInAFewCharacters) {
  struct Case {
    const char* was;
    std::int64_t is;
    const char* before;
    const char* after;
    const char* change;
    bool regression;
  };
  const Case cases[] = {
      {"1000000", 1000000, "1.00 ms", "1.00 ms", "+0.0%", false},
      {"1000000", 1250000, "1.00 ms", "1.25 ms", "+25.0%", false},
      {"1000000", 1260000, "1.00 ms", "1.26 ms", "+26.0%", true},
      {"1000000", 9990000, "1.00 ms", "9.99 ms", "+899.0%", true},
      {"1000000", 10000000, "1.00 ms", "10.00 ms", "10×", true},
      {"1000000", 123400000, "1.00 ms", "123.40 ms", "123×", true},
      {"1000000", 999400000, "1.00 ms", "999.40 ms", "999×", true},
      {"1000000", 999600000, "1.00 ms", "999.60 ms", ">999×", true},
      {"1e-300", 1000000, "1e-300 ns", "1.00 ms", ">999×", true},
      {"5e-324", 1000000, "4.94e-324 ns", "1.00 ms", ">999×", true},  // ratio: infinity
      {"0.5", 1000000, "0.5 ns", "1.00 ms", ">999×", true},
      {"1e300", 1000000, "1e+300 ns", "1.00 ms", "-100.0%", false},
      {"1e15", 1000000, "1e+15 ns", "1.00 ms", "-100.0%", false},
      {"999999999999999", 1000000, "1000000.00 s", "1.00 ms", "-100.0%", false},
      {"2000000", 1000000, "2.00 ms", "1.00 ms", "-50.0%", false},
  };
  for (const Case& c : cases) {
    const BaselineDiff d = time_diff(c.was, c.is);
    const BaselineCells cells = baseline_cells(d);
    EXPECT_EQ(cells.before, c.before) << c.was;
    EXPECT_EQ(cells.after, c.after) << c.was << " → " << c.is;
    EXPECT_EQ(cells.change, c.change) << c.was << " → " << c.is;
    EXPECT_EQ(d.regression, c.regression) << c.was << " → " << c.is;
    for (const std::string* cell : {&cells.before, &cells.after, &cells.change})
      EXPECT_LE(cell->size(), 16u) << *cell;  // the 150-digit change was the bug
  }
}

}  // namespace
}  // namespace iobench
