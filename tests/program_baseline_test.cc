// Baselines of the user's own programs (issue 22, item 1): `iobench trace` and `iobench
// compare` save one, and a later run of the same programs from another directory (as CI
// checks out into a temporary one) compares exactly, through the real binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

/// iobench run in `dir`, as `cd dir && iobench ARGS...`. The traces count only (--count-only):
/// counts are what a baseline of a program compares, and calibrating times is slow.
ProcessOutput iobench_in(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/env", "-C", dir, IOBENCH_BIN});
  return run_process(args);
}

/// A directory of its own (CI's checkout) holding the writer as ./writer and as ./other.
std::string checkout(const ScratchDir& scratch, const std::string& name) {
  std::string dir = scratch.path() + "/" + name;
  std::filesystem::create_directory(dir);
  std::filesystem::create_symlink(WRITER_BIN, dir + "/writer");
  std::filesystem::create_symlink(WRITER_BIN, dir + "/other");
  return dir;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The stderr of a refused run: exactly one line, an `iobench: error:`.
void expect_one_error_line(const ProcessOutput& r, const std::string& part) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with("iobench: error: ")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(contains(r.err, part)) << r.err;
}

// A file's count may be null ("not measured", docs/ci.md) as write_calls may: compared as not
// measured on one side, never refused as missing.
TEST(TraceBaseline, ANullFileCountIsNotMeasured) {
  ScratchDir scratch;
  const std::string a = checkout(scratch, "a");
  const std::string base = scratch.path() + "/base.json";
  ProcessOutput save = iobench_in(
      a, {"trace", "--count-only", "--save-baseline", base, "--", "./writer", "out.txt", "10"});
  ASSERT_EQ(save.status, 0) << save.err;
  auto doc = nlohmann::json::parse(slurp(base));
  doc["baseline"]["rows"][0]["file_calls"]["out.txt"] = nullptr;
  std::ofstream(base) << doc.dump();
  ProcessOutput r = iobench_in(
      a, {"trace", "--count-only", "--baseline", base, "--", "./writer", "out.txt", "10"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "writer.file out.txt       —      10  not measured on one side\n"))
      << r.err;
}

TEST(TraceBaseline, SavedThenARegressionExitsOneWithItsDiffRowAndJUnitFailure) {
  ScratchDir scratch;
  const std::string a = checkout(scratch, "a"), b = checkout(scratch, "b");
  const std::string base = scratch.path() + "/base.json";
  ProcessOutput save = iobench_in(
      a, {"trace", "--count-only", "--save-baseline", base, "--", "./writer", "out.txt", "1000"});
  ASSERT_EQ(save.status, 0) << save.err;
  // One line on stderr says what the file holds, as the next --baseline reads it.
  EXPECT_TRUE(contains(save.err, "iobench: saved baseline " + base +
                                     ": writer: write_calls 1,000, write 1,000, file out.txt "
                                     "1,000\n"))
      << save.err;
  const auto doc = nlohmann::json::parse(slurp(base));
  EXPECT_EQ(doc["schema"], "iobench-trace/1");
  EXPECT_EQ(doc["write_calls"], 1000);
  EXPECT_EQ(doc["baseline"]["kind"], "trace");
  EXPECT_EQ(doc["baseline"]["rows"][0]["name"], "writer");
  // Relative to where it ran: the same key from any checkout.
  EXPECT_EQ(doc["baseline"]["rows"][0]["file_calls"], nlohmann::json({{"out.txt", 1000}}));

  // The same program from another directory: every count equal, exit 0.
  ProcessOutput same = iobench_in(
      b, {"trace", "--count-only", "--baseline", base, "--", "./writer", "out.txt", "1000"});
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_TRUE(contains(same.err, "baseline comparison")) << same.err;
  EXPECT_FALSE(contains(same.err, "REGRESSION")) << same.err;

  const std::string junit = scratch.path() + "/checks.xml";
  ProcessOutput worse =
      iobench_in(b, {"trace", "--count-only", "--baseline", base, "--export-junit", junit, "--",
                     "./writer", "out.txt", "2000"});
  EXPECT_EQ(worse.status, 1) << worse.err;
  EXPECT_TRUE(contains(worse.err, "iobench: regression: writer.write_calls: 1,000 → 2,000 (+1000)"))
      << worse.err;
  EXPECT_TRUE(contains(worse.err, "iobench: regression: writer.file out.txt: 1,000 → 2,000"))
      << worse.err;
  EXPECT_TRUE(contains(worse.err, "iobench: regression: writer.write: 1,000 → 2,000")) << worse.err;
  const std::string xml = slurp(junit);
  EXPECT_TRUE(contains(xml,
                       "<testcase classname=\"iobench.baseline\" name=\"writer.write_calls\">\n"
                       "      <failure message=\"measured 2,000, expected 1,000"))
      << xml;
  EXPECT_TRUE(contains(xml, "failures=\"3\"")) << xml;

  // Within --count-tolerance: no regression.
  ProcessOutput tolerated =
      iobench_in(b, {"trace", "--count-only", "--baseline", base, "--count-tolerance", "1000", "--",
                     "./writer", "out.txt", "2000"});
  EXPECT_EQ(tolerated.status, 0) << tolerated.err;
}

