// Tracer::Impl, shared by the two halves of the Tracer: tracer.cc (fork, attach, release,
// run the session, correct its times) and tracer_calibration.cc (the calibrations that
// correct them). Private to those two files.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "base/result.h"
#include "tracer/probe.h"
#include "tracer/run_delay.h"
#include "tracer/seccomp_filter.h"
#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/timed_call.h"
#include "tracer/tracer.h"

namespace iobench {

namespace tracing {
class TraceSession;
}

class ChildGuard;  // tracer.cc: owns the forked child until a session takes over

struct Tracer::Impl {
  struct Hooks {
    TraceMode mode = TraceMode::kTiming;
    bool time_all = false;
    const tracing::SeccompFilter* filter = nullptr;  // null: the run filter
    const std::function<void()>* before_filter = nullptr;
    std::vector<tracing::IntervalSample>* samples = nullptr;
    tracing::SleepRule sleep;
    bool probe = tracing::kCanProbe;
    std::int64_t overhead_ns = 0;
    std::int64_t residual_ns = 0;
    bool hold_timed_calls = false;  // no calibration yet: one after the run corrects them
    int unsampled_fd = -1;
    const char* purpose = "the traced run";     // what a failed fork was for
    bool command_gets_first_interrupt = false;  // never for a calibration: it is ours
    SessionWatch* watch = nullptr;              // likewise
  };
  /// A finished session's result, before its times are corrected (tally.fill()).
  struct Traced {
    TraceResult result;
    tracing::TraceTally tally;             // moved from the session: `held`'s slots point into it
    std::vector<tracing::TimedCall> held;  // hold_timed_calls: the timed calls, not yet recorded
    std::uint64_t probed = 0;
    double probe_level_ns = 0;   // the recent probes' median: what was subtracted, typically
    double probe_median_ns = 0;  // all the run's probes' median: its stop regime
    std::size_t spinners = 0;    // idle spinners that ran beside it (idle_spinners.h)
    bool stops_unsteady = false;
  };

  explicit Impl(const TracerOptions& o) : options(o), filter(table.stop_set(), o.trace_all) {}

  Traced trace(const std::function<int()>& child_main,
               std::optional<std::chrono::nanoseconds> timeout, const Hooks& hooks);
  /// The finished session's figures, into `traced`; `start` is when the child was released.
  static void collect(tracing::TraceSession& session, std::int64_t start, Traced& traced);
  void run_untraced(ChildGuard& guard, pid_t pid, int parent_end,
                    std::optional<std::chrono::nanoseconds> timeout, TraceResult& result);
  void calibrate();
  /// Calibrate later: the calibrations for a run that had none before it, right after it (as
  /// many as ensure_calibrated() would have made), then its held calls recorded with the first
  /// of them as if it had come before. Returns that one, and sets `after` to the last.
  TracerCalibration calibrate_after(Traced& t, TracerCalibration& after);
  /// After run `t` (calibrated later or not): a calibration right after it into `after` when
  /// it timed enough calls, more when none recent ran in its stops' regime; the residual of
  /// that regime, else the median of them all.
  std::optional<tracing::Overhead> calibrate_beside(const Traced& t, bool later, bool calibrated,
                                                    TracerCalibration& after);
  bool calibrated() const { return calibration && calibration->failure.empty(); }
  /// Calibrates when there is no calibration yet (three times), or once more when the last
  /// one failed: the space or the fd it lacked may be back.
  void ensure_calibrated();
  /// The last calibration; the failure with its reason when it failed.
  const TracerCalibration& latest() const { return *calibration; }

  TracerOptions options;
  tracing::SyscallTable table;
  tracing::SeccompFilter filter;
  std::optional<TracerCalibration> calibration;
  std::vector<TracerCalibration> history;  // the recent probed calibrations, oldest first
  std::uint32_t calibrations = 0;          // calibrate() calls so far: PtraceDetails's count
  SessionWatch* watch = nullptr;
};

}  // namespace iobench
