// A traced run whose tracer cost could not be calibrated: its syscall times are unknown,
// the table says why in a footnote and the JSON in `syscall_time_unavailable`, never a 0
// and never "a quieter machine".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/reporter.h"
#include "sample_report.h"

namespace iobench {
namespace {

const std::string kWhy =
    "tracer calibration: cannot write its one block in /mnt/full: No space left on device";

/// The sample report, every row traced as a run without a calibration is (tracer.cc).
RunRecord uncalibrated_report() {
  RunRecord rep = testing::sample_report();
  for (StrategyResult& r : rep.results) {
    if (!r.trace) continue;  // the failed row
    r.trace->time_unavailable_reason = kWhy;
    r.syscall_time_ns.reset();
    r.syscall_share.reset();
  }
  return rep;
}

TEST(Uncalibrated, TheTableSaysWhyOnceAndShowsNoTime) {
  const std::string t = render_table(uncalibrated_report(), {});
  const std::string note = "syscall time —: " + kWhy + ".";
  ASSERT_NE(t.find(note), std::string::npos) << t;
  EXPECT_EQ(t.find(note, t.find(note) + 1), std::string::npos) << "one note for one reason";
  EXPECT_EQ(t.find("quieter machine"), std::string::npos) << t;
  EXPECT_NE(t.find("tracer cost per call not calibrated"), std::string::npos) << t;
  EXPECT_EQ(t.find("tracer cost per call subtracted"), std::string::npos) << t;
  const std::size_t row = t.find("\nunbuffered ");
  const std::string line = t.substr(row + 1, t.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("—"), std::string::npos) << line;
}

TEST(Uncalibrated, TheJsonSaysWhyAndHasNullTimes) {
  const auto doc = nlohmann::json::parse(render_json(uncalibrated_report()));
  EXPECT_EQ(doc["config"]["tracer"]["overhead_ns"], nullptr);
  for (const auto& r : doc["results"]) {
    if (r["status"] != "ok") continue;
    EXPECT_EQ(r["syscall_time_unavailable"], kWhy) << r["strategy"];
    EXPECT_EQ(r["syscall_time_ns"], nullptr) << r["strategy"];
    EXPECT_NE(r["write_calls"], nullptr) << "the counts stay";
  }
}

TEST(Uncalibrated, ACalibratedRunHasNoReason) {
  const auto doc = nlohmann::json::parse(render_json(testing::sample_report()));
  EXPECT_EQ(doc["config"]["tracer"]["overhead_ns"], 3600);
  for (const auto& r : doc["results"]) EXPECT_EQ(r["syscall_time_unavailable"], nullptr);
  EXPECT_EQ(render_table(testing::sample_report(), {}).find("not calibrated"), std::string::npos);
}

// The kernel clock's bias is negative where its interval misses the syscall entry and exit
// path (~1 us a call on some hosts): the footer says it was added, never "-997 ns ... subtracted".
TEST(Uncalibrated, ANegativeKernelClockBiasIsSaidAsAdded) {
  RunRecord rep = testing::sample_report();
  rep.tracer_backend = "bpf";
  rep.pinned = false;
  rep.tracer_overhead_ns = -997;
  const std::string t = render_table(rep, {});
  EXPECT_NE(t.find("997 ns kernel clock bias per call added"), std::string::npos) << t;
  EXPECT_EQ(t.find("-997"), std::string::npos) << t;
  rep.tracer_overhead_ns = 120;
  EXPECT_NE(render_table(rep, {}).find("120 ns kernel clock bias per call subtracted"),
            std::string::npos);
}

// The reason names --dir, which is the user's bytes: a directory named with ESC and a
// newline must neither drive the terminal nor start a line of its own in either table.
const std::string kOddWhy =
    "tracer calibration: cannot create its file in /tmp/a\x1b[2J\nb: "
    "Permission denied";
const std::string kOddShown = "/tmp/a\\x1b[2J\\nb: Permission denied.";

TEST(Uncalibrated, TheBenchFootnoteEscapesTheDirectory) {
  RunRecord rep = uncalibrated_report();
  for (StrategyResult& r : rep.results)
    if (r.trace) r.trace->time_unavailable_reason = kOddWhy;
  const std::string t = render_table(rep, {});
  EXPECT_NE(t.find(kOddShown), std::string::npos) << t;
  EXPECT_EQ(t.find('\x1b'), std::string::npos) << t;
}

TEST(Uncalibrated, TheTraceFooterEscapesTheDirectory) {
  TraceRecord rep;
  rep.trace.available = true;
  rep.trace.mode = TraceMode::kTiming;
  rep.trace.time_unavailable_reason = kOddWhy;
  const std::string t = render_trace_table(rep);
  EXPECT_NE(t.find(kOddShown), std::string::npos) << t;
  EXPECT_EQ(t.find('\x1b'), std::string::npos) << t;
}

}  // namespace
}  // namespace iobench
