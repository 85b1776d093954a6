// Calibration: what one traced call costs the tracer, so that run() can subtract it.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "tracer/tracer.h"

namespace iobench::tracing {

/// Shared between the calibration child and the tracer (mapped before fork).
struct CalibrationShared {
  std::atomic<std::int64_t> untraced_ps{0};  // per call, picoseconds
  std::atomic<int> fd{-1};
  std::atomic<int> error{0};
};

/// Child, before the filter is loaded: the untraced cost of the calibration call.
void calibration_untraced(CalibrationShared* shared) noexcept;
/// Child, under the filter: the same call, warm-up first, once per traced sample.
int calibration_traced(CalibrationShared* shared) noexcept;

/// Turns the child's untraced figure and the tracer's raw intervals (warm-up included, in
/// call order) into the calibration.
TracerCalibration estimate_calibration(std::int64_t untraced_ps,
                                       std::vector<std::int64_t> samples);

/// Traced calls the calibration child makes, warm-up included.
std::size_t calibration_calls() noexcept;

}  // namespace iobench::tracing
