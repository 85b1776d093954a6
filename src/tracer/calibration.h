// Calibration: what one traced call costs the tracer, so that run() can subtract it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "tracer/run_delay.h"
#include "tracer/seccomp_filter.h"
#include "tracer/tally.h"
#include "tracer/timed_call.h"
#include "tracer/tracer.h"

namespace iobench::tracing {

/// Untraced/traced batch pairs, after the warm-up.
inline constexpr std::size_t kCalibrationPairs = 60;
/// Untraced batches timed before the filter is loaded: the fallback when it is refused.
inline constexpr std::size_t kCalibrationPrefilterBatches = 15;

/// The file the calibration child appends to: an unnamed file in `dir`, opened in the parent
/// before fork, its first line already written. Opened there so that its fd is the lowest
/// free one (within any RLIMIT_NOFILE) and known to the filter, which is built before fork
/// and lets write(2) on that one fd through untraced; the child inherits it. That first line
/// allocates the one block the calibration ever uses (calibration.cc, "Why one block"). An
/// empty fd, with `failure` saying why (what failed, where, and the errno text), otherwise.
UniqueFd open_calibration_target(const std::string& dir, std::string& failure);

/// Shared between the calibration child and the tracer (mapped before fork). The parent
/// reads it only after the child has been reaped.
struct CalibrationShared {
  int untraced_fd = -1;               // set before fork: the target (open_calibration_target)
  int traced_fd = -1;                 // the child's duplicate of it, which the filter stops on
  int error = 0;                      // the errno of the first call that failed; 0: none did
  const char* failed_call = nullptr;  // that call's name (a literal: async-signal-safe)
  double filter_cost_ns = -1;         // measure_filter_cost()'s, before fork; -1: unknown
  std::int64_t untraced_batch_ns[kCalibrationPairs] = {};
  std::int64_t prefilter_batch_ns[kCalibrationPrefilterBatches] = {};
};

/// Parent, before fork: what `filter` costs each untraced append, timed by two twins in
/// turn (filter_twins.h), into `shared`'s filter_cost_ns; left unknown when they failed.
void measure_filter_cost(CalibrationShared* shared, const SeccompFilter& filter);

/// Child, before the filter is loaded: duplicates the target's fd for the traced calls and
/// times untraced batches for the case the filter is refused (then every call stops, on
/// either fd). A failing call is recorded in `shared` and ends the calibration.
void calibration_prepare(CalibrationShared* shared) noexcept;
/// Child, under the calibration filter: warm-up, then untraced and traced batches in turn.
/// 0, or 1 once a call failed (recorded in `shared`).
int calibration_run(CalibrationShared* shared) noexcept;

/// Why a calibration child that did not finish cleanly measured nothing: its failed call,
/// else how it ended. `samples`: the traced calls the tracer timed.
std::string calibration_failure(const CalibrationShared& shared, const std::string& dir,
                                const TraceResult& result, std::size_t samples);

/// Traced calls the calibration child makes, warm-up included.
std::size_t calibration_traced_calls() noexcept;

/// Turns the child's untraced batches and the tracer's raw intervals of the traced calls
/// (in call order, warm-up included; none on the untraced fd) into the calibration.
/// `paired`: the filter was loaded, so the interleaved untraced batches really were.
TracerCalibration estimate_calibration(const CalibrationShared& shared,
                                       const std::vector<IntervalSample>& samples, bool paired);

/// Two calibrations ran in the same stop regime when their probes' medians are within this
/// factor: a stop costs the tracee one of a few levels far apart (tracer and tracee on one
/// CPU or on two, an idle CPU halted or not), and the residual differs between them.
inline constexpr double kSameRegime = 2;

/// The residual for a run whose probes' median was `level` (0: any regime), from the
/// calibrations in `history` that ran in its regime: their median and, as its error, the
/// spread of one calibration's (a run's own residual is one more draw) combined with their
/// standard error. Nullopt when none ran in that regime.
std::optional<Overhead> residual_in_regime(const std::vector<TracerCalibration>& history,
                                           double level);

/// Records the timed calls a run held for want of a calibration (SessionConfig's
/// hold_timed_calls) as the session would have had `c` come before the run; when `c`'s probes
/// failed, a probed call takes the whole calibrated cost instead (no residual corrects it),
/// as a run after `c` would not have probed. Returns the run's `probed` calls still probed.
std::uint64_t record_held_calls(const std::vector<TimedCall>& held, const TracerCalibration& c,
                                std::uint64_t probed);

}  // namespace iobench::tracing
