#include "tracer/bpf_backend.h"

#include <cmath>
#include <string>
#include <vector>

#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/tracer.h"

namespace iobench {

using namespace tracing;

namespace {

// Cheap next to a run: 8 short stretches of 2,500 calls (short, so most sit in one of the
// host's speed levels): ~100 ms of writes where a call takes ~1 us, as long again with
// getppid's.
constexpr int kBiasStretches = 8;
constexpr int kBiasCallsPerStretch = 2500;
// A run of fewer calls takes the last run's bias: an error of a few ns a call moves its time
// by microseconds, and measuring again beside each of the demo's small rows cost it 0.5 s.
constexpr std::uint64_t kFreshBiasCalls = 10000;
// With none yet, such a run measures a short one (~5 ms), for the same reason: `iobench
// trace -- true` paid 50 ms for it.
constexpr int kShortBiasStretches = 4;
constexpr int kShortBiasCallsPerStretch = 500;

}  // namespace

const SyscallTable& bpf_syscall_table() {
  static const SyscallTable t;
  return t;
}

BpfBias bias_beside_run(BpfClock& clock, bool null_call) {
  return clock.bias(kBiasStretches, kBiasCallsPerStretch, null_call);
}

std::string bpf_backend_unavailable() { return bpf_clock_unavailable_reason(); }

BpfBackend::BpfBackend(const TracerOptions& options)
    : mode_(options.mode),
      trace_all_(options.trace_all),
      command_gets_first_interrupt_(options.command_gets_first_interrupt),
      clock_(write_family_config(bpf_syscall_table(), options.trace_all)) {}

BpfBackend::~BpfBackend() = default;

const BpfBias& BpfBackend::bias() {
  if (!bias_) bias_ = bias_beside_run(clock_, trace_all_);
  return *bias_;
}

TraceResult BpfBackend::run(const std::function<int()>& child_main,
                            std::optional<std::chrono::nanoseconds> timeout) {
  const BpfClockRun run = clock_.run(child_main, timeout, command_gets_first_interrupt_);
  if (mode_ != TraceMode::kTiming) return to_trace_result(run, mode_, BpfBias{});
  std::uint64_t calls = 0;
  for (const auto& sc : run.syscalls) calls += sc.calls;
  const bool fresh = calls >= kFreshBiasCalls;
  if (fresh) bias_.reset();  // next to this run: the host's speed now
  if (!bias_ && !fresh)
    bias_ = clock_.bias(kShortBiasStretches, kShortBiasCallsPerStretch, trace_all_);
  TraceResult r = to_trace_result(run, mode_, bias());
  r.cost_measured_beside = fresh && r.tracing_cost_ns.has_value();
  return r;
}

std::int64_t BpfBackend::overhead_ns() {
  if (mode_ != TraceMode::kTiming) return 0;
  return std::llround(bias().write_bias_ns);  // the write family's: what the rows are about
}

}  // namespace iobench
