#include "tracer/perf_counter.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <vector>

#include "error.h"
#include "interrupt.h"
#include "tracer/child_launch.h"
#include "tracer/tracer.h"
#include "tracer/unique_fd.h"

namespace iobench {

using namespace tracing;

namespace {

// tracefs at its own mount point, or under debugfs on older set-ups. iobench never mounts it:
// that is the machine owner's call (`mount -t tracefs nodev /sys/kernel/tracing`).
constexpr const char* kTracefsRoots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

// Tracepoints are named after the kernel's SYSCALL_DEFINE, which is not always libseccomp's
// name for the call: x86_64's sendfile is sendfile64 in the kernel.
std::string tracepoint_name(std::string_view syscall) {
  if (syscall == "sendfile") return "sendfile64";
  return std::string(syscall);
}

long read_id(const std::string& root, const std::string& tracepoint) {
  std::ifstream in(root + "/events/syscalls/sys_enter_" + tracepoint + "/id");
  long id = -1;
  in >> id;
  return in ? id : -1;
}

/// The tracefs root whose syscall tracepoints we can read, or empty.
std::string tracefs_root() {
  for (const char* root : kTracefsRoots)
    if (read_id(root, "write") >= 0) return root;
  return {};
}

std::string no_tracefs_reason() {
  if (::geteuid() != 0) return "syscall tracepoints unreadable (needs root)";
  return "no syscall tracepoints (tracefs not mounted at /sys/kernel/tracing, or a kernel "
         "without CONFIG_FTRACE_SYSCALLS)";
}

/// A counting (not sampling) counter of one tracepoint on pid and, through inherit, on every
/// thread and child it creates from now on (unless disabled). -1 with errno on failure.
int open_counter(long id, pid_t pid, bool disabled = false) noexcept {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof(attr);
  attr.config = static_cast<__u64>(id);
  // A disabled counter only holds the tracepoint registered (PerfCounter::keep_registered_):
  // not inherited, or every child we fork would carry a copy of it.
  attr.disabled = disabled ? 1 : 0;
  attr.inherit = disabled ? 0 : 1;
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string open_error(int err) {
  if (err == EACCES || err == EPERM)
    return "perf_event_open: permission denied (tracepoints need root/CAP_PERFMON or "
           "kernel.perf_event_paranoid = -1)";
  if (err == ENOSYS) return "perf_event_open: not supported by this kernel";
  return std::string("perf_event_open: ") + std::strerror(err);
}

/// The gate the child spins on: it must make no write-family call before the counters exist,
/// so it waits on shared memory rather than reading a pipe.
enum Gate : int { kWait = 0, kGo = 1, kAbort = 2 };
struct Handshake {
  std::atomic<int> gate;
};

}  // namespace

std::string perf_counting_unavailable() {
  const std::string root = tracefs_root();
  if (root.empty()) return no_tracefs_reason();
  UniqueFd probe(open_counter(read_id(root, "write"), 0));
  if (!probe) return open_error(errno);
  return {};
}

PerfCounter::PerfCounter() {
  const std::string root = tracefs_root();
  if (root.empty()) {
    unavailable_ = no_tracefs_reason();
    return;
  }
  for (std::string_view name : write_family_names()) {
    const long id = read_id(root, tracepoint_name(name));
    // No tracepoint: the call does not exist on this architecture, so nothing can make it.
    if (id < 0) continue;
    events_.push_back({std::string(name), id});
    // Best effort: if this fails, run() finds out why and reports it.
    if (UniqueFd fd(open_counter(id, 0, true)); fd) keep_registered_.push_back(std::move(fd));
  }
}

TraceResult PerfCounter::run(const std::function<int()>& child_main,
                             std::optional<std::chrono::nanoseconds> timeout) {
  TraceResult result;
  result.mode = TraceMode::kCount;
  result.backend = "perf";
  SharedMapping<Handshake> hs;
  if (!hs) throw_errno("mmap", errno, kExitRunFailed);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork", errno, kExitRunFailed);
  if (pid == 0) {
    // Nothing outlives the tool: a parent that dies before releasing us takes us with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (int g; (g = hs->gate.load(std::memory_order_acquire)) != kGo;) {
      if (g == kAbort || ::getppid() != parent) ::_exit(kExitOrphaned);
      ::sched_yield();  // not in the write family, and the counters are not open yet anyway
    }
    try {
      ::_exit(child_main());
    } catch (...) {
      ::_exit(kExitThrew);
    }
  }

  // The child is parked and has made no thread or child yet: inherit covers all it will make.
  std::vector<UniqueFd> counters;
  std::string why = unavailable_;
  for (const Event& e : events_) {
    if (!why.empty()) break;
    counters.emplace_back(open_counter(e.id, pid));
    if (!counters.back()) why = open_error(errno);
  }
  if (!why.empty()) counters.clear();  // run it uncounted, as the tracer runs what it cannot trace
  // A pidfd turns "wait at most T, or until interrupted" into one poll (as run_untraced).
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd) {
    const int err = errno;
    hs->gate.store(kAbort, std::memory_order_release);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw_errno("pidfd_open", err, kExitRunFailed);
  }
  const auto start = std::chrono::steady_clock::now();
  hs->gate.store(kGo, std::memory_order_release);
  const auto deadline = timeout ? start + *timeout : std::chrono::steady_clock::time_point::max();
  for (;;) {
    int wait_ms = -1;
    if (timeout) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now()).count();
      wait_ms = static_cast<int>(std::clamp<long long>(left, 0, INT32_MAX));
    }
    pollfd pfd{pidfd.get(), POLLIN, 0};
    const int r = ::poll(&pfd, 1, wait_ms);
    if (r > 0) break;
    if (r == 0) {
      ::kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    if (errno == EINTR && interrupt_signal()) {
      ::kill(pid, SIGKILL);
      break;
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("waitpid", errno, kExitRunFailed);
  }
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - start).count();
  throw_if_interrupted();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  if (!why.empty()) {
    result.unavailable_reason = why;
    return result;
  }
  // The child has exited, and an exiting task folds its (and its threads') counts into the
  // inherited parent counter before it can be reaped: the totals are final.
  for (std::size_t i = 0; i < counters.size(); ++i) {
    std::uint64_t count = 0;
    if (::read(counters[i].get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count))
      throw_errno("read perf counter", errno, kExitRunFailed);
    if (count != 0) result.syscalls[events_[i].syscall].calls = count;
  }
  result.available = true;
  return result;
}

}  // namespace iobench
