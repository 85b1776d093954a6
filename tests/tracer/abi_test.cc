// Every syscall ABI the kernel offers a program is counted (README "What counts as a write"):
// a 32-bit static binary and a 64-bit one using `int $0x80` make i386 calls, counted in
// rows of their own ("write (i386)") and in write_calls by the same rule; an x32 attempt
// (this kernel has no x32) fails with ENOSYS as it does untraced, and nothing is counted.
#include <sys/mount.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "../run_process.h"
#include "tracer/perf_counter.h"
#include "tracer/write_calls.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr std::uint64_t kN = 1000;
const std::string kN_str = std::to_string(kN);

/// The program's exit status when run untraced, or -1 when exec failed (ENOEXEC: a kernel
/// without IA32 emulation refuses 32-bit binaries) or a signal ended it (int $0x80 without
/// IA32 emulation is a SIGSEGV).
int untraced_status(const std::vector<std::string>& args) {
  const testing::ProcessOutput out = testing::run_process(args);
  return out.status < 128 && out.status != 127 ? out.status : -1;
}

/// Whether the kernel runs this i386 program (CONFIG_IA32_EMULATION on, ia32_emulation not 0).
bool runs_i386(const std::vector<std::string>& args) { return untraced_status(args) == 0; }

// A macro, not a helper: GTEST_SKIP() in a helper only returns from the helper, and the test
// went on to fail on a kernel that refuses 32-bit binaries (exec: 126).
#define REQUIRE_I386(args)                 \
  if (!runs_i386(args))                    \
  GTEST_SKIP() << "the kernel runs no i386 code here (no IA32 emulation): " << (args)[0]

class Abi : public TracerTest {};

TraceResult traced(const TracerOptions& options, const std::vector<std::string>& args) {
  Tracer tracer(options);
  const Command cmd(args);
  TraceResult r = tracer.run(cmd.fn(), std::chrono::seconds(30));
  EXPECT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_TRUE(r.ptrace->seccomp);
  EXPECT_EQ(r.exit_code, 0);
  return r;
}

/// The 32-bit binary's calls: kN writes, a writev, a pwrite64 and an fsync, all i386.
void expect_i386_binary(const TraceResult& r, const std::string& out, bool timing) {
  EXPECT_EQ(calls(r.syscalls, "write (i386)"), kN);
  EXPECT_EQ(calls(r.syscalls, "writev (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "pwrite64 (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "fsync (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "write"), 0u);  // never counted as the x86-64 call
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, out);
  const WriteCount count = count_writes(r);
  EXPECT_EQ(count.calls, kN + 2);  // the data writes; fsync is no write call
  EXPECT_EQ(count.bytes, timing ? (kN + 2) * kLineBytes : 0);
  if (timing) {
    EXPECT_EQ(r.syscalls.at("write (i386)").errors, 0u);
  }
}

TEST_F(Abi, I386StaticBinaryTimingMode) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  const TraceResult r = traced(TracerOptions{}, args);
  expect_i386_binary(r, dir.file("out"), true);
}

TEST_F(Abi, I386StaticBinaryCountMode) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  const TraceResult r = traced(TracerOptions{TraceMode::kCount}, args);
  expect_i386_binary(r, dir.file("out"), false);
}

TEST_F(Abi, I386StaticBinaryTraceAll) {
  // Every i386 call stops: open, close and exit appear under their i386 names too.
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  TracerOptions options{TraceMode::kCount};
  options.trace_all = true;
  const TraceResult r = traced(options, args);
  expect_i386_binary(r, dir.file("out"), false);
  EXPECT_EQ(calls(r.syscalls, "open (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "close (i386)"), 1u);
}

TEST_F(Abi, Int0x80From64BitProgram) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_INT80_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  for (const TraceMode mode : {TraceMode::kTiming, TraceMode::kCount}) {
    const TraceResult r = traced(TracerOptions{mode}, args);
    EXPECT_EQ(calls(r.syscalls, "write (i386)"), kN);
    EXPECT_EQ(calls(r.syscalls, "write"), 0u);
    const WriteCount count = count_writes(r);
    EXPECT_EQ(count.calls, kN);
    EXPECT_EQ(count.bytes, mode == TraceMode::kTiming ? kN * kLineBytes : 0);
    ASSERT_NE(find_file(r, dir.file("out")), nullptr);
    EXPECT_EQ(file_calls(r, dir.file("out")), kN);
  }
}

TEST_F(Abi, I386IoSubmitReadsItsArrayOf32BitPointers) {
  // Read as 8-byte pointers, two 32-bit ones make an address that is no iocb: "(bad fd)".
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_INT80_WRITER, "--aio", dir.file("out")};
  REQUIRE_I386(args);
  for (const TraceMode mode : {TraceMode::kTiming, TraceMode::kCount}) {
    const TraceResult r = traced(TracerOptions{mode}, args);
    EXPECT_EQ(calls(r.syscalls, "io_submit (i386)"), 1u);
    EXPECT_EQ(file_calls(r, dir.file("out")), 1u);
    EXPECT_EQ(count_writes(r).calls, 1u);
  }
}

