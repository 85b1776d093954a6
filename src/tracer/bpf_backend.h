// The kernel clock as a counting backend (--tracer bpf): BpfClock (bpf_clock.h) loaded once
// per backend, its run turned into the TraceResult the ptrace backend fills, with the clock's
// bias measured next to each run and taken out of every call.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "tracer/backend_traits.h"
#include "tracer/bpf_clock.h"
#include "tracer/counting_backend.h"

namespace iobench {

struct TracerOptions;

/// bpf: every call timed in the kernel, of any syscall, with its return, per file (named
/// and classified from what the kernel saw at the call) and per process: auto takes it
/// wherever it loads.
inline constexpr BackendTraits kBpfTraits{
    .name = "bpf",
    .label = "kernel clock (eBPF)",
    .help = "eBPF kernel clock: every call timed in the kernel; root or CAP_BPF + CAP_PERFMON",
    .noun = "kernel clock",
    .call_cost_ns = 450,  // the enter and exit programs, measured by bpf_stats: ~430 ns a call
    .times = true,
    .returns = true,
    .per_file = true,
    .per_process = true,
    .every_syscall = true,
    .subtracts_tracer_cost = true,      // its bias, measured next to each run
    .correction = "kernel clock bias",  // < 0 where the interval misses the entry and exit path
    .costs_measured_beside_runs = true,
    .pins = false,
    .automatic = true,
    .passes_first_interrupt = true,  // the command's own SIGINT seen by a program (signal_generate)
    .note_when_passed_over = false,  // a plain user (no setcap) is the usual case: README
};

/// The syscall table the kernel clock's results are named by (both ABIs), built once.
const tracing::SyscallTable& bpf_syscall_table();
/// The clock's bias beside a run: 8 stretches of 2,500 calls each way, ~100 ms where a call
/// takes ~1 us; twice that with `null_call` (getppid's stretches too: --trace-all).
tracing::BpfBias bias_beside_run(tracing::BpfClock& clock, bool null_call = true);

/// Why --tracer bpf cannot run here, in one line (bpf_clock_unavailable_reason()); empty
/// when it can.
std::string bpf_backend_unavailable();

class BpfBackend final : public CountingBackend {
 public:
  explicit BpfBackend(const TracerOptions& options);
  ~BpfBackend() override;
  BpfBackend(const BpfBackend&) = delete;
  BpfBackend& operator=(const BpfBackend&) = delete;

  /// BpfClock::run, then the clock's bias (short getppid and write stretches) in timing mode:
  /// measured anew beside a run of 10,000 calls or more, else the last run's.
  /// Throws Error when the program does not load.
  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout = std::nullopt) override;
  /// The bias subtracted per call (ns, rounded; may be negative), measured now if no run has.
  std::int64_t overhead_ns() override;

 private:
  const tracing::BpfBias& bias();
  TraceMode mode_;
  bool trace_all_;  // other calls than the write family's: their bias needs getppid's stretches
  bool command_gets_first_interrupt_;  // `trace`: README "Ctrl-C"
  tracing::BpfClock clock_;
  std::optional<tracing::BpfBias> bias_;  // of the last run
};

/// A BpfClockRun as a TraceResult (mode kTiming: times less `bias`; kCount: calls only),
/// files classified as classify_fd would have. In bpf_result.cc.
TraceResult to_trace_result(const tracing::BpfClockRun& run, TraceMode mode,
                            const tracing::BpfBias& bias);

}  // namespace iobench
