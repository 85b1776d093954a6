// Calibration: what one traced call costs the tracer, so that run() can subtract it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tracer/run_delay.h"
#include "tracer/tally.h"
#include "tracer/tracer.h"

namespace iobench::tracing {

/// The fd the calibration child writes to untraced; its filter lets write(2) on it through.
inline constexpr int kCalibrationUntracedFd = 100;

/// Untraced/traced batch pairs, after the warm-up.
inline constexpr std::size_t kCalibrationPairs = 60;
/// Untraced batches timed before the filter is loaded: the fallback when it is refused.
inline constexpr std::size_t kCalibrationPrefilterBatches = 15;

/// Shared between the calibration child and the tracer (mapped before fork). The parent
/// reads it only after the child has been reaped.
struct CalibrationShared {
  const char* dir = nullptr;  // set before fork
  int fd = -1;
  int error = 0;
  std::int64_t untraced_batch_ns[kCalibrationPairs] = {};
  std::int64_t prefilter_batch_ns[kCalibrationPrefilterBatches] = {};
};

/// Child, before the filter is loaded: opens the file, on two fds, and times untraced
/// batches for the case the filter is refused (then every call stops, on either fd).
void calibration_prepare(CalibrationShared* shared) noexcept;
/// Child, under the calibration filter: warm-up, then untraced and traced batches in turn.
int calibration_run(CalibrationShared* shared) noexcept;

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

}  // namespace iobench::tracing
