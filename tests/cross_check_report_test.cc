// --cross-check's line and JSON, from plain values: shown only when the run had it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/run_record.h"
#include "report/reporter.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

CrossCheck measured() {
  CrossCheck c;
  c.calls = c.kernel_calls = 100000;
  c.estimate_ns = 97'000'000;
  c.estimate_ci95_ns = 2'000'000;
  c.kernel_ns = 100'000'000;
  c.kernel_ci95_ns = 1'000'000;
  c.ratio = 0.97;
  c.ratio_ci95 = 0.0216;
  return c;
}

TEST(CrossCheckLine, RatioIntervalAndCalls) {
  EXPECT_EQ(cross_check_line(measured()),
            "ptrace estimate / kernel clock: 0.97 ± 0.02 (same 100,000 calls)\n");
  CrossCheck other = measured();
  other.kernel_calls = 99999;
  EXPECT_EQ(cross_check_line(other, "unbuffered"),
            "ptrace estimate / kernel clock (unbuffered): 0.97 ± 0.02 (ptrace 100,000 calls, "
            "kernel 99,999)\n");
  EXPECT_EQ(cross_check_line(CrossCheck{.unavailable_reason = "kernel clock: no root"}),
            "ptrace estimate / kernel clock: — (kernel clock: no root)\n");
}

TEST(CrossCheckLine, TraceTableAndJsonOnlyUnderTheFlag) {
  TraceRecord rep;
  rep.command = {"true"};
  rep.trace.available = true;
  const std::string plain = render(OutputFormat::kTable, rep);
  EXPECT_EQ(plain.find("kernel clock"), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(render_trace_json(rep)).contains("cross_check"));
  rep.trace.cross_check = measured();
  EXPECT_NE(render(OutputFormat::kTable, rep).find("/ kernel clock: 0.97"), std::string::npos);
  const auto doc = nlohmann::json::parse(render_trace_json(rep));
  EXPECT_EQ(doc["cross_check"]["ratio"], 0.97);
  EXPECT_EQ(doc["cross_check"]["calls"], 100000);
  EXPECT_EQ(doc["cross_check"]["unavailable"], nullptr);
}

}  // namespace
}  // namespace iobench
