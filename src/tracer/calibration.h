// Calibration: what one traced call costs the tracer, so that run() can subtract it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tracer/run_delay.h"
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

}  // namespace iobench::tracing