TEST(TraceBaseline, AnotherProgramIsNotComparableAndNothingRuns) {
  ScratchDir scratch;
  const std::string a = checkout(scratch, "a");
  const std::string base = scratch.path() + "/base.json";
  ASSERT_EQ(iobench_in(a, {"trace", "--count-only", "--save-baseline", base, "--", "./writer",
                           "out.txt", "10"})
                .status,
            0);

  ProcessOutput other = iobench_in(
      a, {"trace", "--count-only", "--baseline", base, "--", "./other", "never.txt", "10"});
  expect_one_error_line(
      other, "baseline not comparable: it is of program 'writer', and this run of 'other'");
  EXPECT_FALSE(std::filesystem::exists(a + "/never.txt")) << "refused before anything ran";

  // --name names it whatever its path: comparable, and it runs.
  ProcessOutput named = iobench_in(a, {"trace", "--count-only", "--name", "writer", "--baseline",
                                       base, "--", "./other", "out.txt", "10"});
  EXPECT_EQ(named.status, 0) << named.err;

  // A run's baseline is not a trace's, nor a trace's a run's.
  const std::string run_base = scratch.path() + "/run.json";
  ASSERT_EQ(iobench_in(a, {"--lines", "100", "--strategy", "buffered", "--runs", "1", "--dir", a,
                           "--save-baseline", run_base})
                .status,
            0);
  expect_one_error_line(
      iobench_in(a, {"trace", "--count-only", "--baseline", run_base, "--", "./writer", "never.txt",
                     "10"}),
      "baseline not comparable: it was saved by iobench, and this is iobench trace");
  expect_one_error_line(
      iobench_in(a, {"--lines", "100", "--strategy", "buffered", "--runs", "1", "--dir", a,
                     "--baseline", base}),
      "baseline not comparable: it was saved by iobench trace, and this is iobench");
  // An export is not a baseline: it names no program.
  const std::string exported = scratch.path() + "/export.json";
  ASSERT_EQ(iobench_in(a, {"trace", "--count-only", "--export-json", exported, "--", "./writer",
                           "out.txt", "1"})
                .status,
            0);
  expect_one_error_line(
      iobench_in(
          a, {"trace", "--count-only", "--baseline", exported, "--", "./writer", "never.txt", "1"}),
      "an iobench-trace/1 export, not a baseline (save one with iobench trace --save-baseline)");
  EXPECT_FALSE(std::filesystem::exists(a + "/never.txt"));
}

