// Adding a knob is data: every row of the knob table (strategies/knobs.cc) must reach the CLI,
// every JSON config block, sweeps and baselines, and every strategy's declared knob must be
// a row. These tests walk the table, so a new row is checked without a new test.
#include "strategies/knobs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "base/error.h"
#include "check/baseline.h"
#include "cli/cli.h"
#include "report/json_result.h"
#include "report/reporter.h"
#include "strategies/registry.h"

namespace iobench {
namespace {

/// A value the flag accepts that differs from StrategyParams' default.
std::vector<std::string> words_setting(const Knob& k) {
  switch (k.kind) {
    case KnobKind::kSize:
      return {std::string(k.flag), "8192"};  // a page multiple, >= a line
    case KnobKind::kCount:
      return {std::string(k.flag), "2"};
    case KnobKind::kPolicy:
      return {std::string(k.flag), "end"};
    case KnobKind::kSwitch:
      return {std::string(k.flag)};
  }
  return {};
}

BenchOptions parse_bench(const std::vector<std::string>& extra) {
  std::vector<const char*> argv = {"iobench", "-n", "10", "-s", "buffered"};
  for (const auto& w : extra) argv.push_back(w.c_str());
  Command cmd = parse_command_line(static_cast<int>(argv.size()), argv.data());
  auto* o = std::get_if<BenchOptions>(&cmd);
  if (!o) throw std::runtime_error("not a bench run");
  return *o;
}

RunRecord report_of(const StrategyParams& params) {
  RunRecord rep;
  rep.lines = params.lines;
  rep.params = params;
  return rep;
}

TEST(KnobTable, EveryKnobHasAFlagTheCliAcceptsAndItsOwnConfigKey) {
  const nlohmann::json defaults = config_json(report_of(parse_bench({}).params));
  for (const Knob& k : all_knobs()) {
    SCOPED_TRACE(std::string(k.name));
    const BenchOptions o = parse_bench(words_setting(k));
    const nlohmann::json config = config_json(report_of(o.params));
    const std::string key(k.name);
    ASSERT_TRUE(config.contains(key));
    EXPECT_NE(config[key], defaults[key]) << "the flag did not reach its config key";
    // Only this knob moved: the row's parse sets its own member and no other.
    for (const Knob& other : all_knobs()) {
      if (other.name == k.name) continue;
      EXPECT_EQ(config[std::string(other.name)], defaults[std::string(other.name)]) << other.name;
    }
  }
}

TEST(KnobTable, EveryDeclaredKnobIsARowAndEveryRowHasAUser) {
  for (const Strategy* s : all_strategies())
    for (std::string_view k : s->knobs)
      EXPECT_NE(find_knob(k), nullptr) << s->name << " declares unknown knob " << k;
  for (const Knob& k : all_knobs()) {
    if (k.every_strategy) continue;
    EXPECT_FALSE(strategies_using(k).empty()) << k.name << " is read by no strategy";
  }
}

TEST(KnobTable, EverySweepableKnobSweepsForItsStrategiesOnly) {
  for (const Knob& k : all_knobs()) {
    if (!k.sweepable) continue;
    SCOPED_TRACE(std::string(k.name));
    const std::vector<std::string> users = strategies_using(k);
    const std::string user = users.empty() ? "buffered" : users.front();
    const std::string list = k.kind == KnobKind::kSize ? "4096,8192" : "2,4";
    const SweepOptions s = parse_sweep({"-n", "10", "-s", user, std::string(k.flag), list});
    EXPECT_EQ(s.parameter, k.name);
    EXPECT_EQ(s.runs.size(), 2u);
    if (users.empty()) continue;
    for (const Strategy* other : all_strategies()) {
      if (std::find(users.begin(), users.end(), other->name) != users.end()) continue;
      EXPECT_ANY_THROW(
          parse_sweep({"-n", "10", "-s", std::string(other->name), std::string(k.flag), list}))
          << other->name;
    }
  }
}

TEST(KnobTable, TheBaselineShowsAChangeOfEveryKnob) {
  const StrategyParams defaults = parse_bench({}).params;
  const Baseline before = parse_baseline(render_json(report_of(defaults)), "test");
  for (const Knob& k : all_knobs()) {
    SCOPED_TRACE(std::string(k.name));
    const BaselineComparison cmp =
        compare_with_baseline(before, report_of(parse_bench(words_setting(k)).params), {});
    ASSERT_EQ(cmp.config_changes.size(), 1u);
    EXPECT_EQ(cmp.config_changes[0].rfind(std::string(k.name) + " ", 0), 0u)
        << cmp.config_changes[0];
  }
}

/// The message a bad knob value is refused with, exit 2 (empty when it is accepted).
std::string refusal(const std::vector<std::string>& words) {
  try {
    parse_bench(words);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_status(), 2) << e.what();
    return e.what();
  }
  return "";
}

TEST(KnobTable, TheRowsRefuseBadValuesWithTheirExactMessages) {
  EXPECT_EQ(refusal({"--buffer-size", "0"}), "--buffer-size: must be at least 1 byte");
  EXPECT_EQ(refusal({"--buffer-size", "2G"}), "--buffer-size: at most 1GiB");
  EXPECT_EQ(refusal({"--stdio-buffer", "1025M"}), "--stdio-buffer: at most 1GiB");
  EXPECT_EQ(refusal({"--batch", "0"}), "--batch: 0 is out of range (1 to 1024)");
  EXPECT_EQ(refusal({"--queue-depth", "32769"}),
            "--queue-depth: 32769 is out of range (1 to 32768)");
  const long page = ::sysconf(_SC_PAGESIZE);
  EXPECT_EQ(refusal({"--map-window", "100"}),
            "--map-window: 100 is not a multiple of the page size (" + std::to_string(page) + ")");
  EXPECT_EQ(refusal({"--line-length", "4"}),
            "--line-length 4 is too short for 10 lines: at least 7 bytes");
  EXPECT_EQ(refusal({"--line-length", "65537"}),
            "--line-length 65537: at most 64KiB (65536 bytes)");
  EXPECT_EQ(refusal({"--sync", "often"}), "--sync: unknown policy 'often' (none, end, every:N)");
  EXPECT_EQ(refusal({"--batch", "2x"}), "--batch: '2x' is not a whole number");  // cli's words
  // An empty --line-length keeps unpadded lines, as it always did.
  EXPECT_EQ(refusal({"--line-length", ""}), "");
  EXPECT_EQ(parse_bench({"--line-length", ""}).params.line_length, 0u);
}

TEST(KnobTable, ARowJudgesAParsedValueWithoutTheCli) {
  const Knob* k = find_knob("queue_depth");
  ASSERT_NE(k, nullptr);
  StrategyParams p;
  EXPECT_EQ(k->set(*k, std::uint64_t{0}, "0", p), "--queue-depth: 0 is out of range (1 to 32768)");
  EXPECT_EQ(p.queue_depth, StrategyParams{}.queue_depth) << "a refused value is not stored";
  EXPECT_EQ(k->set(*k, std::uint64_t{8}, "8", p), "");
  EXPECT_EQ(p.queue_depth, 8u);
}

}  // namespace
}  // namespace iobench
