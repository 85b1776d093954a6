// Every strategy creates its file the safe way (never over an existing file, never through
// a symlink) and reports a failed write with its errno; what a strategy refuses before it
// writes (single-write's cap, mmap's size check, --direct where it cannot or the buffer
// is off the block size).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "kernel_probe.h"
#include "strategies/registry.h"
#include "strategies/strategy.h"
#include "strategies/support/line_format.h"
#include "strategies_test.h"

namespace iobench {
namespace {

namespace fs = std::filesystem;

using testing::expected_stream;
using testing::honours_direct;
using testing::make_job;
using testing::page_size;
using testing::read_all;
using testing::same_bytes;
using testing::strategies_under_test;
using testing::TempDir;

// ---- Every strategy creates the file the safe way and reports errors -----------------------

class EveryStrategy : public ::testing::TestWithParam<const Strategy*> {
 protected:
  /// Runs the strategy; false (and the test is skipped) where the kernel refuses io_uring.
  bool run(const WriteJob& job, StrategyOutcome& out) {
    out = GetParam()->run(job);
    return !(out.status == RunStatus::kUnsupported &&
             !testing::may_be_unsupported(GetParam()->name, false, "").empty());
  }
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST_P(EveryStrategy, RefusesAnExistingFile) {
  TempDir dir;
  const std::string path = dir.file("out");
  write_text(path, "precious");
  StrategyOutcome out;
  if (!run(make_job(path, 10), out)) GTEST_SKIP() << out.message;
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(out.error, EEXIST);
  EXPECT_NE(std::string(out.message).find("File exists"), std::string::npos) << out.message;
  EXPECT_EQ(read_all(path), "precious");
}

TEST_P(EveryStrategy, DoesNotFollowAPlantedSymlink) {
  TempDir dir;
  const std::string path = dir.file("out");
  const std::string victim = dir.file("victim");
  const std::string nowhere = dir.file("nowhere");
  write_text(victim, "precious");
  fs::create_symlink(victim, path);
  StrategyOutcome out;
  if (!run(make_job(path, 10), out)) GTEST_SKIP() << out.message;
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(read_all(victim), "precious");

  // A dangling link must not create its target either.
  fs::remove(path);
  fs::create_symlink(nowhere, path);
  out = GetParam()->run(make_job(path, 10));
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_FALSE(fs::exists(fs::symlink_status(nowhere)));
  EXPECT_TRUE(fs::is_symlink(path));
}

TEST_P(EveryStrategy, ReportsAFailedWriteWithItsErrno) {
  // RLIMIT_FSIZE makes the kernel refuse bytes past 4 KiB with EFBIG (SIGXFSZ ignored), a real
  // write error without a full disk. A forked child, as in the runner, keeps the limit local.
  TempDir dir;
  const std::string path = dir.file("out");
  const WriteJob job = make_job(path, 1000);  // 8,890 bytes
  void* shared = ::mmap(nullptr, sizeof(StrategyOutcome), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto* result = new (shared) StrategyOutcome;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    *result = GetParam()->run(job);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const StrategyOutcome out = *result;
  ::munmap(shared, sizeof(StrategyOutcome));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  if (out.status == RunStatus::kUnsupported &&
      !testing::may_be_unsupported(GetParam()->name, false, "").empty())
    GTEST_SKIP() << out.message;

  if (!GetParam()->writes_file) {  // format-only never writes, so it cannot hit the limit
    EXPECT_EQ(out.status, RunStatus::kOk) << out.message;
    return;
  }
  EXPECT_EQ(out.status, RunStatus::kFailed) << out.message;
  EXPECT_EQ(out.error, EFBIG) << out.message;
  EXPECT_NE(std::string(out.message).find("File too large"), std::string::npos) << out.message;
  // Whatever got through before the limit is the start of the stream, nothing else.
  const std::string have = read_all(path);
  EXPECT_LE(have.size(), 4096u);
  EXPECT_TRUE(same_bytes(have, expected_stream(1000).substr(0, have.size())));
}

std::string strategy_name(const ::testing::TestParamInfo<const Strategy*>& info) {
  std::string name(info.param->name);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategy, ::testing::ValuesIn(strategies_under_test()),
                         strategy_name);

// ---- Strategy-specific limits ---------------------------------------------------------------

TEST(SingleWrite, RefusesMoreThanOneGibibyteBeforeCreatingAnything) {
  TempDir dir;
  const std::string path = dir.file("out");
  WriteJob job = make_job(path, 10);
  job.expected_bytes = (std::uint64_t{1} << 30) + 1;  // checked before any allocation
  const StrategyOutcome out = find_strategy("single-write")->run(job);
  EXPECT_EQ(out.status, RunStatus::kUnsupported);
  EXPECT_STREQ(out.message, "buffer of 1073741825 bytes exceeds the 1 GiB cap");
  EXPECT_FALSE(fs::exists(path));
}

TEST(SingleWrite, AcceptsExactlyOneGibibyteAsTheCap) {
  // The boundary itself is allowed; the mismatch with the lines is then reported, not overrun.
  TempDir dir;
  const std::string path = dir.file("out");
  WriteJob job = make_job(path, 10);
  job.expected_bytes = 4096;
  const StrategyOutcome out = find_strategy("single-write")->run(job);
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_STREQ(out.message, "expected_bytes does not match the lines");
}

TEST(Mmap, ReportsAnExpectedSizeThatDisagreesWithTheLines) {
  for (std::uint64_t wrong : {expected_bytes(1000) - 1, expected_bytes(1000) + 1}) {
    TempDir dir;
    const std::string path = dir.file("out");
    WriteJob job = make_job(path, 1000);
    job.expected_bytes = wrong;
    job.params.map_window = page_size();
    const StrategyOutcome out = find_strategy("mmap")->run(job);
    EXPECT_EQ(out.status, RunStatus::kFailed) << "expected_bytes " << wrong;
  }
}

// ---- --direct --------------------------------------------------------------------------------

class DirectRefused : public ::testing::TestWithParam<const Strategy*> {};

TEST_P(DirectRefused, IsUnsupportedWithAReasonAndCreatesNothing) {
  TempDir dir;
  const std::string path = dir.file("out");
  StrategyParams p;
  p.direct = true;
  const StrategyOutcome out = GetParam()->run(make_job(path, 1000, p));
  EXPECT_EQ(out.status, RunStatus::kUnsupported) << out.message;
  EXPECT_EQ(std::string(out.message).rfind("--direct: ", 0), 0u) << out.message;
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
}

std::vector<const Strategy*> refusing_direct() {
  std::vector<const Strategy*> out;
  for (const Strategy* s : strategies_under_test())
    if (!honours_direct(s)) out.push_back(s);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Strategies, DirectRefused, ::testing::ValuesIn(refusing_direct()),
                         strategy_name);

TEST(Direct, ABufferOffTheBlockSizeIsUnsupported) {
  for (const char* name : {"buffered", "io_uring"}) {
    TempDir dir;
    StrategyParams p;
    p.direct = true;
    p.buffer_size = 1000;  // no filesystem aligns direct I/O to 1000 bytes
    const StrategyOutcome out = find_strategy(name)->run(make_job(dir.file("out"), 1000, p));
    EXPECT_EQ(out.status, RunStatus::kUnsupported) << name << ": " << out.message;
    // A filesystem without direct I/O (the probe, not the message, says so) is refused
    // earlier, for its own reason; everywhere else the alignment is the reason.
    const std::string message = out.message;
    if (!testing::may_be_unsupported(name, false, "").empty()) continue;  // no ring at all
    if (testing::direct_refused(dir.path()).empty()) {
      EXPECT_NE(message.find("not a multiple"), std::string::npos) << message;
    } else {
      EXPECT_EQ(message.rfind("--direct: ", 0), 0u) << message;
    }
  }
}

TEST(Direct, TmpfsIsUnsupported) {
  if (!fs::is_directory("/dev/shm") || ::access("/dev/shm", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/shm";
  const std::string path = "/dev/shm/iobench-direct-test-" + std::to_string(::getpid());
  StrategyParams p;
  p.direct = true;
  const StrategyOutcome out = find_strategy("buffered")->run(make_job(path, 10, p));
  ::unlink(path.c_str());
  EXPECT_EQ(out.status, RunStatus::kUnsupported) << out.message;
}

}  // namespace
}  // namespace iobench
