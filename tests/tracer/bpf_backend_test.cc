// --tracer bpf: the kernel clock as a counting backend. Its counts equal ptrace's and perf's
// for every strategy and for real multi-threaded and forking programs, every call is timed,
// JSON names it, and where it cannot load it is refused in one line. Skipped without bpf.
#include "tracer/bpf_backend.h"

#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../run_process.h"
#include "bpf_test_util.h"
#include "tracer/perf_counter.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

using nlohmann::json;
using testing::ProcessOutput;
using testing::ScratchDir;

constexpr std::uint64_t kN = 3000;

std::map<std::string, std::uint64_t> call_counts(const TraceResult& r) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [name, s] : r.syscalls) out[name] = s.calls;
  return out;
}

/// Every call of the run timed, errors and bytes seen, and named bpf.
void expect_every_call_timed(const TraceResult& r) {
  EXPECT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.backend, "bpf");
  EXPECT_EQ(r.mode, TraceMode::kTiming);
  for (const auto& [name, s] : r.syscalls) {
    EXPECT_EQ(s.timed_calls, s.calls) << name;
    EXPECT_GT(s.time_ns, 0) << name;
    ASSERT_TRUE(s.latency.has_value()) << name;
    EXPECT_GT(s.latency->p50, 0) << name;
  }
}

/// `args` under a fresh bpf backend (timing) and under ptrace (count mode).
struct Both {
  TraceResult bpf, ptrace;
};
Both run_both(const std::string& program, const TempDir& dir) {
  Both b;
  BpfBackend bpf{TracerOptions{}};
  Command one({program, dir.file("bpf"), std::to_string(kN)});
  b.bpf = bpf.run(one.fn(), std::chrono::seconds(30));
  Tracer tracer(TracerOptions{TraceMode::kCount});
  Command two({program, dir.file("ptrace"), std::to_string(kN)});
  b.ptrace = tracer.run(two.fn(), std::chrono::seconds(30));
  return b;
}

TEST(BpfBackend, EveryThreadIsCountedAndTimed) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const Both b = run_both(PROGRAM_THREADS_WRITER, dir);
  expect_every_call_timed(b.bpf);
  EXPECT_EQ(b.bpf.exit_code, 0);
  EXPECT_EQ(call_counts(b.bpf), (std::map<std::string, std::uint64_t>{{"write", 4 * kN}}));
  EXPECT_EQ(call_counts(b.bpf), call_counts(b.ptrace));
  EXPECT_EQ(b.bpf.syscalls.at("write").bytes, std::filesystem::file_size(dir.file("bpf")));
  EXPECT_EQ(b.bpf.syscalls.at("write").errors, 0u);
  EXPECT_EQ(count_lines(dir.file("bpf")), 4 * kN);
}

TEST(BpfBackend, ForkedChildrenAreCountedAndTheBiasTakenOut) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  const Both b = run_both(PROGRAM_FORK_WRITER, dir);
  expect_every_call_timed(b.bpf);
  EXPECT_EQ(call_counts(b.bpf), call_counts(b.ptrace));
  EXPECT_EQ(calls(b.bpf.syscalls, "write"), 3 * kN);
  ASSERT_TRUE(b.bpf.bpf.has_value());
  EXPECT_EQ(subtracted_cost_ns(b.bpf), b.bpf.bpf->bias_ns);
}

TEST(BpfBackend, FailedCallsAreErrorsWithoutBytes) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  BpfBackend bpf{TracerOptions{}};
  Command cmd({PROGRAM_FAILING_WRITER, dir.file("out"), std::to_string(kN)});
  const TraceResult r = bpf.run(cmd.fn(), std::chrono::seconds(30));
  Tracer tracer(TracerOptions{.time_all = true});
  Command again({PROGRAM_FAILING_WRITER, dir.file("again"), std::to_string(kN)});
  const TraceResult p = tracer.run(again.fn(), std::chrono::seconds(30));
  ASSERT_TRUE(r.available);
  EXPECT_EQ(call_counts(r), call_counts(p));
  for (const auto& [name, s] : r.syscalls) {
    EXPECT_EQ(s.errors, p.syscalls.at(name).errors) << name;
    EXPECT_EQ(s.bytes, p.syscalls.at(name).bytes) << name;
  }
}

