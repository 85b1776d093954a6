// --cross-check: the ptrace estimate against the kernel clock, both timing the same calls of
// the same run. The counts must agree exactly. How close the two times come depends on the
// host (its syscall path, its load): tools/cross_check.sh prints that ratio, no test judges it.
#include <sys/syscall.h>

#include <cstdio>
#include <memory>

#include "bpf_test_util.h"
#include "tracer/counting_backend.h"
#include "tracer/cross_check.h"

namespace iobench::tracer_test {
namespace {

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
  // Both sides timed the calls: the one reason that would be a defect is that none was seen.
  EXPECT_NE(c.unavailable_reason, "no write-family call");
  EXPECT_EQ(r.backend, "ptrace");
  EXPECT_EQ(c.calls, 5000u);
  // ptrace's probes (write(-1), one per sampled call) are the kernel's only extra writes.
  EXPECT_EQ(c.kernel_calls, 5000u);
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
