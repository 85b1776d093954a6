// --baseline FILE through the real binary, where the file is not what a baseline should be:
// a device, a FIFO, a directory, a huge file, the file this run would overwrite, a baseline
// with counts against an untraced run, values spelled as an edited file spells them. Each is
// decided before anything runs (exit 2, stdout empty), at once and in bounded memory.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;
using testing::slurp;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::vector<std::string> kRun = {"--lines", "100", "--strategy", "buffered,writev",
                                       "--runs",  "1",   "--warmup",   "0"};

std::vector<std::string> run_with(std::vector<std::string> extra, const ScratchDir& dir) {
  std::vector<std::string> args = kRun;
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--dir", dir.path()});
  return args;
}

/// A real baseline of kRun at `path`, as --save-baseline writes it.
void save_baseline(const ScratchDir& dir, const std::string& path,
                   std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"--save-baseline", path});
  ProcessOutput save = iobench(run_with(extra, dir));
  ASSERT_EQ(save.status, 0) << save.err;
}

/// iobench with `args` under `ulimit -v` (KiB of address space) and a time bound: a
/// baseline read until memory runs out, or one that blocks, fails here rather than hangs.
ProcessOutput bounded_iobench(const std::vector<std::string>& args) {
  std::vector<std::string> cmd = {
      "/usr/bin/timeout", "60", "/bin/sh", "-c", "ulimit -v 1000000 && exec \"$@\"", "sh",
      IOBENCH_BIN};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return run_process(cmd);
}

// A symlink to /dev/zero was read until std::bad_alloc, a FIFO blocked until a signal.
// Only a regular file is read, at most 64 MiB of it.
TEST(BaselineFile, OnlyARegularFileOfAtMost64MiBIsRead) {
  ScratchDir dir;
  const std::string zero = dir.path() + "/zero.json", urandom = dir.path() + "/urandom.json",
                    fifo = dir.path() + "/fifo.json", big = dir.path() + "/big.json";
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  ASSERT_EQ(::symlink("/dev/urandom", urandom.c_str()), 0);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Sparse: 64 MiB and one byte, one past the cap, costs no disk.
  std::ofstream(big).put(' ');
  ASSERT_EQ(::truncate(big.c_str(), (off_t{64} << 20) + 1), 0);
  const std::pair<std::string, std::string> cases[] = {
      {zero, "a character device, not a regular file"},
      {urandom, "a character device, not a regular file"},
      {fifo, "a FIFO, not a regular file"},
      {dir.path(), "a directory, not a regular file"},
      {big, "larger than 64 MiB, the most a baseline may be"},
      {dir.path() + "/missing.json", "cannot read it: No such file or directory"},
  };
  for (const auto& [path, why] : cases) {
    ProcessOutput r = bounded_iobench(run_with({"--baseline", path}, dir));
    EXPECT_EQ(r.status, 2) << path << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_TRUE(contains(r.err, fmt::format("iobench: error: --baseline {}: {}", path, why)))
        << r.err;
    EXPECT_TRUE(r.out.empty()) << path << ": nothing may run\n" << r.out;
  }
  // At the cap, it is read (and refused for what it holds, not for its size).
  ASSERT_EQ(::truncate(big.c_str(), off_t{64} << 20), 0);
  ProcessOutput at_cap = bounded_iobench(run_with({"--baseline", big}, dir));
  EXPECT_EQ(at_cap.status, 2) << at_cap.err;
  EXPECT_TRUE(contains(at_cap.err, "--baseline " + big + ": not valid JSON")) << at_cap.err;
}

