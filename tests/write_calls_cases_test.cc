// Each case of README "What counts as a write", one real program (fd_kinds) per case,
// traced by the real binary in both modes: write_calls is what the rule says, exactly.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::ScratchDir;

constexpr long kN = 10;
constexpr int kUnavailable = 77;  // fd_kinds: the kernel lacks the facility

enum class Mode { kTiming, kCount };

class Cases : public ::testing::TestWithParam<Mode> {
 protected:
  Cases() { ::chmod(dir_.path().c_str(), 0777); }  // nobody writes there too

  std::string file(const std::string& name) const { return dir_.path() + "/" + name; }

  /// The iobench-trace/1 document of `fd_kinds ARGS... kN` traced with `prefix` (a
  /// setpriv, a shell) before iobench; null when the case cannot run here.
  nlohmann::json trace(std::vector<std::string> args, std::vector<std::string> prefix = {}) {
    const std::string doc = file("doc.json");
    std::vector<std::string> cmd = std::move(prefix);
    cmd.insert(cmd.end(), {IOBENCH_BIN, "trace", "--tracer", "ptrace", "--export-json", doc});
    if (GetParam() == Mode::kCount) cmd.emplace_back("--count-only");
    cmd.insert(cmd.end(), {"--", FD_KINDS_BIN});
    cmd.insert(cmd.end(), args.begin(), args.end());
    cmd.push_back(std::to_string(kN));
    last_ = testing::run_process(cmd);
    if (last_.status == kUnavailable) return nullptr;
    EXPECT_EQ(last_.status, 0) << last_.err;
    std::ifstream in(doc);
    auto j = nlohmann::json::parse(in, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << last_.err;
    EXPECT_EQ(j.value("traced", false), true) << last_.err;
    return j;
  }
  static long calls(const nlohmann::json& doc, const char* syscall) {
    return doc["syscalls"].contains(syscall) ? doc["syscalls"][syscall]["calls"].get<long>() : 0;
  }
  bool timing() const { return GetParam() == Mode::kTiming; }

  ScratchDir dir_;
  ProcessOutput last_;
};

#define SKIP_IF_UNAVAILABLE(doc) \
  if ((doc).is_null()) GTEST_SKIP() << "not available here: " << last_.err

TEST_P(Cases, ABadFdIsNoWrite) {
  const auto doc = trace({"badfd"});
  EXPECT_EQ(doc["write_calls"], 0);
  EXPECT_EQ(calls(doc, "write"), kN);
  if (timing()) {
    EXPECT_EQ(doc["syscalls"]["write"]["errors"], kN);
  }
}

TEST_P(Cases, AReadOnlyFdIsNoWrite) {
  std::ofstream(file("ro")) << "x";
  const auto doc = trace({"readonly", file("ro")});
  EXPECT_EQ(doc["write_calls"], 0) << "EBADF, whatever the mode";
  EXPECT_EQ(calls(doc, "write"), kN);
}

TEST_P(Cases, AFailedWriteToAFileIsAnErrorWhereTheReturnIsSeen) {
  const auto doc = trace({"efault", file("out")});
  EXPECT_EQ(calls(doc, "write"), kN);
  // Timing mode sees every return (fewer calls than the sampler's first 3,000); count mode
  // sees none, so every call on a file counts (README "What counts as a write").
  EXPECT_EQ(doc["write_calls"], timing() ? 0 : kN);
}

TEST_P(Cases, StdoutRenamedOrDeletedIsStillStdout) {
  const std::string out = file("stdout"), moved = file("moved");
  const std::string cmd = fmt::format(
      "exec {} trace --tracer ptrace --export-json {} {} -- {} rename-stdout {} {} > {}",
      IOBENCH_BIN, file("doc.json"), timing() ? "" : "--count-only", FD_KINDS_BIN, moved, kN, out);
  last_ = testing::run_process({"/bin/sh", "-c", cmd});
  ASSERT_EQ(last_.status, 0) << last_.err;
  std::ifstream in(file("doc.json"));
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(calls(doc, "write"), 2 * kN + 1);
  EXPECT_EQ(doc["write_calls"], 0) << "its stdout under another name, then under none";
}

TEST_P(Cases, ANamedFifoIsAPipeLikeAnAnonymousOne) {
  const auto fifo = trace({"fifo", file("fifo")});
  EXPECT_EQ(calls(fifo, "write"), kN);
  EXPECT_EQ(fifo["write_calls"], 0);
  const auto pipe = trace({"pipe"});
  EXPECT_EQ(calls(pipe, "write"), kN);
  EXPECT_EQ(pipe["write_calls"], 0);
}

TEST_P(Cases, EventfdTimerfdSignalfdAreNotFiles) {
  const auto doc = trace({"anon"});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "write"), 3 * kN);
  EXPECT_EQ(doc["write_calls"], 0);
}

