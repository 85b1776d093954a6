// The perf counting backend: the kernel's tracepoint counters, exact, and equal to what the
// ptrace backend counts for every strategy and for real multi-threaded and forking programs.
// Root and tracefs only; skipped elsewhere.
#include <sys/mount.h>

#include <csignal>

#include "../kernel_probe.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "tracer/perf_counter.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr std::uint64_t kN = 3000;

class PerfBackend : public TracerTest {
 protected:
  void SetUp() override {
    TracerTest::SetUp();
    // Mounted if missing, and left mounted: unmounting would pull tracefs from under another
    // test of this suite that found it mounted and is running in parallel (ctest -j).
    if (!perf_counting_unavailable().empty())
      ::mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
    if (std::string why = perf_counting_unavailable(); !why.empty())
      GTEST_SKIP() << "perf counting unavailable: " << why;
  }
};

std::map<std::string, std::uint64_t> call_counts(const TraceResult& r) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [name, s] : r.syscalls) out[name] = s.calls;
  return out;
}

/// Runs the strategy in a child counted by perf, then in one traced by ptrace (count mode).
struct Both {
  TraceResult perf, ptrace;
};
Both count_strategy(const std::string& name, const StrategyParams& params) {
  const Strategy* strategy = find_strategy(name);
  EXPECT_NE(strategy, nullptr) << name;
  Both out;
  if (strategy == nullptr) return out;
  TempDir dir;
  for (int backend = 0; backend < 2; ++backend) {
    const std::string path = dir.file(std::to_string(backend));
    const WriteJob job{path.c_str(), params, expected_bytes(params.lines)};
    auto child = [&]() noexcept { return exit_status_of(strategy->run(job)); };
    if (backend == 0) {
      out.perf = PerfCounter().run(child, std::chrono::seconds(30));
    } else {
      Tracer tracer(TracerOptions{TraceMode::kCount});
      out.ptrace = tracer.run(child, std::chrono::seconds(30));
    }
  }
  return out;
}

TEST_F(PerfBackend, StrategiesCountExactlyAndAsPtraceDoes) {
  StrategyParams p;
  p.lines = kN;
  p.buffer_size = 1000;
  p.batch = 7;
  p.queue_depth = 2;
  const std::uint64_t bytes = expected_bytes(kN);
  struct Case {
    const char* strategy;
    const char* syscall;
    std::uint64_t calls;  // 0 for io_uring: only "equal to ptrace" is known
    StrategyParams params;
  };
  // io_uring's rounds depend on how fast completions come back, so two runs (one of them
  // slowed by ptrace) enter equally often only when every write fits in the queue at once:
  // default chunk and depth. (strategy_crosscheck_test compares within one run instead.)
  StrategyParams roomy;
  roomy.lines = kN;
  const Case cases[] = {
      {"unbuffered", "write", kN, p},
      {"unbuffered-pieces", "write", 3 * kN, p},
      {"buffered", "write", (bytes + p.buffer_size - 1) / p.buffer_size, p},
      {"writev", "writev", (kN + p.batch - 1) / p.batch, p},
      {"io_uring", "io_uring_enter", 0, roomy},
      {"mmap", "ftruncate", 1, p},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.strategy);
    const Both b = count_strategy(c.strategy, c.params);
    ASSERT_TRUE(b.perf.available) << b.perf.unavailable_reason;
    // Unsupported only where the kernel itself refuses the ring; failed never.
    const std::string may_refuse = testing::may_be_unsupported(c.strategy, false, "/tmp");
    if (b.perf.exit_code == kUnsupportedExit && !may_refuse.empty()) continue;
    EXPECT_EQ(b.perf.exit_code, 0) << "1: failed, 2: unsupported";
    EXPECT_EQ(b.perf.backend, "perf");
    EXPECT_EQ(b.perf.mode, TraceMode::kCount);
    EXPECT_TRUE(b.perf.files.empty());  // counters cannot tell fds apart
    if (c.calls != 0) {
      EXPECT_EQ(calls(b.perf.syscalls, c.syscall), c.calls);
    }
    EXPECT_GT(calls(b.perf.syscalls, c.syscall), 0u);
    if (std::string(c.strategy) == "mmap") {
      EXPECT_EQ(calls(b.perf.syscalls, "write"), 0u);
    }
    for (const auto& [name, s] : b.perf.syscalls) {
      EXPECT_EQ(s.bytes, 0u) << name;
      EXPECT_EQ(s.time_ns, 0) << name;
    }
    ASSERT_TRUE(b.ptrace.available) << b.ptrace.unavailable_reason;
    EXPECT_EQ(b.ptrace.exit_code, 0) << "1: failed, 2: unsupported";
    EXPECT_EQ(call_counts(b.perf), call_counts(b.ptrace));
    std::printf("[ perf     ] %-18s %s=%llu (ptrace %llu)\n", c.strategy, c.syscall,
                static_cast<unsigned long long>(calls(b.perf.syscalls, c.syscall)),
                static_cast<unsigned long long>(calls(b.ptrace.syscalls, c.syscall)));
  }
}

TEST_F(PerfBackend, EveryThreadIsCounted) {
  TempDir dir;
  const std::string n = std::to_string(kN);
  Command cmd({PROGRAM_THREADS_WRITER, dir.file("out"), n});
  const TraceResult r = PerfCounter().run(cmd.fn(), std::chrono::seconds(30));
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(call_counts(r), (std::map<std::string, std::uint64_t>{{"write", 4 * kN}}));
  EXPECT_EQ(count_lines(dir.file("out")), 4 * kN);
}

TEST_F(PerfBackend, ForkedChildrenAreCounted) {
  TempDir dir;
  Command cmd({PROGRAM_FORK_WRITER, dir.file("out"), std::to_string(kN)});
  const TraceResult r = PerfCounter().run(cmd.fn(), std::chrono::seconds(30));
  ASSERT_TRUE(r.available) << r.unavailable_reason;
  EXPECT_EQ(r.exit_code, 0);
  Tracer tracer(TracerOptions{TraceMode::kCount});
  Command again({PROGRAM_FORK_WRITER, dir.file("again"), std::to_string(kN)});
  const TraceResult p = tracer.run(again.fn(), std::chrono::seconds(30));
  EXPECT_EQ(call_counts(r), call_counts(p));
  EXPECT_EQ(calls(r.syscalls, "write"), 3 * kN);
}

TEST_F(PerfBackend, ATimedOutChildIsKilled) {
  const TraceResult r = PerfCounter().run(
      []() noexcept {
        ::pause();
        return 0;
      },
      std::chrono::milliseconds(200));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
}

}  // namespace
}  // namespace iobench::tracer_test
