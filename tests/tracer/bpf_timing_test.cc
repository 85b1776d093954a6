// The kernel clock's own figures: its bias and cost measured on a null syscall, and the main
// thread's wait for a CPU. How close its times come to the untraced truth, and how fast it
// starts, depend on the host: tools/bpf_accuracy.sh and tools/demo_share.sh print them.
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "bpf_test_util.h"

namespace iobench::tracer_test {
namespace {

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
  // Measured whatever the host's speed did: every figure from the same stretches. How large
  // the bias and the cost are is the host's (tools/bpf_accuracy.sh prints them).
  EXPECT_GT(b.kernel_ns, 0);
  EXPECT_GT(b.untraced_ns, 0);
  // And the clock still counts a run after it: the bias left no process of ours tracked.
  const auto r = run_under(clock, {PROGRAM_WRITER, dir.file("out"), "10"});
  EXPECT_EQ(bpf_calls(r, SYS_write), 10u);
  EXPECT_EQ(find_call(r, SYS_getppid), nullptr);  // timed for the bias, never reported
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
  const auto shared = run_under(clock, {PROGRAM_WRITER, dir.file("shared"), "50000"});
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
