// The tracer's counts against an independent witness: the kernel's own syscall tracepoint.
// (Its corrected time against the untraced cost is the host's figure: tools/accuracy.sh.)
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include <cmath>
#include <cstring>
#include <thread>

#include "tracer_test_util.h"

namespace iobench::tracer_test {
namespace {

constexpr char kTracefs[] = "/sys/kernel/tracing";
constexpr char kWriteEventId[] = "/sys/kernel/tracing/events/syscalls/sys_enter_write/id";

/// Mounts tracefs if it is not, and unmounts only what it mounted.
class TracefsMount {
 public:
  TracefsMount() {
    if (std::filesystem::exists(kWriteEventId)) return;
    mounted_ = ::mount("nodev", kTracefs, "tracefs", 0, nullptr) == 0;
  }
  ~TracefsMount() {
    if (mounted_) ::umount2(kTracefs, 0);
  }
  long event_id() const {
    std::ifstream in(kWriteEventId);
    long id = -1;
    in >> id;
    return in ? id : -1;
  }

 private:
  bool mounted_ = false;
};

using CrossCheck = TracerTest;

TEST_F(CrossCheck, WriteCountsMatchPerfTracepoint) {
  TracefsMount tracefs;
  const long id = tracefs.event_id();
  if (id < 0)
    GTEST_SKIP() << "no tracefs syscalls:sys_enter_write (not root, or no FTRACE_SYSCALLS)";

  for (const char* program : {PROGRAM_THREADS_WRITER, PROGRAM_FORK_WRITER, PROGRAM_FD_REUSE}) {
    SCOPED_TRACE(program);
    TempDir dir;
    struct Handshake {
      std::atomic<pid_t> pid;
      std::atomic<int> go;
    };
    SharedMapping<Handshake> hs;
    const bool reuse = std::string(program) == PROGRAM_FD_REUSE;
    Command cmd(reuse ? std::vector<std::string>{program, dir.path(), "300", PROGRAM_WRITER}
                      : std::vector<std::string>{program, dir.file("out"), "300"});
    // The counter must exist before the child's first write and follow its threads and
    // children (inherit): the child waits, spinning on shared memory, until it does.
    UniqueFd counter;
    int open_errno = 0;
    std::thread opener([&] {
      while (hs->pid.load() == 0) std::this_thread::yield();
      perf_event_attr attr{};
      attr.type = PERF_TYPE_TRACEPOINT;
      attr.size = sizeof(attr);
      attr.config = static_cast<__u64>(id);
      attr.inherit = 1;
      counter.reset(static_cast<int>(
          ::syscall(SYS_perf_event_open, &attr, hs->pid.load(), -1, -1, PERF_FLAG_FD_CLOEXEC)));
      open_errno = counter ? 0 : errno;
      hs->go = 1;
    });
    Tracer tracer(TracerOptions{TraceMode::kCount});
    const TraceResult r = tracer.run([&] {
      hs->pid = ::getpid();
      while (hs->go.load() == 0) ::sched_yield();  // not a write: nothing to count
      return cmd();
    });
    opener.join();
    if (!counter) GTEST_SKIP() << "perf_event_open: " << std::strerror(open_errno);
    std::uint64_t perf_count = 0;
    ASSERT_EQ(::read(counter.get(), &perf_count, sizeof(perf_count)),
              static_cast<ssize_t>(sizeof(perf_count)));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(calls(r.syscalls, "write"), perf_count);
    std::printf("[ perf     ] %s: tracer %llu writes, perf sys_enter_write %llu\n",
                std::filesystem::path(program).filename().c_str(),
                static_cast<unsigned long long>(calls(r.syscalls, "write")),
                static_cast<unsigned long long>(perf_count));
  }
}

}  // namespace
}  // namespace iobench::tracer_test
