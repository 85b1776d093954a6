// --line-length through the real binary: every strategy's file padded, verified and the right
// size, the refusals (exit 2, nothing run), the JSON config, the space check that counts the
// padded size, and a baseline that names a changed length.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"

namespace iobench {
namespace {

using nlohmann::json;
using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;
using testing::slurp;
using testing::Tmpfs;

/// Line i padded to `length` bytes, spelled out independently of the product's formatter.
std::string padded(std::uint64_t i, std::size_t length) {
  std::string line = "Line " + std::to_string(i);
  line.resize(length - 1, ' ');
  return line + "\n";
}

TEST(LineLength, EveryStrategyWritesVerifiedPaddedFilesOfTheExactSize) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"--lines", "100", "--line-length", "64", "--strategy", "all", "--runs", "1",
               "--warmup", "0", "--keep", "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["config"]["line_length"], 64);
  EXPECT_EQ(doc["config"]["bytes"], 6400);
  std::string want;
  for (std::uint64_t i = 0; i < 100; ++i) want += padded(i, 64);
  ASSERT_EQ(want.size(), 6400u);
  int files = 0, writers = 0;
  for (const auto& res : doc["results"]) {
    if (res["status"] == "unsupported") continue;  // io_uring where the kernel refuses it
    writers += res["strategy"] != "format-only";
    EXPECT_EQ(res["status"], "ok") << res["strategy"] << ": " << res["error"];
    EXPECT_EQ(res["verified"], true) << res["strategy"];
    EXPECT_EQ(res["bytes"], 6400) << res["strategy"];
  }
  // --keep leaves one verified <strategy>.out per strategy in the private directory.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (e.path().extension() != ".out" || e.path().stem() == "format-only") continue;
    ++files;
    EXPECT_EQ(slurp(e.path().string()), want) << e.path();
  }
  EXPECT_EQ(files, writers);
  EXPECT_GE(files, 7);
}

TEST(LineLength, DefaultConfigIsNullAndTheFileUnpadded) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "10", "--strategy", "buffered", "--runs", "1", "--warmup",
                             "0", "--no-trace", "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_TRUE(doc["config"]["line_length"].is_null());
  EXPECT_EQ(doc["config"]["bytes"], 70);  // "Line 0\n" .. "Line 9\n"
}

TEST(LineLength, TooShortIsRefusedNamingTheMinimum) {
  ScratchDir dir;
  ProcessOutput r = iobench({"--lines", "100000", "--line-length", "6", "--dir", dir.path()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "iobench: error: --line-length 6 is too short for 100000 lines: at least 11 bytes\n");
  // "Line 99999\n" is 11 bytes: the minimum itself runs.
  ProcessOutput ok =
      iobench({"--lines", "100000", "--line-length", "11", "--strategy", "buffered", "--runs", "1",
               "--warmup", "0", "--no-trace", "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(json::parse(ok.out)["config"]["bytes"], 1100000);
  EXPECT_EQ(iobench({"--lines", "100001", "--line-length", "11", "--dir", dir.path()}).err,
            "iobench: error: --line-length 11 is too short for 100001 lines: at least 12 bytes\n");
  EXPECT_EQ(dir.entries(), 0);
}

TEST(LineLength, SizesTakeSuffixesAndTheLimitIs64KiB) {
  ScratchDir dir;
  ProcessOutput r =
      iobench({"--lines", "3", "--line-length", "4K", "--strategy", "unbuffered", "--runs", "1",
               "--warmup", "0", "--no-trace", "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["config"]["line_length"], 4096);
  EXPECT_EQ(json::parse(r.out)["results"][0]["bytes"], 3 * 4096);
  ProcessOutput big = iobench({"--line-length", "65537", "--dir", dir.path()});
  EXPECT_EQ(big.status, 2);
  EXPECT_EQ(big.err, "iobench: error: --line-length 65537: at most 64KiB (65536 bytes)\n");
  ProcessOutput bad = iobench({"--line-length", "12x", "--dir", dir.path()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--line-length"), std::string::npos) << bad.err;
}

TEST(LineLength, TheSpaceCheckCountsThePaddedSize) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  Tmpfs fs("size=64m");
  ASSERT_TRUE(fs.mounted());
  // 100,000 lines of 64 KiB are 6.5 GB: refused before anything is written.
  ProcessOutput r = iobench({"--lines", "100000", "--line-length", "64K", "--dir", fs.path()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --lines: needs 6553600000 bytes in " + fs.path() +
                       " but only 67108864 bytes are free\n");
}

TEST(LineLength, ABaselineNamesAChangedLength) {
  ScratchDir dir;
  const std::string base = dir.path() + "/base.json";
  auto run = [&](const char* length, std::vector<std::string> more) {
    std::vector<std::string> args = {
        "--lines",  "100", "--line-length", length,     "--strategy", "buffered", "--runs",  "1",
        "--warmup", "0",   "--count-only",  "--tracer", "ptrace",     "--dir",    dir.path()};
    args.insert(args.end(), more.begin(), more.end());
    return iobench(args);
  };
  ASSERT_EQ(run("64", {"--save-baseline", base}).status, 0);
  ProcessOutput r = run("128", {"--baseline", base, "--time-tolerance", "1e300"});
  EXPECT_NE((r.out + r.err).find("line_length 64 → 128"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace iobench
