#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "child.h"
#include "error.h"
#include "line_format.h"
#include "temp_dir.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"
#include "verify.h"

namespace iobench {

struct Runner::Impl {
  const BenchOptions& options;
  TempDir dir;
  std::string canonical_dir;
  std::unique_ptr<Tracer> tracer;
  std::unique_ptr<PerfCounter> perf;  // instead of tracer with --tracer perf
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
    if (options.trace && options.tracer.backend == TracerBackend::kPerf) {
      perf = std::make_unique<PerfCounter>();
    } else if (options.trace) {
      TracerOptions t = options.tracer;
      // Calibrate on the filesystem being measured: the corrected call walks the same path.
      if (t.calibration_dir.empty()) t.calibration_dir = dir.path();
      tracer = std::make_unique<Tracer>(t);
    }
  }
};

Runner::Runner(const BenchOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Runner::~Runner() = default;

const std::string& Runner::private_dir() const { return impl_->dir.path(); }

std::int64_t Runner::tracer_overhead_ns() const {
  if (!impl_->tracer || impl_->options.tracer.mode != TraceMode::kTiming) return 0;
  return impl_->tracer->overhead_ns();
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

// The rest of the write family (ftruncate, fallocate, the syncs) is traced and shown per
// syscall, but is not a "write": mmap makes no write call.
bool writes_data(const std::string& name) {
  static const char* const kData[] = {"write",    "writev",    "pwrite64", "pwritev",
                                      "pwritev2", "sendfile",  "splice",   "vmsplice",
                                      "copy_file_range"};
  return std::find(std::begin(kData), std::end(kData), name) != std::end(kData);
}

void attribute_write_calls(const TraceResult& trace, const std::string& target_path,
                           StrategyResult& result) {
  std::uint64_t calls = 0, timed = 0;
  std::int64_t time_ns = 0;
  double ci2 = 0;
  const SyscallStats* busiest = nullptr;  // the row's latency: its most frequent write call
  if (trace.backend == "perf") {
    // Counters cannot tell fds apart, so there are no per-file stats: count the whole child.
    // Exact all the same, because a strategy's child writes to nothing but its target file
    // (it reports through shared memory) and has one io_uring ring at most.
    for (const auto& [name, st] : trace.syscalls)
      if (writes_data(name) || name == "io_uring_enter") calls += st.calls;
    result.write_calls = calls;
    result.syscall_time_ns = 0;  // count mode: no times
    return;
  }
  for (const FileStats& f : trace.files) {
    // io_uring's writes reach the file with no write call: its io_uring_enter calls count.
    const bool ring = f.path == "anon_inode:[io_uring]";
    if (f.path != target_path && !ring) continue;
    for (const auto& [name, st] : f.syscalls) {
      if (ring ? name != "io_uring_enter" : !writes_data(name)) continue;
      calls += st.calls;
      timed += st.timed_calls;
      time_ns += st.time_ns;
      ci2 += static_cast<double>(st.time_ci95_ns) * static_cast<double>(st.time_ci95_ns);
      auto total = trace.syscalls.find(name);
      if (total != trace.syscalls.end() && (!busiest || total->second.calls > busiest->calls))
        busiest = &total->second;
    }
  }
  result.write_calls = calls;
  result.timed_calls = timed;
  result.syscall_time_ns = time_ns;
  result.syscall_time_ci95_ns = std::llround(std::sqrt(ci2));
  if (busiest) result.latency = busiest->latency;
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
  return verify_file(path, job.params.lines);
}

}  // namespace

StrategyResult Runner::run_one(const Strategy& s) {
  const BenchOptions& o = impl_->options;
  StrategyResult r;
  r.strategy = std::string(s.name);
  r.bytes = expected_bytes(o.params.lines);
  const std::string name = r.strategy + ".out";
  const std::string path = impl_->dir.file(name);
  const WriteJob job{path.c_str(), o.params, r.bytes};

  std::vector<std::int64_t> times, cpus, minflt, majflt, nvcsw, nivcsw;
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
  const bool traced = impl_->tracer || impl_->perf;
  auto notify = [&](int run, RunKind kind) {
    if (impl_->observer) impl_->observer({s.name, run, total + (traced ? 1 : 0), kind});
  };
  for (int i = 0; i < total; ++i) {
    notify(i + 1, i < o.warmup ? RunKind::kWarmup : RunKind::kTimed);
    ChildRun run = run_untraced(s, job, o.timeout);
    if (!account(run)) return r;
    if (i >= o.warmup) {
      times.push_back(run.elapsed_ns);
      cpus.push_back(run.cpu_ns);
      minflt.push_back(run.usage.ru_minflt);
      majflt.push_back(run.usage.ru_majflt);
      nvcsw.push_back(run.usage.ru_nvcsw);
      nivcsw.push_back(run.usage.ru_nivcsw);
    }
    const bool last = i == total - 1 && !traced;
    if (!(last && o.keep)) ::unlink(path.c_str());  // O_EXCL: every run creates the file anew
  }
  r.time_ns = summarize(times);
  r.cpu_ns = summarize(cpus);
  auto med = [](std::vector<std::int64_t> v) {
    return static_cast<std::uint64_t>(summarize(std::move(v)).median);
  };
  r.minor_faults = med(minflt);
  r.major_faults = med(majflt);
  r.voluntary_cs = med(nvcsw);
  r.involuntary_cs = med(nivcsw);

  if (traced) {
    notify(total + 1, RunKind::kTraced);
    ChildRun run = impl_->perf ? run_traced(s, job, *impl_->perf, o.timeout)
                               : run_traced(s, job, *impl_->tracer, o.timeout);
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
