// One meaning of write_calls (README "What counts as a write"): one real program traced
// through every surface that reports it gives one number, computed from what it does.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <iobench/trace.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace iobench {
namespace {

using testing::iobench;
using testing::ProcessOutput;
using testing::ScratchDir;

// mixed_writer makes one write, one writev and one pwrite64 to its file per round; its pipe
// write, stdout write, fsync and ftruncate are listed per syscall but are not write calls.
constexpr long kRounds = 7;
constexpr long kWriteCalls = 3 * kRounds;

class OneProgram : public ::testing::Test {
 protected:
  std::string command() const { return fmt::format("{} {} {}", MIXED_WRITER_BIN, file(), kRounds); }
  std::string file() const { return dir_.path() + "/out"; }
  ScratchDir dir_;
};

TEST_F(OneProgram, TraceJsonCountsItsFileWritesOnly) {
  const ProcessOutput r = iobench(
      {"trace", "--format", "json", "--", MIXED_WRITER_BIN, file(), std::to_string(kRounds)});
  ASSERT_EQ(r.status, 0) << r.err;
  // stdout is the test's capture file: a regular file, and still not the program's output.
  ASSERT_EQ(r.out.substr(0, 5), "done\n");
  const auto doc = nlohmann::json::parse(r.out.substr(5));
  ASSERT_EQ(doc["traced"], true) << r.err;
  EXPECT_EQ(doc["write_calls"], kWriteCalls);
  EXPECT_EQ(doc["syscalls"]["write"]["calls"], kRounds + 2) << "the file's, the pipe's, stdout's";
  EXPECT_EQ(doc["syscalls"]["fsync"]["calls"], 1);
  EXPECT_EQ(doc["syscalls"]["ftruncate"]["calls"], 1);
}

TEST_F(OneProgram, TraceTableSaysTheSameNumber) {
  const ProcessOutput r =
      iobench({"trace", "--", MIXED_WRITER_BIN, file(), std::to_string(kRounds)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(fmt::format("write calls: {} (", kWriteCalls)), std::string::npos) << r.err;
}

TEST_F(OneProgram, CompareCountsTheSame) {
  const ProcessOutput r =
      iobench({"compare", "--runs", "1", "--warmup", "0", "--format", "json", "--", command()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["write_calls"], kWriteCalls);
  EXPECT_EQ(doc["results"][0]["bytes"], kWriteCalls * 12) << "what those calls wrote";
}

TEST_F(OneProgram, TheCppApiCountsTheSame) {
  const std::string path = file(), rounds = std::to_string(kRounds);
  const Trace t = trace([&] {
    const char* argv[] = {MIXED_WRITER_BIN, path.c_str(), rounds.c_str(), nullptr};
    ::execv(MIXED_WRITER_BIN, const_cast<char* const*>(argv));
    std::_Exit(127);
  });
  if (!t.traced()) GTEST_SKIP() << "ptrace is not available here";
  ASSERT_EQ(t.exit_status(), 0);
  EXPECT_EQ(t.write_calls(), static_cast<std::uint64_t>(kWriteCalls));
}

TEST_F(OneProgram, TraceExpectHoldsOnTheSameNumber) {
  auto expect = [&](long n) {
    return iobench({"trace", "--expect", fmt::format("write_calls=={}", n), "--", MIXED_WRITER_BIN,
                    file(), std::to_string(kRounds)});
  };
  const ProcessOutput pass = expect(kWriteCalls);
  EXPECT_EQ(pass.status, 0) << pass.err;
  EXPECT_NE(pass.err.find(fmt::format("PASS write_calls == {}", kWriteCalls)), std::string::npos)
      << pass.err;
  const ProcessOutput fail = expect(kWriteCalls + 1);
  EXPECT_EQ(fail.status, 1) << fail.err;
  EXPECT_NE(fail.err.find(fmt::format("(measured {})", kWriteCalls)), std::string::npos)
      << fail.err;
}

}  // namespace
}  // namespace iobench
