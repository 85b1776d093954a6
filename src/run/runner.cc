#include "run/runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "base/error.h"
#include "run/child.h"
#include "run/run_samples.h"
#include "run/temp_dir.h"
#include "run/verify.h"
#include "strategies/support/line_format.h"
#include "tracer/counting_backend.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"
#include "tracer/write_calls.h"

namespace iobench {

struct Runner::Impl {
  const BenchOptions& options;
  TempDir dir;
  std::string canonical_dir;
  std::unique_ptr<CountingBackend> backend;  // null with --no-trace
  bool warned_untraceable = false;
  bool warned_no_seccomp = false;
  bool pinned = false;
  RunObserver observer;

  explicit Impl(const BenchOptions& o) : options(o), dir(o.dir) {
    // The tracer names files by what /proc/PID/fd shows: the canonical path.
    char* real = ::realpath(dir.path().c_str(), nullptr);
    canonical_dir = real ? real : dir.path();
    ::free(real);
    if (options.keep) dir.keep();
    if (options.trace) {
      TracerOptions t = options.tracer;
      // Calibrate on the filesystem being measured: the corrected call walks the same path.
      if (t.calibration_dir.empty()) t.calibration_dir = dir.path();
      backend = make_counting_backend(t);
    }
  }
};

Runner::Runner(const BenchOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Runner::~Runner() = default;

const std::string& Runner::private_dir() const { return impl_->dir.path(); }

std::int64_t Runner::tracer_overhead_ns() const {
  return impl_->backend ? impl_->backend->overhead_ns() : 0;
}

bool Runner::tracer_pinned() const { return impl_->pinned; }

void Runner::set_observer(RunObserver observer) { impl_->observer = std::move(observer); }

std::vector<StrategyResult> Runner::run(
    const std::function<void(const StrategyResult&)>& on_result) {
  std::vector<StrategyResult> results;
  for (const Strategy* s : impl_->options.strategies) {
    results.push_back(run_one(*s));
    if (on_result) on_result(results.back());
  }
  return results;
}

void attribute_write_calls(const TraceResult& trace, const std::string& target_path,
                           StrategyResult& result) {
  const WriteCount count = count_writes(trace, target_path);
  result.write_calls = count.calls;
  result.syscall_time_ns = count.time_ns;
  result.timed_calls = count.timed_calls;
  result.syscall_time_ci95_ns = count.time_ci95_ns;
  if (auto busiest = trace.syscalls.find(count.busiest); busiest != trace.syscalls.end())
    result.latency = busiest->second.latency;
}

void set_syscall_share(StrategyResult& r) {
  r.syscall_share.reset();
  const TraceResult* t = r.trace ? &*r.trace : nullptr;
  // Without the filter every syscall stops twice, a cost calibration does not measure.
  if (t == nullptr || !t->available || !t->seccomp || t->mode != TraceMode::kTiming ||
      !r.syscall_time_ns || syscall_time_uncertain(r))
    return;
  const auto own = static_cast<double>(t->cpu_ns - t->tracer_cost_ns);
  if (own <= 0) return;
  const double share = static_cast<double>(*r.syscall_time_ns) / own;
  // Above 1 by more than the time's own error: the correction is off, not the calls.
  if (share - static_cast<double>(r.syscall_time_ci95_ns) / own > 1) return;
  r.syscall_share = std::clamp(share, 0.0, 1.0);
}

namespace {

/// Why a run failed, in one line, or "" when it did not.
std::string run_failure(const ChildRun& run, const Strategy& s, const WriteJob& job,
                        const std::string& path) {
  if (run.timed_out) return "timed out";
  if (run.term_signal != 0)
    return fmt::format("killed by signal {} ({})", run.term_signal, ::strsignal(run.term_signal));
  if (!run.finished) return fmt::format("child exited with status {} before reporting", run.exit_code);
  if (run.outcome.status != RunStatus::kOk) return run.outcome.message;
  if (!s.writes_file) {
    if (run.outcome.produced_bytes != job.expected_bytes)
      return fmt::format("formatted {} bytes, expected {}", run.outcome.produced_bytes,
                         job.expected_bytes);
    return verify_file(path, 0);  // the file it created must stay empty
  }
  return verify_file(path, job.params.lines, line_format(job.params));
}

}  // namespace

StrategyResult Runner::run_one(const Strategy& s) {
  const BenchOptions& o = impl_->options;
  StrategyResult r;
  r.strategy = std::string(s.name);
  r.bytes = expected_bytes(o.params);
  const std::string name = r.strategy + ".out";
  const std::string path = impl_->dir.file(name);
  const WriteJob job{path.c_str(), o.params, r.bytes};

  RunSamples samples;
  // Returns false when the row is finished (unsupported or failed).
  auto account = [&](const ChildRun& run) {
    std::string why = run_failure(run, s, job, path);
    if (!why.empty()) {
      if (run.finished && run.outcome.status == RunStatus::kUnsupported) {
        r.status = ResultStatus::kUnsupported;
        r.verified.reset();
      } else {
        r.status = run.timed_out ? ResultStatus::kTimeout : ResultStatus::kFailed;
        r.verified = false;
      }
      r.error = why;
      ::unlink(path.c_str());  // never leave a partial file behind
      return false;
    }
    r.verified = true;
    return true;
  };

  const int total = o.warmup + o.runs;
  const bool traced = impl_->backend != nullptr;
  auto notify = [&](int run, RunKind kind) {
    if (impl_->observer) impl_->observer({s.name, run, total + (traced ? 1 : 0), kind});
  };
  for (int i = 0; i < total; ++i) {
    notify(i + 1, i < o.warmup ? RunKind::kWarmup : RunKind::kTimed);
    ChildRun run = run_untraced(s, job, o.timeout);
    if (!account(run)) return r;
    if (i >= o.warmup) samples.add(run.elapsed_ns, run.usage);
    const bool last = i == total - 1 && !traced;
    if (!(last && o.keep)) ::unlink(path.c_str());  // O_EXCL: every run creates the file anew
  }
  samples.summarize_into(r);

  if (traced) {
    notify(total + 1, RunKind::kTraced);
    ChildRun run = run_traced(s, job, *impl_->backend, o.timeout);
    if (run.trace) {
      const TraceResult& t = *run.trace;
      if (!t.available && !impl_->warned_untraceable) {
        fmt::print(stderr, "iobench: warning: cannot trace ({}); syscall counts unavailable\n",
                   t.unavailable_reason);
        impl_->warned_untraceable = true;
      }
      if (t.available && !t.seccomp && !impl_->warned_no_seccomp) {
        fmt::print(stderr, "iobench: warning: seccomp filter refused; tracing every syscall with "
                           "PTRACE_SYSCALL (two stops per call: slower traced runs)\n");
        impl_->warned_no_seccomp = true;
      }
      if (t.available) {
        impl_->pinned = t.pinned;
        attribute_write_calls(t, impl_->canonical_dir + "/" + name, r);
      }
    }
    // Wrong bytes from the traced run fail the row too: the counts would describe them.
    if (!account(run)) return r;
    r.traced_time_ns = run.elapsed_ns;
    r.trace = std::move(run.trace);
    set_syscall_share(r);
  }

  if (o.keep)
    fmt::print(stderr, "kept: {}\n", path);  // the last run's file, verified
  else
    ::unlink(path.c_str());
  return r;
}

}  // namespace iobench
