// A task's run-queue wait: time it was runnable but another task had its CPU.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "base/unique_fd.h"

namespace iobench::tracing {

/// Reads the second field of /proc/TID/schedstat (run_delay, ns) through an fd kept open,
/// so a reading costs one pread. Timed intervals subtract the tracer's and the tracee's
/// growth in it: time spent waiting for a CPU that a compiler, say, was using is neither
/// the syscall's cost nor the tracer's, and would otherwise land in the corrected time.
class RunDelay {
 public:
  RunDelay() noexcept = default;
  /// tid 0: the calling thread.
  explicit RunDelay(pid_t tid) noexcept;

  /// Cumulative run-queue wait in ns; 0 when schedstat is unavailable (no CONFIG_SCHED_INFO).
  std::int64_t read() const noexcept;
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }

 private:
  UniqueFd fd_;
};

}  // namespace iobench::tracing
