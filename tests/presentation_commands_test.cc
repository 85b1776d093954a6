// The other commands as an audience sees them: `iobench sweep` (its knee, table, JSON and
// chart) and `iobench compare` on real programs with exact counts. Fast on purpose: small
// N, one run, no warm-up.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cli/cli.h"
#include "presentation_test.h"
#include "report/sweep_report.h"
#include "run/command_workload.h"
#include "run_process.h"
#include "strategies/support/line_format.h"

namespace iobench {
namespace {

using nlohmann::json;
using testing::count;
using testing::expect_svg_draws;
using testing::iobench;
using testing::mark_titles;
using testing::ProcessOutput;
using testing::row;
using testing::ScratchDir;
using testing::slurp;
using testing::widest_line;

// ---- sweeps ----

TEST(Sweep, KneeIsTheSmallestValueBeyondWhichNothingGainsTenPercent) {
  auto points = [](std::vector<std::int64_t> times) {
    std::vector<SweepPoint> p;
    for (std::size_t i = 0; i < times.size(); ++i) {
      SweepPoint s;
      s.value = 1ull << (4 * i);
      s.result = row("buffered", 1, {times[i]});
      p.push_back(s);
    }
    return p;
  };
  EXPECT_EQ(find_knee(points({1000, 100, 20, 19, 19})), 2u);
  EXPECT_EQ(find_knee(points({10000, 1000, 200, 250, 185})), 2u) << "185 is not 10% below 200";
  EXPECT_EQ(find_knee(points({10000, 1000, 200, 250, 100, 95})), 4u)
      << "a later 10% gain moves the knee";
  EXPECT_EQ(find_knee(points({1000, 100, 10})), std::nullopt) << "still falling at the end";
  EXPECT_EQ(find_knee(points({10, 10})), 0u);
  auto failed = points({1000, 100, 20, 19});
  failed[1].result.status = ResultStatus::kFailed;
  EXPECT_EQ(find_knee(failed), 2u);
}

TEST(Sweep, JsonHasAPointPerValueWithExactCountsAndAChartThatDraws) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/sweep.svg";
  ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--buffer-size", "64K,1K,4K",
                             "--lines", "10000", "--runs", "1", "--warmup", "0", "--dir",
                             dir.path(), "--format", "json", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench-sweep/1");
  EXPECT_EQ(doc["strategy"], "buffered");
  EXPECT_EQ(doc["parameter"], "buffer_size");
  ASSERT_EQ(doc["points"].size(), 3u);
  const std::uint64_t bytes = expected_bytes(10000);
  const std::uint64_t sizes[] = {1024, 4096, 65536};  // ascending, whatever the order given
  for (std::size_t i = 0; i < 3; ++i) {
    const json& p = doc["points"][i];
    EXPECT_EQ(p["value"], sizes[i]);
    EXPECT_EQ(p["result"]["status"], "ok") << p["result"]["error"];
    EXPECT_EQ(p["result"]["write_calls"], (bytes + sizes[i] - 1) / sizes[i]);
    for (const char* k : {"strategy", "time_ns", "cpu_ns", "syscalls", "files", "syscall_time_ns"})
      EXPECT_TRUE(p["result"].contains(k)) << k;
  }
  EXPECT_TRUE(doc.contains("knee"));
  EXPECT_TRUE(doc["knee"].is_null() || doc["knee"].is_number());
  const auto marks = mark_titles(slurp(svg));
  for (const char* v : {"1 KiB", "4 KiB", "64 KiB"})
    EXPECT_EQ(count(marks, v), 2) << v;  // two panels
  expect_svg_draws(svg);
  EXPECT_EQ(dir.entries(), 2) << "the chart and its PNG, nothing else";
}

TEST(Sweep, ConfigHasEveryKeyOfARunsConfig) {
  ScratchDir dir;
  const std::vector<std::string> common = {"--strategy", "buffered", "--lines", "1000",    "--runs",
                                           "1",          "--warmup", "0",       "--sync",  "end",
                                           "--format",   "json",     "--dir",   dir.path()};
  std::vector<std::string> run_args = common, sweep_args = common;
  sweep_args.insert(sweep_args.begin(), {"sweep", "--buffer-size", "1K,4K"});
  const ProcessOutput run = iobench(run_args), sweep = iobench(sweep_args);
  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const json a = json::parse(run.out)["config"], b = json::parse(sweep.out)["config"];
  for (const auto& [key, value] : a.items()) {
    ASSERT_TRUE(b.contains(key)) << key;
    if (key == "buffer_size") {
      EXPECT_TRUE(b[key].is_null()) << "the swept knob: see points[].value";
    } else if (key == "tracer") {
      for (const auto& [k, v] : value.items()) EXPECT_TRUE(b[key].contains(k)) << key << "." << k;
      for (const char* k : {"enabled", "mode", "backend"}) EXPECT_EQ(b[key][k], value[k]) << k;
    } else {
      EXPECT_EQ(b[key], value) << key;
    }
  }
}

TEST(Sweep, TableHasARowPerValueAndSaysWhereTheKneeIs) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"sweep", "--strategy", "writev", "--batch", "1,64,1024", "--lines", "3000", "--runs",
               "1", "--warmup", "0", "--no-trace", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sweep writev --batch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("knee"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median of 1 untraced run per value"), std::string::npos) << r.out;
  EXPECT_LE(widest_line(r.out), 120u) << r.out;
}

TEST(Sweep, LineLengthSweepHasARowPerValueTimePerKiBAndAChart) {
  ScratchDir dir;
  const std::string svg = dir.path() + "/lengths.svg";
  ProcessOutput r = iobench({"sweep", "--strategy", "unbuffered", "--line-length", "16,256,4K,64K",
                             "--lines", "200", "--runs", "1", "--warmup", "0", "--dir", dir.path(),
                             "--columns", "200", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sweep unbuffered --line-length · 200 lines"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time per KiB"), std::string::npos) << r.out;
  // One row per value, each one write per line: 200 calls of exactly the line length.
  const std::pair<const char*, const char*> rows[] = {
      {"16 B", "16 B"}, {"256 B", "256 B"}, {"4 KiB", "4.0 KiB"}, {"64 KiB", "64.0 KiB"}};
  for (const auto& [value, per_call] : rows) {
    const std::regex row_re("\n *" + std::string(value) + " +200 [^\n]* " + per_call + " ");
    EXPECT_TRUE(std::regex_search(r.out, row_re)) << value << "\n" << r.out;
  }
  const auto marks = mark_titles(slurp(svg));
  for (const char* v : {"16 B", "256 B", "4 KiB", "64 KiB"}) EXPECT_EQ(count(marks, v), 2) << v;
  EXPECT_NE(slurp(svg).find("time per KiB"), std::string::npos);
  expect_svg_draws(svg);

  ProcessOutput j = iobench({"sweep", "--strategy", "unbuffered", "--line-length", "16,4K",
                             "--lines", "100", "--runs", "1", "--warmup", "0", "--count-only",
                             "--tracer", "ptrace", "--dir", dir.path(), "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["parameter"], "line_length");
  EXPECT_TRUE(doc["config"]["line_length"].is_null()) << "the swept one: see points[].value";
  EXPECT_TRUE(doc["knee"].is_null());
  ASSERT_EQ(doc["points"].size(), 2u);
  EXPECT_EQ(doc["points"][0]["result"]["bytes"], 1600);
  EXPECT_EQ(doc["points"][1]["result"]["bytes"], 409600);
  EXPECT_EQ(doc["points"][1]["result"]["write_calls"], 100);
}

TEST(Sweep, ScalingSweepShowsTimePerLine) {
  ScratchDir dir;
  ProcessOutput r = iobench({"sweep", "--strategy", "buffered", "--lines", "1K,4K", "--runs", "1",
                             "--warmup", "0", "--no-trace", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("per"), std::string::npos);
  EXPECT_NE(r.out.find("no knee"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4,096"), std::string::npos) << r.out;
}

TEST(Sweep, UsageErrorsNameTheProblem) {
  ScratchDir dir;
  auto err = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "sweep");
    args.push_back("--dir");
    args.push_back(dir.path());
    ProcessOutput r = iobench(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  EXPECT_NE(err({"--strategy", "buffered"}).find("give one flag a comma list"), std::string::npos);
  EXPECT_NE(err({"--strategy", "io_uring", "--buffer-size", "4K,8K", "--queue-depth", "1,2"})
                .find("only one flag"),
            std::string::npos);
  EXPECT_NE(
      err({"--strategy", "buffered", "--batch", "1,2"}).find("--batch does not change buffered"),
      std::string::npos);
  EXPECT_NE(err({"--buffer-size", "1,2"}).find("exactly one strategy"), std::string::npos);
  EXPECT_NE(err({"--strategy", "buffered", "--buffer-size", "0,2"}).find("--buffer-size"),
            std::string::npos);
  EXPECT_NE(err({"--strategy", "buffered", "--buffer-size", "1,,2"}).find("empty value"),
            std::string::npos);
  EXPECT_EQ(dir.entries(), 0);
  ProcessOutput help = iobench({"sweep", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("knee"), std::string::npos);
}

// ---- compare ----

TEST(Compare, WordsSplitLikeAShellWithoutExpansion) {
  EXPECT_EQ(split_words("./w  out.txt 100"), (std::vector<std::string>{"./w", "out.txt", "100"}));
  EXPECT_EQ(split_words(R"(a 'b c' "d \"e\" $f" g\ h '')"),
            (std::vector<std::string>{"a", "b c", R"(d "e" $f)", "g h", ""}));
  EXPECT_EQ(split_words(R"("a\nb")"), (std::vector<std::string>{R"(a\nb)"}));
  EXPECT_EQ(split_words("   "), (std::vector<std::string>{}));
  EXPECT_THROW(split_words("'open"), Error);
  EXPECT_THROW(split_words("\"open"), Error);
}

TEST(Compare, CountsDataWritesToFilesButNotStdoutStderrOrPipes) {
  TraceResult t;
  t.available = true;
  // The kinds are what the tracer saw the fds to be (README "What counts as a write").
  auto file = [](std::string path, FdKind kind, std::map<std::string, SyscallStats> s) {
    FileStats f;
    f.path = std::move(path);
    f.kind = kind;
    f.syscalls = std::move(s);
    return f;
  };
  t.files = {
      file("/tmp/out.txt", FdKind::kFile,
           {{"write", {10, 0, 100, 50}}, {"pwrite64", {2, 0, 20, 5}}, {"fsync", {1, 0, 0, 1000}}}),
      file("/tmp/other", FdKind::kFile, {{"writev", {3, 0, 30, 6}}}),
      file("/dev/null", FdKind::kNull, {{"write", {7, 0, 70, 7}}}),
      file("/dev/pts/3", FdKind::kTerminal, {{"write", {7, 0, 70, 7}}}),
      file("pipe:[123]", FdKind::kPipe, {{"write", {7, 0, 70, 7}}}),
      file("socket:[9]", FdKind::kSocket, {{"sendto", {7, 0, 70, 7}}, {"write", {1, 0, 1, 1}}}),
      file("anon_inode:[io_uring]", FdKind::kWritingRing, {{"io_uring_enter", {4, 0, 0, 40}}}),
      file("anon_inode:[io_uring]", FdKind::kRing, {{"io_uring_enter", {9, 0, 0, 90}}}),
      file("anon_inode:[eventfd]", FdKind::kAnon, {{"write", {9, 0, 72, 9}}}),
      // Its stdout, a regular file, renamed since: the inode said so, not the name.
      file("/tmp/stdout.log.old", FdKind::kStream, {{"write", {5, 0, 50, 5}}}),
      // Two failed: errors, not write calls.
      file("/tmp/full", FdKind::kFile, {{"write", {3, 2, 12, 3}}})};
  StrategyResult r;
  attribute_command_writes(t, r);
  EXPECT_EQ(r.write_calls, 10u + 2 + 3 + 4 + 1);
  EXPECT_EQ(r.bytes, 150u + 12);
  EXPECT_EQ(r.syscall_time_ns, 50 + 5 + 6 + 40 + 3);
}

TEST(Compare, RealProgramsSideBySideWithExactCounts) {
  ScratchDir dir;
  const std::string a = dir.path() + "/a.txt", b = dir.path() + "/b.txt";
  const std::string svg = dir.path() + "/compare.svg";
  ProcessOutput r =
      iobench({"compare", "-n", "per-line", fmt::format("{} per-line {} 2000", LINE_WRITER_BIN, a),
               "-n", "buffered", fmt::format("'{}' buffered '{}' 2000", LINE_WRITER_BIN, b),
               "--runs", "1", "--warmup", "0", "--format", "json", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "iobench/1");
  ASSERT_EQ(doc["results"].size(), 2u);
  const std::uint64_t bytes = expected_bytes(2000);
  EXPECT_EQ(slurp(a).size(), bytes) << "the commands' files are theirs, and left in place";
  const json& per_line = doc["results"][0];
  const json& buffered = doc["results"][1];
  EXPECT_EQ(per_line["strategy"], "per-line");
  EXPECT_EQ(per_line["status"], "ok") << per_line["error"];
  EXPECT_EQ(per_line["write_calls"], 2000) << "one per line; stdout and stderr not counted";
  EXPECT_EQ(per_line["bytes"], bytes);
  EXPECT_EQ(buffered["strategy"], "buffered");
  EXPECT_EQ(buffered["write_calls"], (bytes + 4095) / 4096);
  EXPECT_EQ(buffered["time_ns"]["samples"].size(), 1u);
  EXPECT_EQ(doc["config"]["commands"][1]["name"], "buffered");
  const auto marks = mark_titles(slurp(svg));
  EXPECT_EQ(count(marks, "per-line"), 3);
  EXPECT_EQ(count(marks, "buffered"), 3);
  expect_svg_draws(svg);
}

TEST(Compare, TableAndSummaryForCommands) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"compare", "-n", "sh", "--shell", "--runs", "2", "--warmup", "0",
               fmt::format("{} per-line {}/a 300 && true", LINE_WRITER_BIN, dir.path())});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compare · 1 command"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nsh "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median of 2 untraced runs per command"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("to any file but stdout, stderr,\n  terminals, pipes and sockets"),
            std::string::npos)
      << r.out;
}

TEST(Compare, AFailingCommandIsAFailedRowAndExitThree) {
  ScratchDir dir;
  ProcessOutput r = iobench({"compare", "-n", "ok",
                             fmt::format("{} buffered {}/a 10", LINE_WRITER_BIN, dir.path()), "-n",
                             "broken", fmt::format("{} fail {}/b 10", LINE_WRITER_BIN, dir.path()),
                             "--runs", "1", "--warmup", "0", "--no-trace"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.out.find("broken: failed: exited with status 3"), std::string::npos) << r.out;
  ProcessOutput missing = iobench({"compare", "no-such-program-iobench x"});
  EXPECT_EQ(missing.status, 127);
  EXPECT_NE(missing.err.find("command not found: 'no-such-program-iobench'"), std::string::npos)
      << missing.err;
  EXPECT_EQ(iobench({"compare"}).status, 2);
  EXPECT_EQ(iobench({"compare", "-n", "a", "-n", "b", "true"}).status, 2);
  EXPECT_NE(iobench({"compare", "--help"}).out.find("theirs"), std::string::npos);
}

}  // namespace
}  // namespace iobench