TEST(CompareBaseline, SavedThenARegressionExitsOneWithItsDiffRowAndJUnitFailure) {
  ScratchDir scratch;
  const std::string a = checkout(scratch, "a"), b = checkout(scratch, "b");
  const std::string base = scratch.path() + "/cmp.json";
  // Noise on a busy machine is not what this checks: medians may be 1000 times slower.
  const std::vector<std::string> common = {
      "compare", "--runs", "1", "--warmup", "0", "--count-only", "--time-tolerance", "1e300"};
  auto run = [&](const std::string& dir, std::vector<std::string> extra,
                 const std::string& c_lines) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"./writer c.txt " + c_lines, "./other o.txt 500"});
    return iobench_in(dir, args);
  };
  ProcessOutput save = run(a, {"--save-baseline", base}, "1000");
  ASSERT_EQ(save.status, 0) << save.err;
  const auto doc = nlohmann::json::parse(slurp(base));
  EXPECT_EQ(doc["schema"], "iobench/1");
  EXPECT_EQ(doc["baseline"]["kind"], "compare");
  EXPECT_EQ(doc["baseline"]["rows"][0]["name"], "writer");
  EXPECT_EQ(doc["baseline"]["rows"][1]["name"], "other");
  EXPECT_EQ(doc["baseline"]["rows"][1]["file_calls"], nlohmann::json({{"o.txt", 500}}));

  ProcessOutput same = run(b, {"--baseline", base}, "1000");
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_TRUE(contains(same.out, "baseline comparison")) << same.out;

  const std::string junit = scratch.path() + "/cmp.xml";
  ProcessOutput worse = run(b, {"--baseline", base, "--export-junit", junit}, "2000");
  EXPECT_EQ(worse.status, 1) << worse.out << worse.err;
  EXPECT_TRUE(contains(worse.out, "writer.write_calls")) << worse.out;
  EXPECT_TRUE(contains(worse.err, "iobench: regression: writer.write_calls: 1,000 → 2,000 (+1000)"))
      << worse.err;
  EXPECT_FALSE(contains(worse.err, "iobench: regression: other.")) << worse.err;
  const std::string xml = slurp(junit);
  EXPECT_TRUE(contains(xml, "name=\"writer.write_calls\">\n      <failure")) << xml;
  EXPECT_TRUE(contains(xml, "name=\"other.write_calls\">\n      <system-out>")) << xml;
}

TEST(CompareBaseline, AnotherSetOfCommandsIsNotComparableAndNothingRuns) {
  ScratchDir scratch;
  const std::string a = checkout(scratch, "a");
  const std::string base = scratch.path() + "/cmp.json";
  ASSERT_EQ(iobench_in(a, {"compare", "--runs", "1", "--save-baseline", base, "-n", "c",
                           "./writer c.txt 10", "-n", "rust", "./other r.txt 10"})
                .status,
            0);
  // One command named otherwise: refused before anything ran.
  expect_one_error_line(
      iobench_in(a, {"compare", "--runs", "1", "--baseline", base, "-n", "c",
                     "./writer never.txt 10", "-n", "go", "./other never2.txt 10"}),
      "baseline not comparable: command 'rust' is in the baseline but is not run");
  EXPECT_FALSE(std::filesystem::exists(a + "/never.txt"));
  // One command fewer, a trace's baseline, or two rows of one name.
  expect_one_error_line(
      iobench_in(a, {"compare", "--baseline", base, "-n", "c", "./writer never.txt 10"}),
      "command 'rust' is in the baseline but is not run");
  const std::string trace_base = scratch.path() + "/trace.json";
  ASSERT_EQ(iobench_in(a, {"trace", "--count-only", "--save-baseline", trace_base, "--", "./writer",
                           "t.txt", "1"})
                .status,
            0);
  expect_one_error_line(
      iobench_in(a, {"compare", "--baseline", trace_base, "./writer never.txt 1"}),
      "it was saved by iobench trace, and this is iobench compare");
  expect_one_error_line(
      iobench_in(a, {"compare", "--save-baseline", scratch.path() + "/x.json",
                     "./writer never.txt 1", "./writer never2.txt 1"}),
      "compare: commands 1 and 2 are both 'writer' in a baseline; name each with -n NAME");
  EXPECT_FALSE(std::filesystem::exists(a + "/never.txt"));
}

}  // namespace
}  // namespace iobench
