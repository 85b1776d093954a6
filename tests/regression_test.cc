// What a CI job relies on: --expect, baselines and exports, through the real binary, with
// the exit statuses the README documents.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

using testing::iobench;

// 10,000 lines are 98,890 bytes: two 64 KiB flushes.
TEST(Expect, BenchmarkExpectationPassesAndFailsWithTheRightStatus) {
  ScratchDir dir;
  ProcessOutput ok = iobench({"--lines", "10000", "--strategy", "buffered", "--runs", "1",
                              "--expect", "buffered.write_calls<=2", "--dir", dir.path()});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("PASS buffered.write_calls <= 2 (measured 2)"), std::string::npos)
      << ok.out;

  ProcessOutput bad = iobench({"--lines", "10000", "--strategy", "buffered", "--runs", "1",
                               "--expect", "buffered.write_calls<2", "--dir", dir.path()});
  EXPECT_EQ(bad.status, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("FAIL buffered.write_calls < 2 (measured 2)"), std::string::npos)
      << bad.out;

  ProcessOutput malformed = iobench(
      {"--strategy", "buffered", "--expect", "buffered.write_calls<=2x", "--dir", dir.path()});
  EXPECT_EQ(malformed.status, 2);
  EXPECT_NE(malformed.err.find("unknown unit 'x'"), std::string::npos) << malformed.err;
  ProcessOutput unknown =
      iobench({"--strategy", "buffered", "--expect", "wirte<=2", "--dir", dir.path()});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown metric 'wirte'"), std::string::npos) << unknown.err;
  ProcessOutput not_run =
      iobench({"--strategy", "buffered", "--expect", "mmap.write_calls==0", "--dir", dir.path()});
  EXPECT_EQ(not_run.status, 2);
  EXPECT_NE(not_run.err.find("strategy 'mmap' is not being run"), std::string::npos) << not_run.err;
}

TEST(Expect, TraceExpectationAndTheCommandsStatusTakesPriority) {
  ScratchDir dir;
  const std::string out = dir.path() + "/out";
  ProcessOutput ok = iobench({"trace", "--expect", "write==1000", "--", WRITER_BIN, out, "1000"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.err.find("PASS write == 1000 (measured 1000)"), std::string::npos) << ok.err;

  ProcessOutput fail = iobench({"trace", "--expect", "write<1000", "--", WRITER_BIN, out, "1000"});
  EXPECT_EQ(fail.status, 1) << fail.err;
  // The command failing (status 7) outranks the failed expectation.
  ProcessOutput both =
      iobench({"trace", "--expect", "write<1000", "--", WRITER_BIN, out, "1000", "7"});
  EXPECT_EQ(both.status, 7) << both.err;
  ProcessOutput bad =
      iobench({"trace", "--expect", "buffered.write==1", "--", WRITER_BIN, out, "1"});
  EXPECT_EQ(bad.status, 2) << bad.err;
}

TEST(Baseline, RoundTripTheRegressionIsNamedAndNoiseIsTolerated) {
  ScratchDir dir;
  const std::string base = dir.path() + "/base.json";
  ProcessOutput save = iobench({"--lines", "20000", "--strategy", "buffered,writev", "--runs", "3",
                                "--save-baseline", base, "--dir", dir.path()});
  ASSERT_EQ(save.status, 0) << save.err;
  EXPECT_NE(save.err.find("iobench: saved baseline " + base +
                          ": buffered: write_calls 4, write 4, "
                          "time (median) "),
            std::string::npos)
      << save.err;
  // Same configuration: counts match exactly; timing noise gets a wide tolerance here
  // because CI machines are noisy (the default is 25%).
  ProcessOutput same =
      iobench({"--lines", "20000", "--strategy", "buffered,writev", "--runs", "3", "--baseline",
               base, "--time-tolerance", "1e300", "--dir", dir.path()});
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("baseline comparison"), std::string::npos);

  // A deliberate regression: 64 KiB buffer -> 1 KiB.
  ProcessOutput worse =
      iobench({"--lines", "20000", "--strategy", "buffered,writev", "--runs", "3", "--buffer-size",
               "1K", "--baseline", base, "--time-tolerance", "1e300", "--dir", dir.path()});
  EXPECT_EQ(worse.status, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("buffer_size 65536 → 1024"), std::string::npos) << worse.out;
  EXPECT_NE(worse.err.find("iobench: regression: buffered.write_calls: 4 → 204"), std::string::npos)
      << worse.err;

  // Not comparable: a different N, or a strategy on one side only.
  ProcessOutput other_n = iobench({"--lines", "100", "--strategy", "buffered,writev", "--runs", "1",
                                   "--baseline", base, "--dir", dir.path()});
  EXPECT_EQ(other_n.status, 2) << other_n.err;
  EXPECT_NE(other_n.err.find("not comparable"), std::string::npos) << other_n.err;
  ProcessOutput missing = iobench({"--lines", "20000", "--strategy", "buffered", "--runs", "1",
                                   "--baseline", base, "--dir", dir.path()});
  EXPECT_EQ(missing.status, 2) << missing.err;
  ProcessOutput garbage = iobench({"--baseline", "/etc/hostname", "--dir", dir.path()});
  EXPECT_EQ(garbage.status, 2);
  EXPECT_NE(garbage.err.find("iobench: error: --baseline /etc/hostname: not valid JSON"),
            std::string::npos)
      << garbage.err;
}

