#include "tracer/cross_check.h"

#include <sys/syscall.h>

#include <cmath>
#include <exception>
#include <utility>

#include "tracer/bpf_backend.h"
#include "tracer/probe.h"
#include "tracer/syscalls.h"
#include "tracer/tracer.h"

namespace iobench {

using namespace tracing;

namespace {

struct Total {
  std::uint64_t calls = 0;
  std::int64_t ns = 0, ci95_ns = 0;
};

/// The write family's calls and time in `t`; the errors add up, not in quadrature: most of
/// each is the one correction every call shares.
Total write_family_total(const TraceResult& t) {
  Total total;
  for (const auto& [name, st] : t.syscalls) {
    if (!is_write_family(name)) continue;
    total.calls += st.calls;
    total.ns += st.time_ns;
    total.ci95_ns += st.time_ci95_ns;
  }
  return total;
}

/// `run` without ptrace's probes: the write(-1) calls on no file.
BpfClockRun without_probes(BpfClockRun run) {
  for (const BpfFileStats& f : run.files) {
    if (f.fd != kProbeFd || f.ino != 0 || f.nr != SYS_write || f.compat) continue;
    for (BpfSyscallStats& s : run.syscalls) {
      if (s.nr != SYS_write || s.compat) continue;
      s.calls -= std::min(s.calls, f.calls);
      s.timed -= std::min(s.timed, f.calls);
      s.errors -= std::min(s.errors, f.errors);
      s.total_ns -= f.total_ns;
    }
  }
  return run;
}

class CrossCheckBackend final : public CountingBackend, private SessionWatch {
 public:
  explicit CrossCheckBackend(const TracerOptions& options)
      : tracer_(options), clock_(write_family_config(bpf_syscall_table())) {
    tracer_.watch_sessions(this);
  }

  TraceResult run(const std::function<int()>& child_main,
                  std::optional<std::chrono::nanoseconds> timeout) override {
    std::string why = cross_check_unavailable();
    if (!why.empty()) {
      TraceResult r = tracer_.run(child_main, timeout);
      r.cross_check = CrossCheck{.unavailable_reason = "kernel clock: " + why};
      return r;
    }
    failure_.clear();
    kernel_ = BpfClockRun{};
    struct Detach {  // a throw out of the session leaves nothing attached
      BpfClock& clock;
      ~Detach() { (void)clock.stop(); }
    } detach{clock_};
    TraceResult r = tracer_.run(child_main, timeout);
    r.cross_check = judge(r);
    return r;
  }

  std::int64_t overhead_ns() override { return tracer_.overhead_ns(); }

 private:
  void started(pid_t pid) noexcept override {
    try {
      clock_.start(pid);
    } catch (const std::exception& e) {
      failure_ = std::string("kernel clock: ") + e.what();
    }
  }
  void ended() noexcept override { kernel_ = clock_.stop(); }

  CrossCheck judge(const TraceResult& r) {
    if (!r.available) return {.unavailable_reason = "not traced: " + r.unavailable_reason};
    if (!failure_.empty()) return {.unavailable_reason = failure_};
    if (r.mode != TraceMode::kTiming) return {.unavailable_reason = "count mode: nothing timed"};
    if (!r.time_unavailable_reason.empty())
      return {.unavailable_reason = "ptrace times unknown: " + r.time_unavailable_reason};
    return cross_check_of(r, kernel_, bias_beside_run(clock_));
  }

  Tracer tracer_;
  BpfClock clock_;
  std::string failure_;  // the clock's, from started()
  BpfClockRun kernel_;   // the last session's, from ended()
};

}  // namespace

std::string cross_check_unavailable() { return bpf_clock_unavailable_reason(); }

std::unique_ptr<CountingBackend> make_cross_check(const TracerOptions& options) {
  return std::make_unique<CrossCheckBackend>(options);
}

CrossCheck cross_check_of(const TraceResult& ptrace, const BpfClockRun& kernel,
                          const BpfBias& bias) {
  const Total estimate = write_family_total(ptrace);
  // The bpf backend's own figures for these calls: its bias and its interval (bpf_backend.h).
  const Total clock =
      write_family_total(to_trace_result(without_probes(kernel), TraceMode::kTiming, bias));
  CrossCheck c{.calls = estimate.calls,
               .kernel_calls = clock.calls,
               .estimate_ns = estimate.ns,
               .estimate_ci95_ns = estimate.ci95_ns,
               .kernel_ns = clock.ns,
               .kernel_ci95_ns = clock.ci95_ns,
               .kernel_bias_ns = std::llround(bias.bias_ns)};
  if (estimate.calls == 0) {
    c.unavailable_reason = "no write-family call";
  } else if (clock.ns <= 0) {
    c.unavailable_reason = "the kernel clock timed nothing";
  } else {
    const auto e = static_cast<double>(estimate.ns), k = static_cast<double>(clock.ns);
    c.ratio = e / k;
    c.ratio_ci95 = c.ratio * std::hypot(static_cast<double>(estimate.ci95_ns) / std::max(e, 1.0),
                                        static_cast<double>(clock.ci95_ns) / k);
  }
  return c;
}

}  // namespace iobench
