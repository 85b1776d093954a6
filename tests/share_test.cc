// The share of time and the syscall time's uncertainty on plain result values: a share is the
// traced run's syscall time over the untraced median, never shown above 100%, and an
// uncertain time is never a number.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/plot.h"
#include "report/reporter.h"
#include "run/runner.h"

namespace iobench {
namespace {

/// A traced row: `time_ns` of syscalls ± `ci_ns`, in a traced child that used `cpu_ns` of
/// CPU, the tracer's stops included.
StrategyResult traced_row(std::int64_t time_ns, std::int64_t ci_ns, std::int64_t cpu_ns) {
  StrategyResult r;
  r.strategy = "unbuffered";
  r.bytes = 1088890;
  r.verified = true;
  r.time_ns = summarize({100'000'000, 100'000'000, 100'000'000});
  r.cpu_ns = r.time_ns;
  r.write_calls = 100000;
  r.timed_calls = 10000;
  r.syscall_time_ns = time_ns;
  r.syscall_time_ci95_ns = ci_ns;
  r.traced_time_ns = 900'000'000;
  TraceResult t;
  t.available = true;
  t.ptrace.emplace().cpu_ns = cpu_ns;
  r.trace = t;
  set_syscall_share(r);
  return r;
}

/// The demo's traced run, holding `rows`.
RunRecord traced_report(std::vector<StrategyResult> rows) {
  RunRecord rep;
  rep.lines = 100000;
  rep.bytes = 1088890;
  rep.traced = true;
  rep.results = std::move(rows);
  return rep;
}

TEST(SyscallShare, IsOverTheUntracedMedian) {
  // 60 ms of the untraced 100 ms; not of the traced run's 900 ms of CPU.
  const StrategyResult r = traced_row(60'000'000, 5'000'000, 900'000'000);
  ASSERT_TRUE(r.syscall_share);
  EXPECT_DOUBLE_EQ(*r.syscall_share, 0.6);
}

// bpf: the traced run's own time less what tracing cost it and its waits for a CPU is the
// share's whole; its distance from the untraced median says whether the run went at the
// host's usual speed (runner.cc traces again above kTracedSpeedAgreement).
TEST(SyscallShare, OneClockRunIsHeldToTheUntracedMedian) {
  StrategyResult r = traced_row(95'000'000, 1'000'000, 900'000'000);
  EXPECT_FALSE(traced_speed_gap(r)) << "ptrace: no cost measured beside the run";
  r.time_less_cpu_waits_ns = 100'000'000;
  r.trace->ptrace.reset();
  r.trace->tracing_cost_ns = 60'000'000;
  r.trace->cpu_wait_ns = 2'000'000;
  r.traced_time_ns = 165'000'000;  // 103 ms of its own
  set_syscall_share(r);
  ASSERT_TRUE(r.syscall_share);
  EXPECT_NEAR(*r.syscall_share, 95.0 / 103.0, 1e-9) << "one clock: over the run's own time";
  EXPECT_FALSE(traced_speed_gap(r)) << "its cost was an earlier run's: tracing again cannot help";
  r.trace->cost_measured_beside = true;
  ASSERT_TRUE(traced_speed_gap(r));
  EXPECT_NEAR(*traced_speed_gap(r), 0.03, 1e-9);
  EXPECT_LE(*traced_speed_gap(r), kTracedSpeedAgreement);
  r.traced_time_ns = 152'000'000;  // 90 ms: the host ran faster than in the untraced runs
  EXPECT_NEAR(*traced_speed_gap(r), 0.10, 1e-9);
  EXPECT_GT(*traced_speed_gap(r), kTracedSpeedAgreement);
}

// A run away from the untraced median is traced again while the redos' budget (a share of
// the rows' timed runs) holds one more such attempt, and at most kTracedRedos times.
TEST(SyscallShare, TracedAgainWithinTheRedoBudget) {
  const double away = kTracedSpeedAgreement * 2, near = kTracedSpeedAgreement / 2;
  EXPECT_TRUE(trace_again(away, 0, 300, 1000));
  EXPECT_TRUE(trace_again(away, 0, 1000, 1000)) << "exactly fits";
  EXPECT_FALSE(trace_again(away, 0, 1001, 1000)) << "over the budget";
  EXPECT_FALSE(trace_again(near, 0, 300, 1000)) << "went at the untraced speed";
  EXPECT_FALSE(trace_again(std::nullopt, 0, 300, 1000)) << "no gap measured";
  EXPECT_TRUE(trace_again(away, kTracedRedos - 1, 300, 1000));
  EXPECT_FALSE(trace_again(away, kTracedRedos, 300, 1000)) << "at most kTracedRedos";
}

TEST(SyscallShare, NeverAboveOne) {
  // Above 1 within its own error: read as "all of it".
  StrategyResult r = traced_row(105'000'000, 10'000'000, 900'000'000);
  ASSERT_TRUE(r.syscall_share);
  EXPECT_DOUBLE_EQ(*r.syscall_share, 1.0);
  // Above 1 beyond its error: the correction is off; no share at all.
  r = traced_row(150'000'000, 10'000'000, 900'000'000);
  EXPECT_FALSE(r.syscall_share);
  RunRecord rep = traced_report({r});
  const std::string table = render_table(rep, {});
  EXPECT_EQ(table.find("150%"), std::string::npos) << table;
  EXPECT_NE(table.find("above the untraced median time"), std::string::npos) << table;
  const auto doc = nlohmann::json::parse(render_json(rep));
  EXPECT_TRUE(doc["results"][0]["syscall_share"].is_null());
}

// bpf: a share over the traced run's own time that came out above it; the footnote names
// that whole, not the untraced median.
TEST(SyscallShare, FootnoteNamesTheWholeTheShareWasOver) {
  StrategyResult r = traced_row(150'000'000, 1'000'000, 900'000'000);
  r.trace->ptrace.reset();
  r.trace->tracing_cost_ns = 60'000'000;
  r.traced_time_ns = 165'000'000;  // 105 ms of its own, 150 ms of syscalls
  set_syscall_share(r);
  EXPECT_FALSE(r.syscall_share);
  RunRecord rep = traced_report({r});
  std::string table = render_table(rep, {});
  EXPECT_NE(table.find("above the traced run's own time"), std::string::npos) << table;
  EXPECT_EQ(table.find("untraced median"), std::string::npos) << table;
  // Beside a ptrace row whose share was over the untraced median: both notes, once each.
  rep.results.push_back(traced_row(150'000'000, 10'000'000, 900'000'000));
  rep.results.push_back(rep.results.front());
  table = render_table(rep, {});
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = table.find(what); at != std::string::npos; at = table.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("% of time —:"), 2U) << table;
  EXPECT_EQ(count("above the untraced median time"), 1U) << table;
}

TEST(SyscallShare, UncertainTimeIsADashNotANumber) {
  // A 95% interval that holds 0: no time, no share, and the footnote says why.
  const StrategyResult r = traced_row(2'000'000, 3'000'000, 900'000'000);
  EXPECT_TRUE(syscall_time_uncertain(r));
  EXPECT_FALSE(r.syscall_share);
  RunRecord rep = traced_report({r});
  const std::string table = render_table(rep, {});
  EXPECT_EQ(table.find("2.00 ms"), std::string::npos) << table;
  EXPECT_NE(table.find("(its 95%\n  interval holds zero"), std::string::npos) << table;
}

TEST(SyscallShare, SampledTimeIsMarkedWithItsSample) {
  const StrategyResult r = traced_row(60'000'000, 5'000'000, 900'000'000);
  RunRecord rep = traced_report({r});
  const std::string table = render_table(rep, {});
  EXPECT_NE(table.find("≈60.00 ms"), std::string::npos) << table;
  EXPECT_NE(table.find("unbuffered 10,000 of 100,000"), std::string::npos) << table;
  const auto doc = nlohmann::json::parse(render_json(rep));
  EXPECT_EQ(doc["results"][0]["timed_calls"], 10000);
  EXPECT_EQ(doc["results"][0]["syscall_time_ci95_ns"][0], 55'000'000);
}

TEST(Latency, ColumnsAndOneCdfLinePerTimedRow) {
  StrategyResult timed = traced_row(60'000'000, 5'000'000, 900'000'000);
  timed.latency =
      LatencySummary{450, 600, 1'100, 20'000, 95'000, {{300, 0.0}, {450, 0.5}, {95'000, 1.0}}};
  StrategyResult untimed = traced_row(60'000'000, 5'000'000, 900'000'000);
  untimed.strategy = "format-only";
  const RunRecord rep = traced_report({timed, untimed});
  EXPECT_EQ(render_table(rep, {}).find("p99"), std::string::npos);  // only with --latency
  const std::string table = render_table(rep, {.latency = true});
  EXPECT_NE(table.find("p99"), std::string::npos) << table;
  EXPECT_NE(table.find("450 ns"), std::string::npos) << table;
  EXPECT_NE(table.find("1.1 µs"), std::string::npos) << table;
  EXPECT_NE(table.find("95.0 µs"), std::string::npos) << table;
  const std::string plot = latency_plot_script(rep, {});
  EXPECT_NE(plot.find("title \"unbuffered\""), std::string::npos) << plot;
  EXPECT_EQ(plot.find("title \"format-only\""), std::string::npos) << plot;  // nothing timed
  EXPECT_NE(plot.find("logscale x"), std::string::npos) << plot;
  const auto doc = nlohmann::json::parse(render_json(rep));
  EXPECT_EQ(doc["results"][0]["latency_ns"]["p999"], 20'000);
  EXPECT_TRUE(doc["results"][1]["latency_ns"].is_null());
}

}  // namespace
}  // namespace iobench
