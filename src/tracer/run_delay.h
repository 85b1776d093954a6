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
/// What one timed call's interval (resume at entry to exit stop) held, from the tracee's
/// schedstat read at both stops (a stopped task's figures are exact): `cpu`, the tracee's
/// own time on a CPU, which neither the tracer's work nor anyone's wait for a CPU can
/// inflate; `off`, the rest less both sides' run-queue waits: the tracer's latency, plus
/// whatever time the call slept (blocked on a disk, a lock, a full pipe).
struct IntervalSample {
  std::int64_t cpu = 0;
  std::int64_t off = 0;
  std::int64_t probe = -1;  // the CPU time of the probe that followed (probe.h); -1: none
  std::int64_t slices =
      1;  // times the tracee was put on a CPU: 1 unless it blocked or was preempted
};

/// How much of an interval's `off` is the call's own sleep: what exceeds the tracer's
/// latency (`baseline_ns`, calibrated) by more than its spread (`threshold_ns`). Below that
/// it cannot be told from the tracer's jitter and counts as none.
struct SleepRule {
  std::int64_t baseline_ns = 0;
  std::int64_t threshold_ns = INT64_MAX;  // calibration itself: never a sleep
  /// `slices`: times the tracee was put on a CPU in the interval. A call that slept left the
  /// CPU and came back (2 or more); one that ran through (1) did not sleep, whatever its off
  /// time says (a host that stole the CPU, a late wake-up of the tracer).
  std::int64_t slept(std::int64_t off, std::int64_t slices = 2) const noexcept {
    const std::int64_t excess = off - baseline_ns;
    return slices > 1 && excess > threshold_ns ? excess : 0;
  }
};

class RunDelay {
 public:
  RunDelay() noexcept = default;
  /// tid 0: the calling thread.
  explicit RunDelay(pid_t tid) noexcept;

  /// Cumulative run-queue wait in ns; 0 when schedstat is unavailable (no CONFIG_SCHED_INFO).
  std::int64_t read() const noexcept;
  /// Cumulative time on a CPU (the first field, sum_exec_runtime) and run-queue wait.
  struct Times {
    std::int64_t cpu = 0, wait = 0;
    std::int64_t slices = 0;  // the third field: times the task was put on a CPU
  };
  Times read_times() const noexcept;
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }

 private:
  UniqueFd fd_;
};

}  // namespace iobench::tracing
