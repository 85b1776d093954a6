// A count below its baseline is an improvement: it passes, says so, and names the command
// that saves the new counts as the baseline; --exact-counts (or a baseline saved with it)
// makes any change fail. The same for a run, `iobench trace` and `iobench compare`, through
// the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `iobench trace [more] -- ./writer out.txt LINES` run in `dir`.
ProcessOutput trace_writer(const std::string& dir, const std::string& lines,
                           std::vector<std::string> more) {
  std::vector<std::string> args = {"/usr/bin/env", "-C", dir, IOBENCH_BIN, "trace"};
  args.insert(args.end(), more.begin(), more.end());
  args.insert(args.end(), {"--", "./writer", "out.txt", lines});
  return run_process(args);
}

/// A checkout of its own holding the writer as ./writer.
std::string checkout(const ScratchDir& scratch) {
  const std::string dir = scratch.path() + "/src";
  std::filesystem::create_directory(dir);
  std::filesystem::create_symlink(WRITER_BIN, dir + "/writer");
  return dir;
}

/// The comparison table's row of `metric`, its cells one space apart, or "".
std::string row_of(const std::string& table, const std::string& metric) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(metric + " ")) continue;
    std::istringstream cells(line);
    std::string out;
    for (std::string cell; cells >> cell;) out += (out.empty() ? "" : " ") + cell;
    return out;
  }
  return "";
}

/// The line after "run in DIR: " of the update hint, or "".
std::string update_command(const std::string& err) {
  const std::string lead = "iobench: to make these counts the baseline, run in ";
  const std::size_t at = err.find(lead);
  if (at == std::string::npos) return "";
  const std::size_t colon = err.find(": ", at + lead.size());
  return err.substr(colon + 2, err.find('\n', colon) - colon - 2);
}

// 900 writes against a baseline of 1,000 reported REGRESSION and exited 1.
TEST(Improvement, FewerWritesPassAndSayHowToUpdateTheBaseline) {
  ScratchDir scratch;
  const std::string dir = checkout(scratch), base = scratch.path() + "/base.json";
  ASSERT_EQ(trace_writer(dir, "1000", {"--count-only", "--save-baseline", base}).status, 0);

  const ProcessOutput r = trace_writer(dir, "900", {"--baseline", base});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "iobench: improved: writer.write_calls: 1,000 → 900 (-100)\n"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "iobench: improved: writer.file out.txt: 1,000 → 900 (-100)\n"))
      << r.err;
  EXPECT_EQ(row_of(r.err, "writer.write_calls"), "writer.write_calls 1,000 900 -100 improved")
      << r.err;
  EXPECT_FALSE(contains(r.err, "REGRESSION")) << r.err;
  // The command saves where it compared, and the next run against it is unchanged.
  const std::string update = update_command(r.err);
  EXPECT_EQ(update, std::string(IOBENCH_BIN) + " trace --save-baseline " + base +
                        " -- ./writer out.txt 900")
      << r.err;
  ASSERT_EQ(run_process({"/bin/sh", "-c", "cd '" + dir + "' && " + update}).status, 0);
  const ProcessOutput again = trace_writer(dir, "900", {"--baseline", base});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_FALSE(contains(again.err, "improved")) << again.err;
  EXPECT_EQ(row_of(again.err, "writer.write_calls"), "writer.write_calls 900 900 =") << again.err;
}

