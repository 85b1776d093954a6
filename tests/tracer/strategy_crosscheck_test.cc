// Every strategy, traced, against the kernel's own count: perf tracepoint counters on
// sys_enter_<syscall> for each syscall the write family uses, counted on the traced child
// (inherit: its threads and io_uring's task too). Root and tracefs only; skipped elsewhere.
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include <cstring>
#include <thread>

#include "../kernel_probe.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr char kTracefs[] = "/sys/kernel/tracing";
const char* const kSyscalls[] = {"write",     "writev",    "pwrite64", "io_uring_enter",
                                 "ftruncate", "fdatasync", "fsync",    "msync"};

long event_id(const std::string& syscall) {
  std::ifstream in(std::string(kTracefs) + "/events/syscalls/sys_enter_" + syscall + "/id");
  long id = -1;
  in >> id;
  return in ? id : -1;
}

class StrategyCrossCheck : public TracerTest {
 protected:
  void SetUp() override {
    TracerTest::SetUp();
    if (event_id("write") < 0) mounted_ = ::mount("nodev", kTracefs, "tracefs", 0, nullptr) == 0;
  }
  void TearDown() override {
    if (mounted_) ::umount2(kTracefs, 0);
    TracerTest::TearDown();
  }
  bool mounted_ = false;
};

struct Case {
  std::string strategy;
  StrategyParams params;
};

TEST_F(StrategyCrossCheck, EveryStrategysCountsEqualTheKernelsTracepointCounts) {
  if (event_id("write") < 0) GTEST_SKIP() << "no syscall tracepoints (not root, or no tracefs)";
  std::vector<Case> cases;
  for (const Strategy* s : all_strategies()) cases.push_back({std::string(s->name), {}});
  StrategyParams small;
  small.buffer_size = 1000;
  small.batch = 7;
  small.queue_depth = 2;
  small.stdio_buffer = 777;
  for (const char* s : {"buffered", "writev", "io_uring", "stdio"}) cases.push_back({s, small});

  for (const Case& c : cases) {
    SCOPED_TRACE(c.strategy);
    const Strategy* strategy = find_strategy(c.strategy);
    ASSERT_NE(strategy, nullptr);
    TempDir dir;
    const std::string path = dir.file("out");
    StrategyParams params = c.params;
    params.lines = 30000;
    const WriteJob job{path.c_str(), params, expected_bytes(params.lines)};

    struct Handshake {
      std::atomic<pid_t> pid;
      std::atomic<int> go;
    };
    SharedMapping<Handshake> hs;
    std::vector<UniqueFd> counters(std::size(kSyscalls));
    int open_errno = 0;
    std::thread opener([&] {
      while (hs->pid.load() == 0) std::this_thread::yield();
      for (std::size_t i = 0; i < std::size(kSyscalls); ++i) {
        perf_event_attr attr{};
        attr.type = PERF_TYPE_TRACEPOINT;
        attr.size = sizeof(attr);
        attr.config = static_cast<__u64>(event_id(kSyscalls[i]));
        attr.inherit = 1;
        counters[i].reset(static_cast<int>(
            ::syscall(SYS_perf_event_open, &attr, hs->pid.load(), -1, -1, PERF_FLAG_FD_CLOEXEC)));
        if (!counters[i]) open_errno = errno;
      }
      hs->go = 1;
    });
    Tracer tracer(TracerOptions{TraceMode::kCount});
    const TraceResult r = tracer.run([&]() noexcept {
      hs->pid = ::getpid();
      while (hs->go.load() == 0) ::sched_yield();  // not in the write family: nothing to count
      return exit_status_of(strategy->run(job));
    });
    opener.join();
    if (open_errno != 0) GTEST_SKIP() << "perf_event_open: " << std::strerror(open_errno);
    // Unsupported only where the kernel itself refuses the ring; failed never.
    const std::string may_refuse = testing::may_be_unsupported(c.strategy, false, dir.path());
    if (r.exit_code == kUnsupportedExit && !may_refuse.empty()) continue;
    ASSERT_EQ(r.exit_code, 0) << "1: failed, 2: unsupported";
    std::string summary;
    for (std::size_t i = 0; i < std::size(kSyscalls); ++i) {
      std::uint64_t kernel = 0;
      ASSERT_EQ(::read(counters[i].get(), &kernel, sizeof kernel),
                static_cast<ssize_t>(sizeof kernel));
      EXPECT_EQ(calls(r.syscalls, kSyscalls[i]), kernel) << kSyscalls[i];
      if (kernel) {  // appended piece by piece: GCC 12 warns -Wrestrict on " " + a string
        summary += ' ';
        summary += kSyscalls[i];
        summary += '=';
        summary += std::to_string(kernel);
      }
    }
    std::printf("[ perf     ] %-14s%s\n", c.strategy.c_str(),
                summary.empty() ? " (none)" : summary.c_str());
  }
}

}  // namespace
}  // namespace iobench::tracer_test
