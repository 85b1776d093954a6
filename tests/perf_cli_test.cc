// --tracer through the real binary: the perf counting backend's exact counts, auto's choice,
// and the usage errors with the exit status the README documents.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_process.h"
#include "tracer/bpf_clock.h"
#include "tracer/perf_counter.h"

namespace iobench {
namespace {

using testing::ProcessOutput;
using testing::run_process;
using testing::ScratchDir;

using testing::iobench;

/// Why perf counting cannot run here, after mounting tracefs if it is missing (root only).
/// Left mounted: unmounting would race with a parallel test that found it mounted.
/// Who counts a strategy's run when perf cannot: the kernel clock where it loads, else ptrace.
std::string next_cheapest() {
  return tracing::bpf_clock_unavailable_reason().empty() ? "bpf" : "ptrace";
}

std::string perf_unavailable() {
  if (!perf_counting_unavailable().empty())
    ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
  return perf_counting_unavailable();
}

TEST(PerfCli, UsageErrorsExitTwoBeforeAnythingRuns) {
  ScratchDir dir;
  ProcessOutput timing = iobench(
      {"--lines", "100", "--strategy", "unbuffered", "--tracer", "perf", "--dir", dir.path()});
  EXPECT_EQ(timing.status, 2);
  EXPECT_EQ(timing.err, "iobench: error: --tracer perf counts only; add --count-only\n");
  EXPECT_EQ(timing.out, "");
  ProcessOutput all = iobench({"--lines", "100", "--strategy", "unbuffered", "--tracer", "perf",
                               "--count-only", "--trace-all", "--dir", dir.path()});
  EXPECT_EQ(all.status, 2);
  EXPECT_NE(all.err.find("drop --trace-all"), std::string::npos) << all.err;
  ProcessOutput bogus = iobench({"--lines", "100", "--tracer", "ebpf", "--dir", dir.path()});
  EXPECT_EQ(bogus.status, 2);
  EXPECT_NE(bogus.err.find("unknown backend 'ebpf' (ptrace, perf, bpf, auto)"), std::string::npos)
      << bogus.err;
  ProcessOutput trace =
      iobench({"trace", "--tracer", "perf", "--", WRITER_BIN, dir.path() + "/t", "1"});
  EXPECT_EQ(trace.status, 2);
  EXPECT_NE(trace.err.find("add --count-only"), std::string::npos) << trace.err;
}

TEST(PerfCli, PerfCountsAHundredThousandWrites) {
  if (std::string why = perf_unavailable(); !why.empty()) {
    // Where it cannot work, --tracer perf says why and runs nothing; auto falls back.
    ScratchDir dir;
    ProcessOutput r = iobench({"--lines", "100", "--strategy", "unbuffered", "--tracer", "perf",
                               "--count-only", "--dir", dir.path()});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    GTEST_SKIP() << "perf counting unavailable: " << why;
  }
  ScratchDir dir;
  ProcessOutput r =
      iobench({"--lines", "100000", "--strategy", "unbuffered", "--tracer", "perf", "--count-only",
               "--runs", "1", "--warmup", "0", "--format", "json", "--dir", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["config"]["tracer"]["backend"], "perf");
  const auto& row = doc["results"][0];
  EXPECT_EQ(row["trace_backend"], "perf");
  EXPECT_EQ(row["write_calls"], 100000);
  EXPECT_EQ(row["syscalls"]["write"]["calls"], 100000);
  EXPECT_EQ(row["files"], nlohmann::json::array());  // counters cannot tell files apart
}

// auto: perf counts where it may (the cheapest counter), the kernel clock times where it
// loads, ptrace times everywhere else.
TEST(PerfCli, AutoCountsWithPerfAndTimesWithTheCheapestTimer) {
  if (std::string why = perf_unavailable(); !why.empty()) {
    ScratchDir dir;
    ProcessOutput r = iobench({"--lines", "100", "--strategy", "unbuffered", "--count-only",
                               "--runs", "1", "--dir", dir.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("iobench: note: perf counters unavailable (" + why + "); counting with " +
                         next_cheapest()),
              std::string::npos)
        << r.err;
    GTEST_SKIP() << "perf counting unavailable: " << why;
  }
  ScratchDir dir;
  for (const bool count_only : {true, false}) {
    std::vector<std::string> args{"--lines",  "1000", "--strategy", "unbuffered,buffered,mmap",
                                  "--runs",   "1",    "--warmup",   "0",
                                  "--format", "json", "--dir",      dir.path()};
    if (count_only) args.push_back("--count-only");
    ProcessOutput r = iobench(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    auto doc = nlohmann::json::parse(r.out);
    const std::string backend = count_only ? "perf" : next_cheapest();
    EXPECT_EQ(doc["config"]["tracer"]["backend"], backend);
    std::vector<int> counts;
    for (const auto& row : doc["results"]) {
      EXPECT_EQ(row["trace_backend"], backend);
      counts.push_back(row["write_calls"]);
    }
    EXPECT_EQ(counts, (std::vector<int>{1000, 1, 0}));  // 12,890 bytes: one 64 KiB flush
  }
  // A program's write_calls leave out its stdout and pipes, which counters cannot tell
  // apart: auto counts a program with a backend that splits by file, and perf only when
  // asked.
  ProcessOutput t = iobench(
      {"trace", "--count-only", "--format", "json", "--", WRITER_BIN, dir.path() + "/t", "1000"});
  ASSERT_EQ(t.status, 0) << t.err;
  auto doc = nlohmann::json::parse(t.out);
  EXPECT_EQ(doc["backend"], next_cheapest());
  EXPECT_EQ(doc["write_calls"], 1000);
  t = iobench({"trace", "--count-only", "--tracer", "perf", "--format", "json", "--", WRITER_BIN,
               dir.path() + "/t", "1000"});
  ASSERT_EQ(t.status, 0) << t.err;
  doc = nlohmann::json::parse(t.out);
  EXPECT_EQ(doc["backend"], "perf");
  EXPECT_EQ(doc["write_calls"], 1000);
}

// ---- compare --tracer: the same flag group and backends as a run's and trace's ----

/// `iobench compare` of the writer making `lines` writes to its file, counted by `backend`.
ProcessOutput compare_writer(const std::string& backend, const std::string& file, int lines) {
  return iobench({"compare", "--tracer", backend, "--count-only", "--runs", "1", "--warmup", "0",
                  "--format", "json", "--",
                  std::string(WRITER_BIN) + " " + file + " " + std::to_string(lines)});
}

TEST(CompareTracer, PtraceCountsTheCommandsWrites) {
  ScratchDir dir;
  const ProcessOutput r = compare_writer("ptrace", dir.path() + "/out", 300);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["config"]["tracer"]["backend"], "ptrace");
  EXPECT_EQ(doc["results"][0]["trace_backend"], "ptrace");
  EXPECT_EQ(doc["results"][0]["write_calls"], 300);
}

TEST(CompareTracer, PerfCountsTheCommandsWrites) {
  if (::geteuid() != 0) GTEST_SKIP() << "perf tracepoint counters need root";
  if (std::string why = perf_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const ProcessOutput r = compare_writer("perf", dir.path() + "/out", 300);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["config"]["tracer"]["backend"], "perf");
  EXPECT_EQ(doc["results"][0]["trace_backend"], "perf");
  EXPECT_EQ(doc["results"][0]["write_calls"], 300);
}

TEST(CompareTracer, PerfWithoutCountOnlyIsAUsageError) {
  const ProcessOutput r = iobench({"compare", "--tracer", "perf", "--", "true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "iobench: error: --tracer perf counts only; add --count-only\n");
}

// ---- a fresh machine: tracefs not mounted (Debian 12 does not mount it at boot) ----

/// iobench `args` in a mount namespace of its own where tracefs is not mounted (nor debugfs,
/// under which older set-ups reach it); `as_nobody`: without root's privileges.
ProcessOutput iobench_without_tracefs(std::vector<std::string> args, bool as_nobody = false) {
  args.insert(args.begin(), IOBENCH_BIN);
  if (as_nobody)
    args.insert(args.begin(),
                {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  args.insert(args.begin(), {WITHOUT_MOUNT_BIN, "/sys/kernel/tracing", "/sys/kernel/debug", "--"});
  return run_process(args);
}

/// Why the tracefs tests cannot run here; empty when they can.
std::string fresh_machine_unavailable() {
  if (::geteuid() != 0) return "a mount namespace needs root";
  if (std::string why = perf_unavailable(); !why.empty()) return why;
  // What the namespace looks like: nothing of tracefs left in it.
  const ProcessOutput fs =
      run_process({WITHOUT_MOUNT_BIN, "/sys/kernel/tracing", "/sys/kernel/debug", "--",
                   "/usr/bin/stat", "-f", "-c", "%T", "/sys/kernel/tracing"});
  if (fs.status == 77) return "no private mount namespace: " + fs.err;
  EXPECT_EQ(fs.status, 0) << fs.err;
  EXPECT_NE(fs.out, "tracefs\n");
  return {};
}

const std::vector<std::string> kBufferedCounted = {
    "--count-only", "--strategy", "buffered", "--lines", "1000", "--runs", "1",
    "--warmup",     "0",          "--format", "json"};

std::vector<std::string> with_dir(std::vector<std::string> args, const std::string& dir) {
  args.insert(args.end(), {"--dir", dir});
  return args;
}

TEST(PerfTracefs, TracerPerfMountsTracefsWhenItIsMissing) {
  if (std::string why = fresh_machine_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  std::vector<std::string> args = with_dir(kBufferedCounted, dir.path());
  args.insert(args.begin(), {"--tracer", "perf"});
  const ProcessOutput r = iobench_without_tracefs(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["trace_backend"], "perf");
  EXPECT_EQ(doc["results"][0]["write_calls"], 1);  // 12,890 bytes: one 64 KiB flush
}

TEST(PerfTracefs, AutoLeavesTheMachineAloneAndNamesTheCommand) {
  if (std::string why = fresh_machine_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const ProcessOutput r = iobench_without_tracefs(with_dir(kBufferedCounted, dir.path()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("iobench: note: perf counters unavailable (tracefs is not mounted; as "
                       "root: mount -t tracefs nodev /sys/kernel/tracing); counting with " +
                       next_cheapest() + "\n"),
            std::string::npos)
      << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["trace_backend"], next_cheapest());
  EXPECT_EQ(doc["results"][0]["write_calls"], 1);
}

TEST(PerfTracefs, WithoutRootTracerPerfPrintsTheCommand) {
  if (std::string why = fresh_machine_unavailable(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  ::chmod(dir.path().c_str(), 0777);
  std::vector<std::string> args = with_dir(kBufferedCounted, dir.path());
  args.insert(args.begin(), {"--tracer", "perf"});
  const ProcessOutput r = iobench_without_tracefs(args, true);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "iobench: error: --tracer perf: tracefs is not mounted; as root: mount -t tracefs "
            "nodev /sys/kernel/tracing\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace iobench
