#include "tracer/perf_counter.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "base/capabilities.h"
#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "base/unique_fd.h"
#include "tracer/child_launch.h"
#include "tracer/syscalls.h"
#include "tracer/tracefs.h"
#include "tracer/tracer.h"

namespace iobench {

using namespace tracing;

namespace {

// Tracepoints are named after the kernel's SYSCALL_DEFINE, which is not always libseccomp's
// name for the call: x86_64's sendfile is sendfile64 in the kernel.
std::string tracepoint_name(std::string_view syscall) {
  if (syscall == "sendfile") return "sendfile64";
  return std::string(syscall);
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

/// Like open_counter, but disabled until PERF_EVENT_IOC_ENABLE and still inherited: a
/// filtered counter must not count before its filter is set.
int open_gated_counter(long id, pid_t pid) noexcept {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof(attr);
  attr.config = static_cast<__u64>(id);
  attr.disabled = 1;
  attr.inherit = 1;
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

/// The tracepoint id of native syscall `name`: the kernel names some after their
/// SYSCALL_DEFINE (x86-64's stat is newstat). -1 when it has none: not implemented here.
long native_tracepoint(const std::string& root, const std::string& name) {
  const long id = tracefs_event_id(root, "syscalls/sys_enter_" + tracepoint_name(name));
  return id >= 0 ? id : tracefs_event_id(root, "syscalls/sys_enter_new" + name);
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

std::string set_up_perf_counting() { return mount_tracefs_if_missing(); }

std::string perf_counting_unavailable() {
  const std::string root = tracefs_root();
  if (root.empty()) return no_tracefs_reason();
  const RaisedCapabilities raised;
  UniqueFd probe(open_counter(tracefs_event_id(root, "syscalls/sys_enter_write"), 0));
  if (!probe) return open_error(errno);
  return {};
}

PerfCounter::PerfCounter(const TracerOptions& options) : PerfCounter(options.foreign_abis) {}

PerfCounter::PerfCounter(bool foreign_abis) {
  const std::string root = tracefs_root();
  if (root.empty()) {
    unavailable_ = no_tracefs_reason();
    return;
  }
  for (std::string_view name : write_family_names()) {
    const long id = tracefs_event_id(root, "syscalls/sys_enter_" + tracepoint_name(name));
    // No tracepoint: the call does not exist on this architecture, so nothing can make it.
    if (id < 0) continue;
    events_.push_back({std::string(name), id});
    // Best effort: if this fails, run() finds out why and reports it.
    if (UniqueFd fd(open_counter(id, 0, true)); fd) keep_registered_.push_back(std::move(fd));
  }
  raw_enter_id_ = tracefs_event_id(root, "raw_syscalls/sys_enter");
  // Each compat counter is looked at on every syscall of the tree: ~0.7 us a call.
  std::vector<ForeignWriteCall> foreign;
  if (foreign_abis) foreign = foreign_write_calls();
  for (ForeignWriteCall& call : foreign) {
    const long native_id = call.native.empty() ? -1 : native_tracepoint(root, call.native);
    compat_.push_back({std::move(call.name), call.nr, native_id});
    if (native_id >= 0)
      if (UniqueFd fd(open_counter(native_id, 0, true)); fd)
        keep_registered_.push_back(std::move(fd));
  }
  if (!compat_.empty() && raw_enter_id_ >= 0)
    if (UniqueFd fd(open_counter(raw_enter_id_, 0, true)); fd)
      keep_registered_.push_back(std::move(fd));
  // Both or neither: they are only ever compared with each other.
  const long fork_id = tracefs_event_id(root, "sched/sched_process_fork");
  const long exit_id = tracefs_event_id(root, "sched/sched_process_exit");
  if (fork_id < 0 || exit_id < 0) return;
  lifecycle_ = {fork_id, exit_id};
  for (long id : {fork_id, exit_id})
    if (UniqueFd fd(open_counter(id, 0, true)); fd) keep_registered_.push_back(std::move(fd));
}

TraceResult PerfCounter::run(const std::function<int()>& child_main,
                             std::optional<std::chrono::nanoseconds> timeout) {
  const RaisedCapabilities raised;  // setcap'd: perf_event_open; the child drops them
  TraceResult result;
  result.mode = TraceMode::kCount;
  result.backend = kPerfTraits.name;
  SharedMapping<Handshake> hs;
  if (!hs) throw_errno("mmap", errno, kExitRunFailed);
  const pid_t parent = ::getpid();
  const pid_t pid = fork_tree();
  if (pid < 0) throw_spawn_error("fork for the counted run (perf)", errno);
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
  ProcessTree tree(pid);  // from here on, a throw kills and reaps the child and all it starts

  // The child is parked and has made no thread or child yet: inherit covers all it will make.
  std::string why = unavailable_;
  std::vector<UniqueFd> counters = open_counters(pid, why);
  std::vector<UniqueFd> compat = open_compat_counters(pid, why);
  const std::int64_t start = monotonic_ns();
  hs->gate.store(kGo, std::memory_order_release);
  // Until every descendant is gone: a daemonised grandchild's writes are the command's too,
  // and an exiting task folds its counts into the counter it inherited from before it can
  // be reaped, so once the tree is gone the totals are final.
  const TreeEnd end = tree.wait(deadline_after(timeout));
  result.wall_ns = end.main_exit_ns - start;
  result.timed_out = end.timed_out;
  if (WIFEXITED(end.status)) result.exit_code = WEXITSTATUS(end.status);
  if (WIFSIGNALED(end.status)) result.term_signal = WTERMSIG(end.status);
  if (why.empty()) read_counts(counters, result, why);
  if (why.empty()) read_compat_counts(compat, result);
  if (!why.empty()) {
    result.unavailable_reason = why;
    result.syscalls.clear();
    return result;
  }
  result.available = true;
  return result;
}

std::vector<UniqueFd> PerfCounter::open_counters(pid_t pid, std::string& why) const {
  std::vector<UniqueFd> counters;
  for (const Event& e : events_) {
    if (!why.empty()) break;
    counters.emplace_back(open_counter(e.id, pid));
    if (!counters.back()) why = open_error(errno);
  }
  for (long id : {lifecycle_.fork_id, lifecycle_.exit_id}) {
    if (!why.empty() || id < 0) break;
    counters.emplace_back(open_counter(id, pid));
    if (!counters.back()) why = open_error(errno);
  }
  if (!why.empty()) counters.clear();  // run it uncounted, as the tracer runs what it cannot trace
  return counters;
}

void PerfCounter::read_counts(const std::vector<UniqueFd>& counters, TraceResult& result,
                              std::string& why) const {
  std::vector<std::uint64_t> counts;
  for (const UniqueFd& fd : counters) {
    std::uint64_t count = 0;
    if (::read(fd.get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count))
      throw_errno("read perf counter", errno, kExitRunFailed);
    counts.push_back(count);
  }
  for (std::size_t i = 0; i < events_.size(); ++i)
    if (counts[i] != 0) result.syscalls[events_[i].syscall].calls = counts[i];
  if (counts.size() < events_.size() + 2) return;  // no sched tracepoints: nothing to check
  // Every task of the tree counts its own exit unless its counters were taken away: the
  // kernel detaches them from a task whose exec changes its credentials (set-user-ID or
  // set-group-ID to another id, or an unreadable binary: perf_event_exit_task in
  // begin_new_exec), and what it does afterwards is lost. Tasks = the child + every fork or
  // clone a counted task made. (io_uring's kernel workers exit without a fork event: they
  // can only add exits, so a loss may hide behind them, never appear out of nothing.)
  const std::uint64_t forks = counts[events_.size()];
  const std::uint64_t exits = counts[events_.size() + 1];
  if (exits < forks + 1)
    why = fmt::format(
        "the kernel took the perf counters from {} of {} tasks at an exec that changed "
        "credentials (set-user-ID, set-group-ID or unreadable program), so the counts would be "
        "short; use --tracer ptrace",
        forks + 1 - exits, forks + 1);
}

std::vector<UniqueFd> PerfCounter::open_compat_counters(pid_t pid, std::string& why) const {
  std::vector<UniqueFd> counters;
  if (!why.empty() || compat_.empty()) return counters;
  // Counting them by number needs the raw tracepoint: without it, 0 would be a lie.
  if (raw_enter_id_ < 0) {
    why =
        "no raw_syscalls:sys_enter tracepoint, so i386-ABI calls cannot be counted; use "
        "--tracer ptrace";
    return counters;
  }
  for (const CompatEvent& e : compat_) {
    UniqueFd raw(open_gated_counter(raw_enter_id_, pid));
    const std::string filter = fmt::format("id == {}", e.nr);
    if (!raw || ::ioctl(raw.get(), PERF_EVENT_IOC_SET_FILTER, filter.c_str()) != 0) {
      why = open_error(errno);
      break;
    }
    counters.push_back(std::move(raw));
    counters.emplace_back(e.native_id >= 0 ? open_gated_counter(e.native_id, pid) : -1);
    if (e.native_id >= 0 && !counters.back()) {
      why = open_error(errno);
      break;
    }
  }
  // Enabled together once every filter is set. The parked child makes no call numbered as
  // one of these meanwhile (sched_yield, getppid), so each pair starts level.
  for (const UniqueFd& fd : counters) {
    if (!why.empty()) break;
    if (fd && ::ioctl(fd.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) why = open_error(errno);
  }
  if (!why.empty()) counters.clear();
  return counters;
}

void PerfCounter::read_compat_counts(const std::vector<UniqueFd>& counters,
                                     TraceResult& result) const {
  auto read_count = [](const UniqueFd& fd) -> std::uint64_t {
    std::uint64_t count = 0;
    if (!fd) return 0;
    if (::read(fd.get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count))
      throw_errno("read perf counter", errno, kExitRunFailed);
    return count;
  };
  for (std::size_t i = 0; i < compat_.size() && 2 * i + 1 < counters.size(); ++i) {
    const std::uint64_t raw = read_count(counters[2 * i]);
    const std::uint64_t native = read_count(counters[2 * i + 1]);
    if (raw > native) result.syscalls[compat_[i].syscall].calls = raw - native;
  }
}

}  // namespace iobench
