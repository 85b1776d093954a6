// The tracer: ptrace + a seccomp-BPF filter that stops the tracee only on the syscalls we
// count, so everything else runs at full speed. See README "How it measures".
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "result.h"

namespace iobench {

struct TracerOptions {
  TraceMode mode = TraceMode::kTiming;  // kCount: one stop per call, no times, no bytes
  bool trace_all = false;               // stop on every syscall (strace -c style table)
  bool pin = true;                      // tracer and tracee on one CPU: ~3x cheaper stops
};

/// Builds the filter once (allocation must happen before fork) and runs children under it.
class Tracer {
 public:
  explicit Tracer(TracerOptions options);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Forks; the child waits until it is attached, loads the filter, then calls child_main,
  /// whose return value becomes its exit status (child_main may also exec). child_main must
  /// not throw. Follows threads, forks, vforks and execs. When ptrace is refused the child
  /// still runs, untraced, and the result has available == false with the reason.
  /// A child still running after `timeout` is killed (the result says so via term_signal).
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt);

  /// The tracer's own cost per traced call (entry stop to exit stop, minus the syscall's
  /// untraced cost), measured once on first use in timing mode.
  std::int64_t overhead_ns();

  const TracerOptions& options() const noexcept { return options_; }

 private:
  struct Impl;
  TracerOptions options_;
  std::unique_ptr<Impl> impl_;
};

/// The write family: the syscalls iobench counts as writes to a file.
bool is_write_family(std::string_view syscall_name) noexcept;

}  // namespace iobench
