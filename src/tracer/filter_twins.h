// What the seccomp filter costs a call it lets through, timed paired. A filtered task takes
// the slow syscall entry and runs the filter on every call; the calibration's untraced
// batches pay that, a real untraced run does not. Timing it as the difference between
// batches before and after the filter was loaded compares two stretches milliseconds apart,
// and this VM's speed moves by ~40% between such stretches: that difference read 0-205 ns
// where the filter costs 40-50. Here two forked twins, one under the filter, time the same
// batch by turns, a pair a fraction of a millisecond apart, as the calibration's own pairs.
#pragma once

#include <cstdint>
#include <vector>

#include "tracer/seccomp_filter.h"

namespace iobench::tracing {

/// One timed batch of calls in a twin: its CPU time in ns, or -1 when a call failed.
/// Async-signal-safe (it runs in a forked child). `filtered`: the twin under the filter,
/// where any call the filter stops on fails with ENOSYS, no tracer being there to take it.
using TwinBatch = std::int64_t (*)(void* arg, bool filtered) noexcept;

/// Pairs of batches timed by two twins in turn, the unfiltered one first in each pair,
/// after `warmup` untimed pairs: each pair's (filtered − unfiltered) ns. Empty when a twin
/// failed (the filter refused, a call failed, a twin waited over a second for its turn).
/// `arg` is copied into each twin with the rest of the parent's memory.
std::vector<std::int64_t> filter_twin_pairs(const SeccompFilter& filter, TwinBatch batch, void* arg,
                                            std::size_t pairs, std::size_t warmup);

}  // namespace iobench::tracing
