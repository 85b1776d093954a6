// A timed call's figures at its exit stop, and the one place that turns them into the
// tally's times with what a calibration says to subtract: at once, or, in a run that had no
// calibration yet, held until the calibrations right after it (tracer.cc, "Calibrate later").
#pragma once

#include <cstdint>

#include "tracer/run_delay.h"
#include "tracer/tally.h"

namespace iobench::tracing {

/// What a calibration makes of a timed call's interval (tracer.h, TracerCalibration).
struct Subtraction {
  SleepRule sleep;
  std::int64_t overhead_ns = 0;  // an unprobed call's: the whole calibrated cost
  std::int64_t residual_ns = 0;  // a probed call's: its cost beyond its probe
};

/// One timed call, as the session saw it at its exit stop (and its probe's).
struct TimedCall {
  TraceTally::Slot slot;
  long rval = 0;
  bool is_error = false;
  bool moves_data = false;
  bool probed = false;  // interval.probe is known
  std::uint32_t weight = 0;
  IntervalSample interval;
  std::int64_t probe_level_ns = 0;  // the recent probes' median when it ended (probe.h)
};

/// Records `call` into the tally its slot points into, less `s`.
void record_timed_call(const TimedCall& call, const Subtraction& s);

}  // namespace iobench::tracing
