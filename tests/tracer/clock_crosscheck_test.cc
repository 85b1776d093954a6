// --cross-check: the ptrace estimate against the kernel clock, both timing the same calls of
// the same run. The counts must agree exactly; the times are a tolerance on a ratio, retried,
// since the ptrace estimate moves with the host's load (the machine the test runs on is
// often busy: a timing test, kept out of others' runs by its name).
#include <sys/syscall.h>

#include <cstdio>
#include <memory>

#include "bpf_test_util.h"
#include "tracer/counting_backend.h"
#include "tracer/cross_check.h"

namespace iobench::tracer_test {
namespace {

constexpr int kWrites = 100'000;
constexpr int kAttempts = 4;
constexpr double kTolerance = 0.25;  // the ratio within 25% of 1 in one attempt of four

class CrossCheckClock : public TracerTest {
 protected:
  std::unique_ptr<CountingBackend> backend() {
    TracerOptions o;
    o.calibration_dir = dir_.path();
    o.cross_check = true;
    return make_counting_backend(o);
  }
  TempDir dir_;
};

TEST_F(CrossCheckClock, SameCallsCountedByBoth) {
  SKIP_WITHOUT_BPF();
  auto b = backend();
  Command cmd({PROGRAM_WRITER, dir_.file("out"), "5000"});
  const TraceResult r = b->run(cmd.fn(), std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0);
  ASSERT_TRUE(r.cross_check.has_value());
  const CrossCheck& c = *r.cross_check;
  ASSERT_EQ(c.unavailable_reason, "");
  EXPECT_EQ(r.backend, "ptrace");
  EXPECT_EQ(c.calls, 5000u);
  // ptrace's probes (write(-1), one per sampled call) are the kernel's only extra writes.
  EXPECT_EQ(c.kernel_calls, 5000u);
  EXPECT_GT(c.kernel_ns, 0);
  EXPECT_GT(c.ratio, 0);
}

TEST_F(CrossCheckClock, EstimateWithinToleranceOfTheKernelClock) {
  SKIP_WITHOUT_BPF();
  auto b = backend();
  bool within = false;
  for (int i = 0; i < kAttempts && !within; ++i) {
    Command cmd({PROGRAM_WRITER, dir_.file("out"), std::to_string(kWrites)});
    const TraceResult r = b->run(cmd.fn(), std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0);
    ASSERT_TRUE(r.cross_check.has_value());
    const CrossCheck& c = *r.cross_check;
    ASSERT_EQ(c.unavailable_reason, "");
    ASSERT_EQ(c.kernel_calls, c.calls);
    std::printf(
        "[ cross-check ] ptrace %.0f ns/write, kernel %.0f (bias %lld): ratio %.2f ± %.2f\n",
        static_cast<double>(c.estimate_ns) / kWrites, static_cast<double>(c.kernel_ns) / kWrites,
        static_cast<long long>(c.kernel_bias_ns), c.ratio, c.ratio_ci95);
    // Within the tolerance widened by the ratio's own 95% interval: on an AMD EPYC VM under
    // a parallel suite the kernel read ~940 ns a write between ptrace's stops (cold caches
    // after each), ratios 0.67-0.79 ± 0.05-0.27 (2026-12-04).
    within = std::abs(c.ratio - 1) <= kTolerance + c.ratio_ci95;
  }
  EXPECT_TRUE(within) << "no attempt of " << kAttempts << " within ±" << kTolerance;
}

// Pure: the probes' write(-1) rows come out of the kernel's side, nothing else does.
TEST(CrossCheckOf, LeavesOutTheProbesOnly) {
  TraceResult p;
  SyscallStats w;
  w.calls = w.timed_calls = 10;
  w.time_ns = 2000;
  p.syscalls["write"] = w;
  tracing::BpfClockRun k;
  tracing::BpfSyscallStats kw;
  kw.nr = SYS_write;
  kw.calls = kw.timed = 14;
  kw.total_ns = 2400;
  k.syscalls.push_back(kw);
  tracing::BpfFileStats probes, file;
  probes.fd = -1;  // ptrace's probe: write(-1, NULL, 0), on no file
  probes.nr = file.nr = SYS_write;
  probes.calls = probes.errors = 4;
  probes.total_ns = 400;
  file.fd = 3;
  file.ino = 7;
  file.calls = 10;
  file.total_ns = 2000;
  k.files = {probes, file};
  const CrossCheck c = cross_check_of(p, k, tracing::BpfBias{});
  EXPECT_EQ(c.calls, 10u);
  EXPECT_EQ(c.kernel_calls, 10u);
  EXPECT_EQ(c.kernel_ns, 2000);
  EXPECT_DOUBLE_EQ(c.ratio, 1.0);
}

}  // namespace
}  // namespace iobench::tracer_test
