// The kernel clock's times: an ext4 write's kernel time beside the same write self-timed
// untraced in this test, the bias and cost of the programs, and the start-up cost.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "base/monotonic_clock.h"
#include "bpf_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr int kWrites = 20000;

/// Kernel ns per write of the writer program under `clock`.
double bpf_write_ns(tracing::BpfClock& clock, const std::string& path) {
  const auto r = run_under(clock, {PROGRAM_WRITER, path, std::to_string(kWrites)});
  const auto* w = find_call(r, SYS_write);
  if (w == nullptr || w->timed == 0) return 0;
  return static_cast<double>(w->total_ns) / static_cast<double>(w->timed);
}

// The figure iobench reports: the kernel interval less the write bias measured beside it. The
// raw interval misses the kernel's entry and exit path, 0.1 us on one host and 1 us on another.
TEST(BpfTiming, Ext4WriteNearItsUntracedSelfTimedCost) {
  SKIP_WITHOUT_BPF();
  TempDir dir;
  tracing::BpfClock clock(write_family());
  // Alternated, best of five: the machine's speed moves, a real mismatch stays.
  double best = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const double untraced = untraced_write_ns(dir.file("self"), kWrites);
    const double kernel = bpf_write_ns(clock, dir.file("traced"));
    const double bias = clock.bias(4, 20000).write_bias_ns;
    const double ratio = (kernel - bias) / untraced;
    std::printf(
        "attempt %d: bpf %.0f ns/write - bias %.0f ns, untraced %.0f ns/write, ratio %.2f\n",
        attempt, kernel, bias, untraced, ratio);
    if (std::abs(ratio - 1) < std::abs(best - 1)) best = ratio;
    if (ratio > 0.75 && ratio < 1.33) break;
  }
  EXPECT_GT(best, 0.75);
  EXPECT_LT(best, 1.33);
}

TEST(BpfTiming, MeasuresItsBiasAndCostOnANullSyscall) {
  SKIP_WITHOUT_BPF();
  tracing::BpfClock clock(write_family());
  TempDir dir;
  (void)run_under(clock, {PROGRAM_WRITER, dir.file("out"), "10"});
  const tracing::BpfBias b = clock.bias(8, 20000);  // beside the run, the same program
  std::printf(
      "getppid: untraced %.0f ns, kernel interval %.0f ns, bias %.0f ± %.0f ns, "
      "cost to the caller %.0f ± %.0f ns\n",
      b.untraced_ns, b.kernel_ns, b.bias_ns, b.bias_spread_ns, b.overhead_ns, b.overhead_spread_ns);
  // Kept: the stretches whose untraced sides agreed (bpf_bias.cc), all 8 if none did.
  EXPECT_GE(b.stretches, 1);
  EXPECT_LE(b.stretches, 8);
  EXPECT_GE(b.write_stretches, 1);  // the write family's bias, on /dev/null
  EXPECT_LE(b.write_stretches, 8);
  EXPECT_GT(b.kernel_ns, 0);
  EXPECT_GT(b.untraced_ns, 0);
  EXPECT_GT(b.overhead_ns, 0);  // the programs cost the traced call something
  EXPECT_NEAR(b.bias_ns, b.kernel_ns - b.untraced_ns, 0.5 * (b.kernel_ns + b.untraced_ns));
  // And the clock still counts a run after it: the bias left no process of ours tracked.
  const auto r = run_under(clock, {PROGRAM_WRITER, dir.file("out"), "10"});
  EXPECT_EQ(bpf_calls(r, SYS_write), 10u);
  EXPECT_EQ(find_call(r, SYS_getppid), nullptr);  // timed for the bias, never reported
}

/// ms for one `true` under `clock`, and what it spent where.
double time_true(tracing::BpfClock& clock, tracing::BpfClockTimings& timings) {
  const std::int64_t start = monotonic_ns();
  timings = run_under(clock, {"/bin/true"}).timings;
  return static_cast<double>(monotonic_ns() - start) / 1e6;
}

TEST(BpfTiming, StartsAndStopsQuickly) {
  SKIP_WITHOUT_BPF();
  std::vector<double> fresh, again;
  tracing::BpfClockTimings first, later;
  for (int i = 0; i < 3; ++i) {
    tracing::BpfClock clock(write_family());
    fresh.push_back(time_true(clock, first));  // loads the program
    again.push_back(time_true(clock, later));  // reuses it
  }
  std::printf(
      "trace true, fresh clock: %.1f ms (load %.1f, attach %.1f, detach %.1f, read "
      "%.1f ms); loaded clock: %.1f ms (reset %.1f ms)\n",
      *std::min_element(fresh.begin(), fresh.end()), first.load_ms, first.attach_ms,
      first.detach_ms, first.read_ms, *std::min_element(again.begin(), again.end()), later.load_ms);
  // Issue 26 wants <= 0.3 s on a busy machine; here a generous bound, the figure printed.
  EXPECT_LT(*std::min_element(fresh.begin(), fresh.end()), 600.0);
  EXPECT_LT(*std::min_element(again.begin(), again.end()), 100.0);
}

TEST(BpfTiming, CountsTheMainThreadsWaitForACpu) {
  SKIP_WITHOUT_BPF();
  cpu_set_t one, old;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(old), &old), 0);
  CPU_ZERO(&one);
  CPU_SET(::sched_getcpu(), &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);  // the children inherit it
  TempDir dir;
  tracing::BpfClock clock(write_family());
  const auto alone = run_under(clock, {PROGRAM_WRITER, dir.file("alone"), "20000"});
  // A thread, not a child: a run's tree takes every child of ours for its own.
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const auto shared = run_under(clock, {PROGRAM_WRITER, dir.file("shared"), "200000"});
  stop = true;
  spinner.join();
  ::sched_setaffinity(0, sizeof(old), &old);
  std::printf("waited %.1f of %.1f ms alone, %.1f of %.1f ms with a spinner on its CPU\n",
              alone.waited_ns / 1e6, alone.wall_ns / 1e6, shared.waited_ns / 1e6,
              shared.wall_ns / 1e6);
  EXPECT_GE(alone.waited_ns, 0);  // seen: the writer's leader exited under the clock
  EXPECT_LT(alone.waited_ns, alone.wall_ns);
  // Sharing its CPU with a spinner of equal weight, it waits about half its time.
  EXPECT_GT(shared.waited_ns, shared.wall_ns / 4);
  EXPECT_LT(shared.waited_ns, shared.wall_ns);
}

}  // namespace
}  // namespace iobench::tracer_test
