// The perf counting backend: the kernel counts the write family with one tracepoint counter
// per syscall (perf_event_open on sys_enter_<name>), so the child never stops. Exact counts
// at ~0.1 us per call instead of a ptrace stop's ~4 us; no bytes, times, errors or files.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "result.h"
#include "tracer/unique_fd.h"

namespace iobench {

/// Why perf counting cannot work here (not root, perf_event_paranoid, no tracefs, no syscall
/// tracepoints), in one line; empty when it can. Opens and closes one counter on itself.
std::string perf_counting_unavailable();

/// Same shape as Tracer::run, counting instead of tracing (see README "How it measures").
class PerfCounter {
 public:
  /// Reads the write family's tracepoint ids now (the parent may allocate; the child not).
  PerfCounter();

  /// Forks; the child spins on shared memory (no syscall of the write family) until a counter
  /// per write-family syscall is open on it with inherit (its threads and children count),
  /// then calls child_main, whose return value becomes its exit status (it may exec). Waits
  /// for the child only, not for descendants that outlive it. A child still running after
  /// `timeout` is killed (timed_out). Throws Interrupted on SIGINT/SIGTERM after killing and
  /// reaping it. When counting is impossible the child is still run, uncounted, and the
  /// result has available == false with the reason. The result: mode kCount, backend
  /// "perf", syscalls with calls only, no files (counters cannot tell fds apart).
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt);

 private:
  struct Event {
    std::string syscall;  // as the tracer names it ("sendfile", not the tracepoint's "sendfile64")
    long id;              // tracepoint id from tracefs
  };
  std::vector<Event> events_;
  // One disabled counter per tracepoint on ourselves, held for our lifetime: the kernel
  // registers a tracepoint with its first counter and unregisters it (an RCU grace period,
  // tens of ms) with its last, so without these every run would pay that 16 times over.
  std::vector<tracing::UniqueFd> keep_registered_;
  std::string unavailable_;  // why events_ could not be read, or empty
};

}  // namespace iobench
