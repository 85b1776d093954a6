#include "tracer/timed_call.h"

namespace iobench::tracing {

void record_timed_call(const TimedCall& call, const Subtraction& s) {
  const IntervalSample& i = call.interval;
  const std::int64_t slept = s.sleep.slept(i.off, i.slices);
  if (!call.probed) {  // the calibrated cost
    const std::int64_t ns = i.cpu - s.overhead_ns;
    TraceTally::record_exit(call.slot, call.rval, call.is_error, call.moves_data, ns, slept,
                            ns + slept, call.weight);
    return;
  }
  // The sums take the call less its own probe: the probe shares the call's CPU, speed and
  // placement, and a spike in either cancels on average (tally.h trims what is left). The
  // histogram takes the call less the recent probes' median: one call's time, not the
  // difference of two noisy ones. Both less the calibrated residual (the caches the
  // tracer's work evicted).
  const std::int64_t paired = i.cpu - i.probe - s.residual_ns;
  const std::int64_t shown = i.cpu - call.probe_level_ns - s.residual_ns + slept;
  TraceTally::record_exit(call.slot, call.rval, call.is_error, call.moves_data, paired, slept,
                          shown, call.weight);
}

}  // namespace iobench::tracing
