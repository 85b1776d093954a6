// --cross-check: the ptrace estimate held to the kernel clock in the same run. The ptrace
// backend (Tracer) runs as ever; the kernel clock (BpfClock) follows exactly the traced
// run's tree, attached when the program is released and detached once its tree is gone, so
// no calibration is timed by it and the kernel's interval of each call holds none of the
// ptrace stops (they come before sys_enter and after sys_exit). The run's TraceResult is
// ptrace's, with a CrossCheck (base/result.h) beside it.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "tracer/bpf_clock.h"
#include "tracer/counting_backend.h"

namespace iobench {

struct TracerOptions;

/// Why the cross-check cannot time anything here (the kernel clock's reason), or empty.
std::string cross_check_unavailable();

/// The ptrace backend with the kernel clock beside it (TracerOptions::cross_check). Where the
/// clock cannot load, the run is ptrace's alone and its CrossCheck says why.
std::unique_ptr<CountingBackend> make_cross_check(const TracerOptions& options);

/// What the two clocks make of the write family of one run: ptrace's corrected estimate
/// against the kernel's total of the same calls less `bias` per call. The kernel's count of
/// write(-1, ...) is left out: those are ptrace's probes (tracer/probe.h), which ptrace
/// itself does not count.
CrossCheck cross_check_of(const TraceResult& ptrace, const tracing::BpfClockRun& kernel,
                          const tracing::BpfBias& bias);

}  // namespace iobench
