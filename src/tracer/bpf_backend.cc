#include "tracer/bpf_backend.h"

#include <sys/wait.h>

#include <cmath>
#include <string>

#include "tracer/syscalls.h"
#include "tracer/tally.h"
#include "tracer/tracer.h"

namespace iobench {

using namespace tracing;

namespace {

// Cheap next to a run: 4 stretches of 5,000 getppid calls each way, ~15 ms in all.
constexpr int kBiasStretches = 4;
constexpr int kBiasCallsPerStretch = 5000;

/// The syscall table, built once: names of both ABIs as the ptrace backend prints them.
const SyscallTable& table() {
  static const SyscallTable t;
  return t;
}

std::string syscall_name(int nr, bool compat) {
  const auto& abis = syscall_abis();
  const std::size_t abi = compat ? 1 : 0;
  if (abi >= abis.size()) return "syscall " + std::to_string(nr);
  const long key = table().key(abis[abi].arch, nr);
  return key < 0 ? "syscall " + std::to_string(nr) : table().info(key).name;
}

/// Half-width of the 95% interval of `calls` times a median whose spread is half the IQR
/// over `stretches`: one figure for every call, so its error adds up, not averages.
std::int64_t per_call_ci95_ns(std::uint64_t calls, double spread_ns, int stretches) {
  if (stretches <= 0) return 0;
  const double sigma = spread_ns / 0.6745;  // half the IQR of a normal is 0.6745 sd
  const double se_median = 1.2533 * sigma / std::sqrt(stretches);
  return std::llround(1.96 * se_median * static_cast<double>(calls));
}

std::int64_t bias_ci95_ns(std::uint64_t calls, const BpfBias& bias) {
  return per_call_ci95_ns(calls, bias.bias_spread_ns, bias.stretches);
}

SyscallStats stats_of(const BpfSyscallStats& s, TraceMode mode, const BpfBias& bias) {
  SyscallStats out;
  out.calls = s.calls;
  if (mode != TraceMode::kTiming) return out;  // as ptrace's count mode: calls only
  out.errors = s.errors;
  out.bytes = s.bytes;
  out.timed_calls = s.calls;  // every call timed; one that never returned has no interval
  out.returns_unknown = s.timed == 0;
  const double taken = bias.bias_ns * static_cast<double>(s.timed);
  out.time_ns = std::max<std::int64_t>(0, s.total_ns - std::llround(taken));
  out.time_ci95_ns = bias_ci95_ns(s.timed, bias);
  if (s.latency && s.latency->weight() > 0) out.latency = latency_of(*s.latency, bias.bias_ns);
  return out;
}

}  // namespace

std::string bpf_backend_unavailable() { return bpf_clock_unavailable_reason(); }

TraceResult to_trace_result(const BpfClockRun& run, TraceMode mode, const BpfBias& bias) {
  TraceResult r;
  r.available = true;
  r.mode = mode;
  r.backend = kBpfTraits.name;
  for (const BpfSyscallStats& s : run.syscalls)
    r.syscalls[syscall_name(s.nr, s.compat)] = stats_of(s, mode, bias);
  r.wall_ns = run.wall_ns;
  if (WIFEXITED(run.status)) r.exit_code = WEXITSTATUS(run.status);
  if (WIFSIGNALED(run.status)) r.term_signal = WTERMSIG(run.status);
  r.timed_out = run.timed_out;
  if (mode == TraceMode::kTiming && bias.stretches > 0) {
    // Every traced call paid the programs' cost; the few untraced calls of the tree pay
    // only a lookup, left in.
    std::uint64_t calls = 0;
    for (const BpfSyscallStats& s : run.syscalls) calls += s.calls;
    r.tracing_cost_ns = std::llround(bias.overhead_ns * static_cast<double>(calls));
    r.tracing_cost_ci95_ns = per_call_ci95_ns(calls, bias.overhead_spread_ns, bias.stretches);
  }
  if (mode == TraceMode::kTiming)
    r.bpf = BpfDetails{.bias_ns = std::llround(bias.bias_ns),
                       .bias_spread_ns = std::llround(bias.bias_spread_ns),
                       .call_cost_ns = std::llround(bias.overhead_ns),
                       .call_cost_spread_ns = std::llround(bias.overhead_spread_ns)};
  return r;
}

BpfBackend::BpfBackend(const TracerOptions& options)
    : mode_(options.mode), clock_(write_family_config(table(), options.trace_all)) {}

BpfBackend::~BpfBackend() = default;

const BpfBias& BpfBackend::bias() {
  if (!bias_) bias_ = clock_.bias(kBiasStretches, kBiasCallsPerStretch);
  return *bias_;
}

TraceResult BpfBackend::run(const std::function<int()>& child_main,
                            std::optional<std::chrono::nanoseconds> timeout) {
  const BpfClockRun run = clock_.run(child_main, timeout);
  if (mode_ != TraceMode::kTiming) return to_trace_result(run, mode_, BpfBias{});
  bias_.reset();  // next to this run: the host's speed now, not at the last run
  return to_trace_result(run, mode_, bias());
}

std::int64_t BpfBackend::overhead_ns() {
  if (mode_ != TraceMode::kTiming) return 0;
  return std::llround(bias().bias_ns);
}

}  // namespace iobench
