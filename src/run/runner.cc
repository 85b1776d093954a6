#include "run/runner.h"

#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <random>

#include "base/error.h"
#include "run/child.h"
#include "run/host_info.h"
#include "run/noise.h"
#include "run/run_plan.h"
#include "run/run_samples.h"
#include "run/temp_dir.h"
#include "run/verify.h"
#include "strategies/support/line_format.h"
#include "tracer/counting_backend.h"
#include "tracer/cpu_pin.h"
#include "tracer/write_calls.h"

namespace iobench {

struct Runner::Impl {
  const BenchOptions& options;
  TempDir dir;
  std::string canonical_dir;
  std::string filesystem;                    // of options.dir, on every row
  std::unique_ptr<CountingBackend> backend;  // null with --no-trace
  bool warned_untraceable = false;
  bool warned_no_seccomp = false;
  bool pinned = false;
  RunObserver observer;
  int timed_runs = 0;  // timed runs so far: each sample's place in the order they ran
  std::mt19937_64 rng{std::random_device{}()};  // the interleaved order; fresh every run

  explicit Impl(const BenchOptions& o) : options(o), dir(o.dir) {
    // The tracer names files by what /proc/PID/fd shows: the canonical path.
    char* real = ::realpath(dir.path().c_str(), nullptr);
    canonical_dir = real ? real : dir.path();
    ::free(real);
    filesystem = filesystem_type(o.dir);
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
  const std::vector<const Strategy*>& all = impl_->options.strategies;
  if (impl_->options.interleave) return run_rows(all, on_result);
  std::vector<StrategyResult> results;  // --no-interleave: each row whole, one after another
  results.reserve(all.size());
  for (const Strategy* s : all) results.push_back(run_rows({s}, on_result).front());
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
  if (t == nullptr || !t->available || t->mode != TraceMode::kTiming || !r.syscall_time_ns ||
      syscall_time_uncertain(r) || r.time_ns.median <= 0)
    return;
  // Over the untraced median, not the traced run's own time: that run's time also holds
  // what the tracer's stops cost the program's own code (cold caches after every stop),
  // which nothing here measures well enough to take off (it read 60-70% for a row that is
  // nearly all syscalls). The syscall time comes from the traced run, the time from the
  // untraced ones, each from where it can be measured.
  const double share = static_cast<double>(*r.syscall_time_ns) / r.time_ns.median;
  // Above 1 by more than the time's own error: the correction is off, not the calls.
  if (share - static_cast<double>(r.syscall_time_ci95_ns) / r.time_ns.median > 1) return;
  r.syscall_share = std::clamp(share, 0.0, 1.0);
}

namespace {

/// Why a run failed, in one line, or "" when it did not.
std::string run_failure(const ChildRun& run, const Strategy& s, const WriteJob& job,
                        const std::string& path) {
  if (run.timed_out) return "timed out";
  if (run.term_signal != 0)
    return fmt::format("killed by signal {} ({})", run.term_signal, ::strsignal(run.term_signal));
  if (!run.finished)
    return fmt::format("child exited with status {} before reporting", run.exit_code);
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

/// One strategy's row while its runs are under way; its timed runs may interleave with
/// other rows'.
struct Runner::Row {
  const Strategy* strategy;
  StrategyResult r;
  std::string name, path;  // the output file's name, and its path in the private directory
  const BenchOptions* options;
  int started = 0, planned = 0;  // child runs begun; timed runs planned so far
  bool done = false;             // finished early: unsupported or failed
  std::int64_t estimate_ns = 0;  // the last warm-up's time: how many runs --runs auto needs
  std::int64_t timed_ns = 0;
  std::vector<std::int64_t> times;  // also in samples: the noise check and --runs auto read them
  RunSamples samples;

  Row(const Strategy& s, const BenchOptions& o, const TempDir& dir)
      : strategy(&s), name(std::string(s.name) + ".out"), path(dir.file(name)), options(&o) {
    r.strategy = std::string(s.name);
    r.bytes = expected_bytes(o.params);
  }
  WriteJob job() const { return {path.c_str(), options->params, r.bytes}; }

  /// Returns false when the row is finished (unsupported or failed).
  bool account(const ChildRun& run) {
    std::string why = run_failure(run, *strategy, job(), path);
    if (why.empty()) {
      r.verified = true;
      return true;
    }
    if (run.finished && run.outcome.status == RunStatus::kUnsupported) {
      r.status = ResultStatus::kUnsupported;
      r.verified.reset();
    } else {
      r.status = run.timed_out ? ResultStatus::kTimeout : ResultStatus::kFailed;
      r.verified = false;
    }
    r.error = why;
    ::unlink(path.c_str());  // never leave a partial file behind
    done = true;
    return false;
  }

  void add_sample(const ChildRun& run, int order) {
    times.push_back(run.elapsed_ns);
    timed_ns += run.elapsed_ns;
    samples.add(run.elapsed_ns, run.usage);
    r.run_order.push_back(order);
  }

  void summarize_timed() {
    samples.summarize_into(r);
    const Noise noise = assess_noise(times);
    r.noisy = noise.noisy();
    if (r.noisy) fmt::print(stderr, "iobench: warning: {}\n", noise_warning(r.strategy, noise));
  }
};

void Runner::notify(Row& row, RunKind kind) {
  const bool traced = impl_->backend != nullptr;
  const int total = impl_->options.warmup + row.planned + (traced ? 1 : 0);
  if (impl_->observer) impl_->observer({row.strategy->name, ++row.started, total, kind});
}

void Runner::warm_up(Row& row) {
  const BenchOptions& o = impl_->options;
  for (int i = 0; i < o.warmup && !row.done; ++i) {
    notify(row, RunKind::kWarmup);
    ChildRun run = run_untraced(*row.strategy, row.job(), o.timeout);
    if (!row.account(run)) return;
    row.estimate_ns = run.elapsed_ns;
    ::unlink(row.path.c_str());  // O_EXCL: every run creates the file anew
  }
}

void Runner::run_timed(std::vector<Row>& rows) {
  const BenchOptions& o = impl_->options;
  const bool keep_last = o.keep && !impl_->backend;
  // Batches until every row has its runs: one for --runs N, another for --runs auto when
  // the warm-up's estimate fell short of the timed work it asks for.
  for (;;) {
    std::vector<int> needed;
    for (Row& row : rows) {
      const int n = static_cast<int>(row.times.size());
      needed.push_back(row.done ? 0 : runs_still_needed(o.runs, n, row.timed_ns, row.estimate_ns));
      row.planned += needed.back();
    }
    const std::vector<std::size_t> order = run_order(needed, impl_->rng);
    if (order.empty()) break;
    for (std::size_t i : order) {
      Row& row = rows[i];
      if (row.done) continue;  // failed earlier in this batch
      notify(row, RunKind::kTimed);
      ::unlink(row.path.c_str());  // the file --keep left from this row's previous run
      ChildRun run = run_untraced(*row.strategy, row.job(), o.timeout);
      if (!row.account(run)) continue;
      row.add_sample(run, impl_->timed_runs++);
      if (!keep_last) ::unlink(row.path.c_str());
    }
  }
  for (Row& row : rows)
    if (!row.done) row.summarize_timed();
}

void Runner::trace_row(Row& row) {
  const BenchOptions& o = impl_->options;
  StrategyResult& r = row.r;
  if (impl_->backend) {
    notify(row, RunKind::kTraced);
    // Tracer and strategy on one CPU for the traced run (the child inherits the mask at
    // fork, the calibration children too). Left apart, each goes back to its own idle CPU
    // after every stop, and on a VM whose idle CPUs halt every stop then cost ~200 us and
    // buried the calls it times. A strategy is our code and asks nothing of its mask; a
    // user's program (`iobench trace`) is never pinned. Times come from the untraced runs.
    const tracing::CpuPin together(o.tracer.backend == TracerBackend::kPtrace);
    ChildRun run = run_traced(*row.strategy, row.job(), *impl_->backend, o.timeout);
    if (run.trace) {
      const TraceResult& t = *run.trace;
      if (!t.available && !impl_->warned_untraceable) {
        fmt::print(stderr, "iobench: warning: cannot trace ({}); syscall counts unavailable\n",
                   t.unavailable_reason);
        impl_->warned_untraceable = true;
      }
      if (t.available && !t.seccomp && !impl_->warned_no_seccomp) {
        fmt::print(stderr,
                   "iobench: warning: seccomp filter refused; tracing every syscall with "
                   "PTRACE_SYSCALL (two stops per call: slower traced runs)\n");
        impl_->warned_no_seccomp = true;
      }
      if (t.available) {
        impl_->pinned = t.pinned || together.pinned();
        attribute_write_calls(t, impl_->canonical_dir + "/" + row.name, r);
      }
    }
    // Wrong bytes from the traced run fail the row too: the counts would describe them.
    if (!row.account(run)) return;
    r.traced_time_ns = run.elapsed_ns;
    r.trace = std::move(run.trace);
    set_syscall_share(r);
  }

  if (o.keep)
    fmt::print(stderr, "kept: {}\n", row.path);  // the last run's file, verified
  else
    ::unlink(row.path.c_str());
}

std::vector<StrategyResult> Runner::run_rows(
    const std::vector<const Strategy*>& strategies,
    const std::function<void(const StrategyResult&)>& on_result) {
  std::vector<Row> rows;
  for (const Strategy* s : strategies) {
    rows.emplace_back(*s, impl_->options, impl_->dir);
    rows.back().r.dir = impl_->options.dir;
    rows.back().r.filesystem = impl_->filesystem;
  }
  for (Row& row : rows) warm_up(row);
  run_timed(rows);
  std::vector<StrategyResult> results;
  for (Row& row : rows) {
    if (!row.done) trace_row(row);
    results.push_back(std::move(row.r));
    if (on_result) on_result(results.back());
  }
  return results;
}

StrategyResult Runner::run_one(const Strategy& s) { return run_rows({&s}, {}).front(); }

}  // namespace iobench