TEST(BpfBackend, ATimedOutChildIsKilled) {
  SKIP_WITHOUT_BPF();
  BpfBackend bpf{TracerOptions{}};
  const TraceResult r = bpf.run(
      []() noexcept {
        ::pause();
        return 0;
      },
      std::chrono::milliseconds(200));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
}

/// `iobench --strategy all --lines 1000` with `tracer` (and `extra`), as JSON.
json all_strategies(const std::string& tracer, const std::string& dir,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--strategy", "all",      "--lines",  "1000",     "--runs",
                                   "1",          "--warmup", "0",        "--format", "json",
                                   "--dir",      dir,        "--tracer", tracer};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessOutput r = testing::iobench(args);
  EXPECT_EQ(r.status, 0) << tracer << "\n" << r.err;
  return r.status == 0 ? json::parse(r.out) : json::object();
}

/// strategy -> syscall -> calls, and strategy -> write_calls.
std::map<std::string, std::map<std::string, std::uint64_t>> counts_of(const json& doc) {
  std::map<std::string, std::map<std::string, std::uint64_t>> out;
  for (const json& r : doc.value("results", json::array())) {
    auto& row = out[r["strategy"].get<std::string>()];
    for (const auto& [name, s] : r["syscalls"].items()) row[name] = s["calls"].get<std::uint64_t>();
    if (r["write_calls"].is_number()) row["(write_calls)"] = r["write_calls"].get<std::uint64_t>();
  }
  return out;
}

TEST(BpfBackend, StrategiesCountAsPtraceAndPerfDoInJson) {
  SKIP_WITHOUT_BPF();
  ScratchDir dir;
  const json bpf = all_strategies("bpf", dir.path());
  ASSERT_TRUE(bpf.contains("results"));
  EXPECT_EQ(bpf["config"]["tracer"]["backend"], "bpf");
  EXPECT_TRUE(bpf["config"]["tracer"]["overhead_ns"].is_number());
  for (const json& r : bpf["results"]) {
    if (r["status"] != "ok") continue;  // a ring the kernel refuses
    EXPECT_EQ(r["trace_backend"], "bpf") << r["strategy"];
    EXPECT_EQ(r["timed_calls"], r["write_calls"]) << r["strategy"];
  }
  const auto counts = counts_of(bpf);
  EXPECT_EQ(counts.at("unbuffered").at("write"), 1000u);
  EXPECT_EQ(counts, counts_of(all_strategies("ptrace", dir.path())));
  if (!perf_counting_unavailable().empty())
    ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
  if (const std::string why = perf_counting_unavailable(); !why.empty()) {
    std::printf("[ bpf      ] perf unavailable (%s): compared with ptrace only\n", why.c_str());
  } else {
    EXPECT_EQ(counts, counts_of(all_strategies("perf", dir.path(), {"--count-only"})));
  }
  for (const auto& [strategy, row] : counts)
    for (const auto& [name, n] : row)
      std::printf("[ bpf      ] %-18s %s=%llu\n", strategy.c_str(), name.c_str(),
                  static_cast<unsigned long long>(n));
}

TEST(BpfBackend, RefusedInOneLineWhereItCannotLoad) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become nobody";
  ScratchDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const ProcessOutput r = testing::run_process(
      {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", IOBENCH_BIN,
       "--lines", "100", "--strategy", "unbuffered", "--tracer", "bpf", "--dir", dir.path()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("iobench: error: --tracer bpf: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(BpfBackend, VersionSaysWhetherTheClockWasBuilt) {
  const ProcessOutput r = testing::iobench({"--version"});
  EXPECT_EQ(r.status, 0);
  const std::string want =
      tracing::bpf_clock_built()
          ? "kernel clock (bpf): built\n"
          : "kernel clock (bpf): " + tracing::bpf_clock_unavailable_reason() + "\n";
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iobench::tracer_test