TEST(Exports, EveryFormatAtOnceAndOnStdout) {
  ScratchDir dir;
  const std::string json = dir.path() + "/r.json", csv = dir.path() + "/r.csv",
                    md = dir.path() + "/r.md";
  ProcessOutput r =
      iobench({"--lines", "1000", "--strategy", "buffered,mmap", "--runs", "1", "--export-json",
               json, "--export-csv", csv, "--export-markdown", md, "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["write_calls"], 1);
  EXPECT_EQ(doc["results"][1]["write_calls"], 0);
  EXPECT_NE(slurp(csv).find("\nbuffered,ok,"), std::string::npos);
  EXPECT_NE(slurp(md).find("| `mmap` | 0 |"), std::string::npos) << slurp(md);
  ProcessOutput c = iobench({"--lines", "1000", "--strategy", "buffered", "--runs", "1", "--format",
                             "csv", "--dir", dir.path()});
  EXPECT_EQ(c.out.rfind("strategy,status,", 0), 0u) << c.out;
  ProcessOutput m = iobench({"--lines", "1000", "--strategy", "buffered", "--runs", "1", "--format",
                             "markdown", "--dir", dir.path()});
  EXPECT_NE(m.out.find("| strategy |"), std::string::npos) << m.out;
}

// A figure the run did not measure is an empty CSV cell, as JSON's null, never 0:
// --count-only takes no syscall times, --no-trace no counts.
TEST(Exports, CsvLeavesWhatWasNotMeasuredEmpty) {
  ScratchDir dir;
  auto csv = [&](const char* flag) {
    ProcessOutput r = iobench({"--lines", "1000", "--strategy", "buffered", "--runs", "1",
                               "--warmup", "0", flag, "--format", "csv", "--dir", dir.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  };
  // write_calls, syscall_time_ns are the 16th and 17th columns.
  EXPECT_NE(csv("--count-only").find(",0,1,,/"), std::string::npos) << csv("--count-only");
  EXPECT_NE(csv("--no-trace").find(",0,,,/"), std::string::npos) << csv("--no-trace");
}

/// Twenty runs of every strategy (io_uring-sqpoll included, whose count once depended on
/// whether its poller had gone to sleep) under one named backend: the counts must not move.
void expect_twenty_identical_runs(const std::string& tracer) {
  ScratchDir dir;
  std::string first;
  for (int i = 0; i < 20; ++i) {
    ProcessOutput r =
        iobench({"--lines", "300", "--strategy", "all", "--runs", "1", "--warmup", "0",
                 "--count-only", "--tracer", tracer, "--format", "json", "--dir", dir.path()});
    ASSERT_EQ(r.status, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["results"].size(), 10u) << r.out;
    std::string counts;
    for (const auto& res : doc["results"]) {
      if (res["status"] == "unsupported") continue;  // e.g. SQPOLL refused in a container
      counts += res["strategy"].get<std::string>() + "=" + res["write_calls"].dump() + " " +
                res["syscalls"].dump() + "\n";
    }
    if (i == 0) first = counts;
    EXPECT_EQ(counts, first) << tracer << " run " << i;
  }
}

TEST(Determinism, CountsOfTwentyPtraceRunsAreIdentical) { expect_twenty_identical_runs("ptrace"); }

TEST(Determinism, CountsOfTwentyPerfRunsAreIdentical) {
  if (::geteuid() != 0) GTEST_SKIP() << "the perf backend needs root";
  expect_twenty_identical_runs("perf");
}

}  // namespace
}  // namespace iobench