TEST_P(Cases, ARingThatOnlyReadsIsNoWrite) {
  std::ofstream(file("in")) << std::string(64, 'x');
  const auto doc = trace({"uring-read", file("in")});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "io_uring_enter"), kN);
  EXPECT_EQ(doc["write_calls"], 0);
}

TEST_P(Cases, ARingCountsFromItsFirstWriteToAFile) {
  std::ofstream(file("in")) << std::string(64, 'x');
  const auto doc = trace({"uring-read-write", file("in")});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "io_uring_enter"), 2 * kN);
  EXPECT_EQ(doc["write_calls"], kN) << "the reads came before any write";
}

TEST_P(Cases, ARingWritingOnlyToStdoutIsNoWrite) {
  const auto doc = trace({"uring-stdout"});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "io_uring_enter"), kN);
  EXPECT_EQ(doc["write_calls"], 0);
}

TEST_P(Cases, AioWritesCountOncePerSubmit) {
  const auto doc = trace({"aio", file("aio")});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "io_submit"), kN);
  EXPECT_EQ(doc["write_calls"], kN);
  bool filed = false;  // under the file it writes, not "(no fd)"
  for (const auto& f : doc["files"]) filed = filed || f["path"] == file("aio");
  EXPECT_TRUE(filed) << doc["files"].dump();
}

TEST_P(Cases, AioReadsAreNoWrite) {
  std::ofstream(file("in")) << std::string(64, 'x');
  const auto doc = trace({"aio-read", file("in")});
  SKIP_IF_UNAVAILABLE(doc);
  EXPECT_EQ(calls(doc, "io_submit"), kN);
  EXPECT_EQ(doc["write_calls"], 0);
}

TEST_P(Cases, ANonDumpableProgramsStdoutIsStillStdoutWithoutRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching to a non-root tracer needs root";
  // Traced by nobody, its /proc/PID/fd is closed to the tracer: fd 1 is known to be the
  // stdout it inherited; the unreadable fd it opened counts as the file it most likely is.
  const auto doc = trace({"nondumpable", file("out")},
                         {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  EXPECT_EQ(calls(doc, "write"), 2 * kN);
  EXPECT_EQ(doc["write_calls"], kN);
  bool unreadable = false;
  for (const auto& f : doc["files"]) unreadable = unreadable || f["path"] == "(unreadable fd)";
  EXPECT_TRUE(unreadable) << "the test must run the case it names: " << doc["files"].dump();
  // Root reads it all, and gets the same number.
  EXPECT_EQ(trace({"nondumpable", file("out2")})["write_calls"], kN);
}

INSTANTIATE_TEST_SUITE_P(WriteCalls, Cases, ::testing::Values(Mode::kTiming, Mode::kCount),
                         [](const auto& info) {
                           return info.param == Mode::kTiming ? "Timing" : "CountOnly";
                         });

}  // namespace
}  // namespace iobench