// --save-baseline onto the --baseline it is compared with saved a regressed run as the new
// baseline, and the next CI run passed. Refused by name and by inode, before the run, for
// every output a run writes.
TEST(BaselineFile, NoOutputMayOverwriteTheBaseline) {
  ScratchDir dir;
  const std::string base = dir.path() + "/b.json", link = dir.path() + "/link.json",
                    hard = dir.path() + "/hard.json";
  save_baseline(dir, base);
  const std::string saved = slurp(base);
  ASSERT_EQ(::symlink("b.json", link.c_str()), 0);
  ASSERT_EQ(::link(base.c_str(), hard.c_str()), 0);
  const std::pair<const char*, std::string> outputs[] = {
      {"--save-baseline", base},   {"--save-baseline", link},
      {"--save-baseline", hard},   {"--save-baseline", dir.path() + "/./b.json"},
      {"--export-json", base},     {"--export-csv", link},
      {"--export-markdown", hard}, {"--export-junit", base},
  };
  for (const auto& [flag, path] : outputs) {
    // A regression (256-byte buffers: 4 write calls, not 1) that would have replaced it.
    ProcessOutput r =
        iobench(run_with({"--buffer-size", "256", "--baseline", base, flag, path}, dir));
    EXPECT_EQ(r.status, 2) << flag << " " << path << "\n" << r.err;
    EXPECT_EQ(r.err, fmt::format("iobench: error: {} {} is the --baseline it is compared with "
                                 "({}): a regressed run would replace it; write to another file\n",
                                 flag, path, base));
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(slurp(base), saved) << "the baseline is untouched";
  // The same run saving elsewhere compares, fails, and saves.
  ProcessOutput other =
      iobench(run_with({"--buffer-size", "256", "--baseline", link, "--time-tolerance", "100000%",
                        "--save-baseline", dir.path() + "/new.json"},
                       dir));
  EXPECT_EQ(other.status, 1) << other.err;
  EXPECT_TRUE(contains(other.err, "iobench: regression: buffered.write_calls: 1 → 4 (+3)\n"))
      << other.err;
  EXPECT_FALSE(slurp(dir.path() + "/new.json").empty());
}

// Untraced, every count was "not measured on one side" and the run passed whatever the
// counts had become.
TEST(BaselineFile, NoTraceAgainstABaselineWithCountsIsNotComparable) {
  ScratchDir dir;
  const std::string traced = dir.path() + "/traced.json", untraced = dir.path() + "/untraced.json";
  save_baseline(dir, traced);
  ProcessOutput r = iobench(run_with({"--no-trace", "--baseline", traced}, dir));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err,
            "iobench: error: baseline not comparable: it has counts (buffered.write_calls) and "
            "--no-trace measures none; drop --no-trace\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
  // A baseline without counts compares its medians with an untraced run.
  save_baseline(dir, untraced, {"--no-trace"});
  ProcessOutput times =
      iobench(run_with({"--no-trace", "--baseline", untraced, "--time-tolerance", "100000%"}, dir));
  EXPECT_EQ(times.status, 0) << times.err;
  EXPECT_TRUE(contains(times.out, "buffered.time (median)")) << times.out;
}

// As an edited file spells them: -0 and 1.0 are counts, a median of 1e-300 ns is a
// regression printed in a few characters.
TEST(BaselineFile, EditedValuesAreReadAsTheirValues) {
  ScratchDir dir;
  const std::string base = dir.path() + "/b.json", edited = dir.path() + "/edited.json";
  save_baseline(dir, base);
  nlohmann::json doc = nlohmann::json::parse(slurp(base));
  ASSERT_EQ(doc["results"][0]["write_calls"], 1);
  std::string text = doc.dump();
  const std::string one = "\"write_calls\":1}";
  ASSERT_TRUE(contains(text, one)) << text;
  text.replace(text.find(one), one.size(), "\"write_calls\":1.0}");
  text.replace(text.find(one), one.size(), "\"write_calls\":-0}");  // writev's: 0 → 1
  std::ofstream(edited) << text;
  ProcessOutput counts =
      iobench(run_with({"--baseline", edited, "--time-tolerance", "100000%"}, dir));
  EXPECT_EQ(counts.status, 1) << counts.err;
  EXPECT_TRUE(contains(counts.err, "iobench: regression: writev.write_calls: 0 → 1 (+1)\n"))
      << counts.err;
  EXPECT_FALSE(contains(counts.err, "buffered.write_calls")) << counts.err;

  doc["results"][0]["time_ns"]["median"] = 1e-300;
  std::ofstream(edited) << doc.dump();
  ProcessOutput tiny = iobench(run_with({"--baseline", edited}, dir));
  EXPECT_EQ(tiny.status, 1) << tiny.err;
  EXPECT_TRUE(contains(tiny.err, "iobench: regression: buffered.time (median): 1e-300 ns → "))
      << tiny.err;
  EXPECT_TRUE(contains(tiny.err, " (>999×)\n")) << tiny.err;
  EXPECT_LT(tiny.out.size(), 2000u) << tiny.out;
}

}  // namespace
}  // namespace iobench
