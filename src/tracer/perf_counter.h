// The perf counting backend: the kernel counts the write family with one tracepoint counter
// per syscall (perf_event_open on sys_enter_<name>), so the child never stops. Exact counts
// at ~0.1 us per call instead of a ptrace stop's ~4 us; no bytes, times, errors or files.
// i386-ABI calls are counted too, by number (CompatEvent).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"
#include "tracer/backend_traits.h"
#include "tracer/counting_backend.h"

namespace iobench {

/// Why perf counting cannot work here (not root, perf_event_paranoid, no tracefs, no syscall
/// tracepoints), in one line; empty when it can. Opens and closes one counter on itself.
std::string perf_counting_unavailable();

/// What --tracer perf does first, as perf does: mounts tracefs when it is missing and we are
/// root (tracer/tracefs.h). Empty, or why the mount failed.
std::string set_up_perf_counting();

/// perf: exact calls of the write family, of the whole process tree, and nothing else. Its
/// line in tracer/backends.cc.
inline constexpr BackendTraits kPerfTraits{
    .name = "perf",
    .label = "perf tracepoint counters",
    .help = "kernel tracepoint counters: --count-only, root, tracefs",
    .noun = "perf counters",
    .call_cost_ns = 100,  // a counter's increment in the kernel; the child never stops
};

/// Same shape as Tracer::run, counting instead of tracing (see README "How it measures").
class PerfCounter final : public CountingBackend {
 public:
  /// Reads the write family's tracepoint ids now (the parent may allocate; the child not).
  /// `foreign_abis`: count i386-ABI calls too (CompatEvent).
  explicit PerfCounter(bool foreign_abis = true);
  /// As the backend list builds it: TracerOptions::foreign_abis is all it reads.
  explicit PerfCounter(const TracerOptions& options);

  /// Forks; the child spins on shared memory (no syscall of the write family) until a counter
  /// per write-family syscall is open on it with inherit (its threads and children count),
  /// then calls child_main, whose return value becomes its exit status (it may exec). Waits
  /// until the child and every descendant are gone (a daemon that outlives the child is
  /// waited for, as the ptrace backend does; see process.h). A tree still running after
  /// `timeout` is killed (timed_out). Throws Interrupted on SIGINT/SIGTERM/SIGHUP after
  /// killing and reaping the whole tree. When counting is impossible the child is still run,
  /// uncounted, and the result has available == false with the reason; so too when the
  /// kernel detached the counters from part of the tree (an exec that changed credentials),
  /// since the counts would then be short. The result: mode kCount, backend
  /// "perf", syscalls with calls only, no files (counters cannot tell fds apart).
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt) override;
  std::int64_t overhead_ns() override { return 0; }  // times nothing, subtracts nothing

 private:
  struct Event {
    std::string syscall;  // as the tracer names it ("sendfile", not the tracepoint's "sendfile64")
    long id;              // tracepoint id from tracefs
  };
  /// The write family's counters on `pid` in events_ order, then the two lifecycle counters
  /// if known; none (an uncounted run) with the reason in `why` if any could not be opened.
  std::vector<UniqueFd> open_counters(pid_t pid, std::string& why) const;
  /// Fills result.syscalls; sets `why` when the lifecycle counters show lost counts.
  void read_counts(const std::vector<UniqueFd>& counters, TraceResult& result,
                   std::string& why) const;
  /// For each of compat_, in order: a raw_syscalls:sys_enter counter filtered on its number,
  /// then one on the native call with that number (an empty fd when none); none, with the
  /// reason in `why`, when any cannot be opened.
  std::vector<UniqueFd> open_compat_counters(pid_t pid, std::string& why) const;
  /// Adds the non-native ABI's rows ("write (i386)") to result.syscalls.
  void read_compat_counts(const std::vector<UniqueFd>& counters, TraceResult& result) const;

  std::vector<Event> events_;
  /// The write family of a non-native ABI (i386 on x86-64). The per-syscall tracepoints
  /// ignore such calls (x86's ARCH_TRACE_IGNORE_COMPAT_SYSCALLS); raw_syscalls:sys_enter sees
  /// every call but tells ABIs apart by nothing but the number. So a call is counted as the
  /// raw events with its number less the native call with the same number (x86-64's stat
  /// has i386 write's 4), which the tracepoints count exactly.
  struct CompatEvent {
    std::string syscall;  // its row: "write (i386)"
    int nr;               // its number in its ABI: raw_syscalls' id
    long native_id;       // the tracepoint of the native call numbered nr; -1: none
  };
  std::vector<CompatEvent> compat_;
  long raw_enter_id_ = -1;  // raw_syscalls:sys_enter
  /// sched_process_fork and sched_process_exit, counted like the write family: a task whose
  /// counters the kernel detached (an exec that changes credentials) misses its exit.
  struct Lifecycle {
    long fork_id = -1;
    long exit_id = -1;
  } lifecycle_;
  // One disabled counter per tracepoint on ourselves, held for our lifetime: the kernel
  // registers a tracepoint with its first counter and unregisters it (an RCU grace period,
  // tens of ms) with its last, so without these every run would pay that 16 times over.
  std::vector<UniqueFd> keep_registered_;
  std::string unavailable_;  // why events_ could not be read, or empty
};

}  // namespace iobench