TEST_F(Abi, I386CloneUntracedChildIsStillTracedAndCounted) {
  // i386 clone keeps its flags in ebx: the tracer must clear CLONE_UNTRACED there, or the
  // child runs with our filter and no tracer and its write fails with ENOSYS (exit 101).
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_CLONE_UNTRACED, dir.file("out")};
  REQUIRE_I386(args);
  const TraceResult r = traced(TracerOptions{TraceMode::kCount}, args);
  EXPECT_EQ(calls(r.syscalls, "write (i386)"), 1u);
  ASSERT_EQ(r.processes.size(), 1u);  // only the child writes
  EXPECT_EQ(file_calls(r, dir.file("out")), 1u);
  EXPECT_EQ(count_lines(dir.file("out")), 1u);
}

TEST_F(Abi, X32AttemptFailsAsUntracedAndIsNotCounted) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_INT80_WRITER, "--x32", dir.file("out")};
  const int untraced = untraced_status(args);
  if (untraced == 1) GTEST_SKIP() << "this kernel offers x32, which the tracer does not decode";
  ASSERT_EQ(untraced, 0) << "x32 write did not fail with ENOSYS untraced";
  for (const bool trace_all : {false, true}) {
    TracerOptions options{TraceMode::kCount};
    options.trace_all = trace_all;
    const TraceResult r = traced(options, args);  // exit 0: ENOSYS under the tracer too
    EXPECT_EQ(count_writes(r).calls, 0u);
    for (const auto& [name, st] : r.syscalls) EXPECT_FALSE(moves_data(name)) << name;
  }
}

/// The perf backend, where the machine allows it (root, tracefs; perf_backend_test.cc).
class AbiPerf : public Abi {
 protected:
  void SetUp() override {
    Abi::SetUp();
    // Mounted if missing and left mounted, as PerfBackend does (perf_backend_test.cc).
    if (!perf_counting_unavailable().empty())
      ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
    if (std::string why = perf_counting_unavailable(); !why.empty())
      GTEST_SKIP() << "perf counting unavailable: " << why;
  }
  static TraceResult counted(const std::vector<std::string>& args) {
    const Command cmd(args);
    TraceResult r = PerfCounter().run(cmd.fn(), std::chrono::seconds(30));
    EXPECT_TRUE(r.available) << r.unavailable_reason;
    EXPECT_EQ(r.exit_code, 0);
    return r;
  }
};

TEST_F(AbiPerf, I386StaticBinaryCountedByNumber) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  const TraceResult r = counted(args);
  EXPECT_EQ(calls(r.syscalls, "write (i386)"), kN);
  EXPECT_EQ(calls(r.syscalls, "writev (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "pwrite64 (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "fsync (i386)"), 1u);
  EXPECT_EQ(calls(r.syscalls, "write"), 0u);
  EXPECT_EQ(count_writes(r).calls, kN + 2);
}

TEST_F(AbiPerf, Int0x80WritesAreNotConfusedWithNativeStat) {
  // Each i386 write (4) is followed by a native stat, also 4: raw_syscalls sees 2 × kN.
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_INT80_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  const TraceResult r = counted(args);
  EXPECT_EQ(calls(r.syscalls, "write (i386)"), kN);
  EXPECT_EQ(calls(r.syscalls, "write"), 0u);
  EXPECT_EQ(count_writes(r).calls, kN);
}

TEST_F(AbiPerf, NativeProgramHasNoI386Rows) {
  TempDir dir;
  const TraceResult r = counted({PROGRAM_WRITER, dir.file("out"), kN_str});
  EXPECT_EQ(calls(r.syscalls, "write"), kN);
  EXPECT_EQ(r.syscalls.size(), 1u);  // no "(i386)" row made of native calls
}

TEST_F(Abi, TraceCommandNamesTheAbiInTableAndJson) {
  TempDir dir;
  const std::vector<std::string> args = {PROGRAM_I386_WRITER, dir.file("out"), kN_str};
  REQUIRE_I386(args);
  const testing::ProcessOutput json =
      testing::run_process({IOBENCH_BIN, "trace", "--format", "json", "--tracer", "ptrace", "--",
                            args[0], args[1], args[2]});
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& write = doc["syscalls"]["write (i386)"];
  EXPECT_EQ(write["calls"], kN);
  EXPECT_EQ(write["abi"], "i386");
  EXPECT_EQ(write["bytes"], kN * kLineBytes);
  EXPECT_EQ(doc["write_calls"], kN + 2) << json.out;
  const testing::ProcessOutput table = testing::run_process(
      {IOBENCH_BIN, "trace", "--tracer", "ptrace", "--", args[0], args[1], args[2]});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.err.find("write (i386)"), std::string::npos) << table.err;
  EXPECT_NE(table.err.find("write calls: 1,002"), std::string::npos) << table.err;
}

}  // namespace
}  // namespace iobench::tracer_test