TEST(Improvement, ExactCountsMakeAnyChangeFail) {
  ScratchDir scratch;
  const std::string dir = checkout(scratch), base = scratch.path() + "/base.json",
                    exact = scratch.path() + "/exact.json";
  ASSERT_EQ(trace_writer(dir, "1000", {"--count-only", "--save-baseline", base}).status, 0);
  const ProcessOutput flag = trace_writer(dir, "900", {"--baseline", base, "--exact-counts"});
  EXPECT_EQ(flag.status, 1) << flag.err;
  EXPECT_TRUE(contains(flag.err,
                       "iobench: changed: writer.write_calls: 1,000 → 900 (-100) (an improvement, "
                       "but the counts are exact)\n"))
      << flag.err;
  EXPECT_EQ(row_of(flag.err, "writer.write_calls"), "writer.write_calls 1,000 900 -100 CHANGED")
      << flag.err;

  // Saved with --exact-counts, the baseline asks for it itself, and its update keeps it.
  const ProcessOutput saved =
      trace_writer(dir, "1000", {"--count-only", "--save-baseline", exact, "--exact-counts"});
  ASSERT_EQ(saved.status, 0) << saved.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(exact))["baseline"]["exact_counts"], true);
  const ProcessOutput own = trace_writer(dir, "900", {"--baseline", exact});
  EXPECT_EQ(own.status, 1) << own.err;
  EXPECT_TRUE(contains(own.err, "iobench: changed: writer.write_calls: 1,000 → 900")) << own.err;
  EXPECT_EQ(update_command(own.err), std::string(IOBENCH_BIN) + " trace --exact-counts " +
                                         "--save-baseline " + exact + " -- ./writer out.txt 900")
      << own.err;
  // More writes are a regression either way, and then no update is offered.
  const ProcessOutput worse = trace_writer(dir, "1100", {"--baseline", base});
  EXPECT_EQ(worse.status, 1) << worse.err;
  EXPECT_TRUE(contains(worse.err, "iobench: regression: writer.write_calls: 1,000 → 1,100 (+100)"))
      << worse.err;
  EXPECT_EQ(update_command(worse.err), "") << worse.err;
}

// The run's and compare's baselines judge counts as trace's does.
TEST(Improvement, ARunAndCompareJudgeCountsTheSameWay) {
  ScratchDir scratch;
  const std::string base = scratch.path() + "/run.json";
  auto run = [&](const char* buffer, std::vector<std::string> more) {
    std::vector<std::string> args = {IOBENCH_BIN,
                                     "--lines",
                                     "1000",
                                     "--strategy",
                                     "buffered",
                                     "--runs",
                                     "1",
                                     "--warmup",
                                     "0",
                                     "--count-only",
                                     "--tracer",
                                     "ptrace",
                                     "--buffer-size",
                                     buffer,
                                     "--dir",
                                     scratch.path(),
                                     "--time-tolerance",
                                     "1e300"};
    args.insert(args.end(), more.begin(), more.end());
    return run_process(args);
  };
  ASSERT_EQ(run("1K", {"--save-baseline", base}).status, 0);
  const ProcessOutput better = run("64K", {"--baseline", base});
  EXPECT_EQ(better.status, 0) << better.out << better.err;
  EXPECT_TRUE(contains(better.err, "iobench: improved: buffered.write_calls: 9 → 1 (-8)\n"))
      << better.err;
  EXPECT_TRUE(contains(update_command(better.err), " --save-baseline " + base + " --lines 1000 "))
      << better.err;
  EXPECT_EQ(run("64K", {"--baseline", base, "--exact-counts"}).status, 1);

  const std::string dir = checkout(scratch), cmp = scratch.path() + "/cmp.json";
  auto compare = [&](const std::string& lines, std::vector<std::string> more) {
    std::vector<std::string> args = {
        "/usr/bin/env",     "-C",   dir,        IOBENCH_BIN, "compare",
        "--runs",           "1",    "--warmup", "0",         "--count-only",
        "--time-tolerance", "1e300"};
    args.insert(args.end(), more.begin(), more.end());
    args.push_back("./writer c.txt " + lines);
    return run_process(args);
  };
  ASSERT_EQ(compare("1000", {"--save-baseline", cmp}).status, 0);
  const ProcessOutput fewer = compare("900", {"--baseline", cmp});
  EXPECT_EQ(fewer.status, 0) << fewer.out << fewer.err;
  EXPECT_TRUE(contains(fewer.err, "iobench: improved: writer.write_calls: 1,000 → 900 (-100)\n"))
      << fewer.err;
  EXPECT_EQ(compare("900", {"--baseline", cmp, "--exact-counts"}).status, 1);
}

}  // namespace
}  // namespace iobench
