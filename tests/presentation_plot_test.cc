// A run's charts (--plot) as an audience sees them: one titled bar per row in every panel,
// names quoted for gnuplot, titles that name the filesystems and what the share is over, a
// latency axis that starts where the calls' times do, the format chosen by the extension
// (and refused before anything runs), SVGs that parse (xmllint) and draw (rsvg-convert).
// Fast on purpose: small N, one run, no warm-up.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "presentation_test.h"
#include "report/plot.h"
#include "report/reporter.h"
#include "run_process.h"

namespace iobench {
namespace {

using nlohmann::json;
using testing::count;
using testing::every_strategy;
using testing::expect_svg_draws;
using testing::iobench;
using testing::iobench_env;
using testing::mark_titles;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;

TEST(Plot, ComparisonChartHasOneBarPerStrategyInEachPanelAndDraws) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/cmp.svg", results = dir.path() + "/r.json";
  ProcessOutput r = iobench({"--lines", "1000", "--runs", "1", "--warmup", "0", "--dir", dir.path(),
                             "--plot", svg, "--export-json", results});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(svg);
  ASSERT_FALSE(text.empty());
  const auto marks = mark_titles(text);
  const json doc = json::parse(slurp(results));  // a range-for over a temporary's member dangles
  for (const json& res : doc["results"]) {
    // Three panels (time, write calls, share in syscalls); a row that did not measure
    // (io_uring where rings are refused) has no bar.
    const std::string name = res["strategy"];
    EXPECT_EQ(count(marks, name), res["status"] == "ok" ? 3 : 0) << name;
  }
  EXPECT_NE(text.find("1,000 lines"), std::string::npos) << "the title names N";
  EXPECT_NE(text.find("CPUs"), std::string::npos) << "and the machine";
  expect_svg_draws(svg);
}

TEST(Plot, ScriptsQuoteAnyName) {
  RunRecord rep = every_strategy();
  rep.results[0].strategy = R"(we"ird \ name)";
  const std::string s = comparison_plot_script(rep, {});
  // The label reads as the table shows the name (a backslash as \\, README "Names with any
  // bytes"), each of those characters then escaped for gnuplot.
  EXPECT_NE(s.find(R"("we\"ird \\\\ name")"), std::string::npos) << s;
}

TEST(Plot, MissingGnuplotIsAUsageErrorBeforeAnythingRuns) {
  ScratchDir dir;
  ProcessOutput r = iobench_env({"PATH=/nonexistent"}, {"--lines", "100", "--dir", dir.path(),
                                                        "--plot", dir.path() + "/x.svg"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "iobench: error: --plot needs gnuplot (apt-get install gnuplot-nox)\n");
  EXPECT_EQ(dir.entries(), 0);
  ProcessOutput nodir =
      iobench({"--lines", "100", "--dir", dir.path(), "--plot", "/nonexistent/x.svg"});
  EXPECT_EQ(nodir.status, 2) << nodir.err;
}

// The extension chooses gnuplot's terminal: the file holds that format's bytes, whatever
// its case.
TEST(Plot, TheExtensionChoosesTheFormat) {
  ScratchDir dir, out;
  const std::vector<std::pair<std::string, std::string>> formats = {
      {"x.png", "\x89PNG\r\n\x1a\n"}, {"x.pdf", "%PDF"}, {"x.svg", "<?xml"}, {"X.PNG", "\x89PNG"}};
  for (const auto& [name, magic] : formats) {
    const std::string path = out.path() + "/" + name;
    ProcessOutput r =
        iobench({"--lines", "1000", "--strategy", "buffered,stdio", "--runs", "1", "--warmup", "0",
                 "--count-only", "--dir", dir.path(), "--plot", path});
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const std::string bytes = slurp(path);
    EXPECT_EQ(bytes.substr(0, magic.size()), magic) << name;
    if (name == "x.svg") {
      EXPECT_NE(bytes.find("<svg"), std::string::npos);
    }
    if (name == "x.pdf") {
      EXPECT_NE(bytes.find("%%EOF"), std::string::npos) << "a whole PDF";
    }
  }
}

TEST(Plot, AnUnknownOrMissingExtensionIsAUsageErrorBeforeAnythingRuns) {
  ScratchDir dir, out;
  for (const std::string name : {"x.bmp", "chart", "x.svg.gz"}) {
    const std::string path = out.path() + "/" + name;
    const std::string error = "iobench: error: --plot: " + path +
                              ": not .svg, .png or .pdf (the extension chooses the format)\n";
    ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered", "--runs", "1", "--keep",
                               "--dir", dir.path(), "--plot", path});
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_EQ(r.out, "") << name;
    EXPECT_EQ(r.err, error);
    ProcessOutput sweep =
        iobench({"sweep", "--strategy", "buffered", "--buffer-size", "1K,4K", "--lines", "100",
                 "--runs", "1", "--keep", "--dir", dir.path(), "--plot", path});
    EXPECT_EQ(sweep.status, 2) << name;
    EXPECT_EQ(sweep.err, error);
    EXPECT_EQ(dir.entries(), 0) << "a strategy ran: " << name;
    EXPECT_EQ(out.entries(), 0) << "a file was left: " << name;
  }
}

// The latency axis starts at the smallest curve's 1st percentile: calls the correction took
// too much from (1-2 ns) would stretch it over decades where no call's time lies.
TEST(Plot, LatencyAxisStartsAtTheFirstPercentileNotAtOverCorrectedCalls) {
  RunRecord rep = every_strategy();
  rep.results.resize(2);
  rep.results[0].latency = LatencySummary{
      450, 600, 1'100, 20'000, 95'000, {{1, 0.004}, {2, 0.008}, {400, 0.2}, {95'000, 1.0}}};
  rep.results[1].latency =
      LatencySummary{900, 1'000, 2'000, 3'000, 9'000, {{800, 0.5}, {9'000, 1.0}}};
  const std::string s = latency_plot_script(rep, {});
  EXPECT_NE(s.find("set xrange [320:*]\n"), std::string::npos) << s;  // 400 ns, a little room
  EXPECT_NE(s.find("set key outside"), std::string::npos) << "the key sits on no curve";
}

TEST(Plot, TitlesListTheFilesystemsAndTheShareLabelSaysWhatItIsOver) {
  RunRecord rep = every_strategy();
  rep.filesystem = "ext4,tmpfs,ext4";
  const std::string s = comparison_plot_script(rep, {});
  EXPECT_NE(s.find("on ext4 and tmpfs ·"), std::string::npos) << s;
  EXPECT_NE(s.find(R"(set xlabel "syscall time over the\nuntraced median time")"),
            std::string::npos)
      << s;
  rep.results[0].trace->tracing_cost_ns = 1000;  // bpf: the traced run's own time, one clock
  rep.results[0].traced_time_ns = 2'000'000;
  EXPECT_NE(comparison_plot_script(rep, {}).find("run's\\nown time less what tracing cost it"),
            std::string::npos);
}

}  // namespace
}  // namespace iobench
