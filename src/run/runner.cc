#include "run/runner.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "base/monotonic_clock.h"
#include "run/host_info.h"
#include "run/noise.h"
#include "run/run_plan.h"
#include "run/run_samples.h"
#include "run/strategy_workload.h"
#include "run/temp_dir.h"
#include "tracer/counting_backend.h"
#include "tracer/cpu_pin.h"

namespace iobench {

struct Runner::Impl {
  RunSettings settings;
  std::vector<const Strategy*> all;  // a strategies' runner only, with params and dir
  StrategyParams params;
  std::string parent_dir;  // as given (--dir), on every row
  std::optional<TempDir> dir;
  std::string canonical_dir;
  std::string filesystem;                    // of options.dir, on every strategy's row
  std::unique_ptr<CountingBackend> backend;  // null with --no-trace
  bool warned_untraceable = false;
  bool warned_no_seccomp = false;
  bool pinned = false;
  RunObserver observer;
  NoticeSink notices;
  // A strategy may fill --dir and leave the calibration after its traced run no block: the
  // tracer is calibrated before the first one instead (tracer.cc, "Calibrate later").
  bool calibrate_first = false;
  int timed_runs = 0;               // timed runs so far: each sample's place in the order they ran
  std::int64_t redo_budget_ns = 0;  // what traced redos may still take (kTracedRedoShare)
  std::mt19937_64 rng{std::random_device{}()};  // the interleaved order; fresh every run

  explicit Impl(const RunSettings& s) : settings(s) {
    if (s.trace) backend = make_counting_backend(s.tracer);
  }

  Impl(const RunSettings& s, std::vector<const Strategy*> strategies, const StrategyParams& p,
       const std::string& parent)
      : settings(s),
        all(std::move(strategies)),
        params(p),
        parent_dir(parent),
        dir(std::in_place, parent) {
    // The tracer names files by what /proc/PID/fd shows: the canonical path, read through
    // the descriptor (the name may be another user's by now).
    canonical_dir = dir->canonical_path();
    filesystem = filesystem_type(parent);
    if (s.keep) dir->keep();
    if (s.trace) {
      TracerOptions t = s.tracer;
      // Calibrate on the filesystem being measured: the corrected call walks the same path.
      if (t.calibration_dir.empty()) t.calibration_dir = dir->path();
      // A strategy is iobench's own x86-64 code: perf need not pay to count i386 calls.
      t.foreign_abis = false;
      backend = make_counting_backend(t);
      calibrate_first = !s.tracer.backend->costs_measured_beside_runs;
    }
  }

  /// The rows of the options' strategies, each writing into the private directory.
  std::vector<std::unique_ptr<Workload>> strategies(const std::vector<const Strategy*>& all) {
    std::vector<std::unique_ptr<Workload>> rows;
    rows.reserve(all.size());
    for (const Strategy* s : all)
      rows.push_back(
          std::make_unique<StrategyWorkload>(*s, params, dir->fd(), dir->path(), canonical_dir));
    return rows;
  }
};

Runner::Runner(const RunSettings& settings, std::vector<const Strategy*> strategies,
               const StrategyParams& params, const std::string& dir)
    : impl_(std::make_unique<Impl>(settings, std::move(strategies), params, dir)) {}
Runner::Runner(const RunSettings& settings) : impl_(std::make_unique<Impl>(settings)) {}
Runner::~Runner() = default;

std::int64_t Runner::tracer_overhead_ns() const {
  return impl_->backend ? impl_->backend->overhead_ns() : 0;
}

bool Runner::tracer_pinned() const { return impl_->pinned; }

void Runner::set_observer(RunObserver observer) { impl_->observer = std::move(observer); }

void Runner::set_notice_sink(NoticeSink sink) { impl_->notices = std::move(sink); }

std::vector<StrategyResult> Runner::run(const ResultSink& on_result) {
  const std::vector<std::unique_ptr<Workload>> rows = impl_->strategies(impl_->all);
  std::vector<Workload*> workloads;
  workloads.reserve(rows.size());
  for (const auto& w : rows) workloads.push_back(w.get());
  return run_workloads(workloads, on_result);
}

StrategyResult Runner::run_one(const Strategy& s) {
  const std::vector<std::unique_ptr<Workload>> rows = impl_->strategies({&s});
  return run_rows({rows.front().get()}, {}).front();
}

std::vector<StrategyResult> Runner::run_workloads(const std::vector<Workload*>& workloads,
                                                  const ResultSink& on_result) {
  if (impl_->settings.interleave) return run_rows(workloads, on_result);
  std::vector<StrategyResult> results;  // --no-interleave: each row whole, one after another
  results.reserve(workloads.size());
  for (Workload* w : workloads) results.push_back(run_rows({w}, on_result).front());
  return results;
}

std::optional<double> traced_speed_gap(const StrategyResult& r) {
  const std::optional<double> own = traced_own_time_ns(r);
  if (!own || !r.trace->available || !r.trace->cost_measured_beside || !r.time_less_cpu_waits_ns ||
      *r.time_less_cpu_waits_ns <= 0)
    return std::nullopt;
  return std::abs(*own / static_cast<double>(*r.time_less_cpu_waits_ns) - 1);
}

bool trace_again(std::optional<double> gap, int attempt, std::int64_t attempt_ns,
                 std::int64_t budget_ns) {
  return gap && *gap > kTracedSpeedAgreement && attempt < kTracedRedos && attempt_ns <= budget_ns;
}

void set_syscall_share(StrategyResult& r) {
  r.syscall_share.reset();
  const TraceResult* t = r.trace ? &*r.trace : nullptr;
  if (t == nullptr || !t->available || !measures(*t).times || !r.syscall_time_ns ||
      syscall_time_uncertain(r) || r.time_ns.median <= 0)
    return;
  // One clock where the backend knows what it cost the run (bpf): the syscall time over the
  // traced run's own time less that cost, so a change of the host's speed between runs
  // cannot move the share. Else over the untraced median: a ptrace run's time also holds
  // what its stops cost the program's own code (cold caches after every stop), which
  // nothing measures well enough to take off (it read 60-70% for a row that is nearly all
  // syscalls).
  double whole =
      r.time_less_cpu_waits_ns ? static_cast<double>(*r.time_less_cpu_waits_ns) : r.time_ns.median;
  double whole_ci95 = 0;
  if (const std::optional<double> own = traced_own_time_ns(r)) {
    // Less the time it waited for a CPU too: the calls' times leave their preemptions out,
    // and on a busy machine a run's wall time can hold a third of others' work.
    whole = *own;
    whole_ci95 = static_cast<double>(t->tracing_cost_ci95_ns);
    if (whole <= whole_ci95) return;
  }
  const double share = static_cast<double>(*r.syscall_time_ns) / whole;
  // Above 1 by more than the two figures' errors: the correction is off, not the calls.
  const double error = (static_cast<double>(r.syscall_time_ci95_ns) + share * whole_ci95) / whole;
  if (share - error > 1) return;
  r.syscall_share = std::clamp(share, 0.0, 1.0);
}

/// One row while its runs are under way; its timed runs may interleave with other rows'.
struct Runner::Row {
  Workload* work;
  StrategyResult r;
  int started = 0, planned = 0;  // child runs begun; timed runs planned so far
  bool done = false;             // finished early: unsupported or failed
  std::int64_t estimate_ns = 0;  // the last warm-up's time: how many runs --runs auto needs
  std::int64_t timed_ns = 0;
  std::vector<std::int64_t> times;  // also in samples: the noise check and --runs auto read them
  RunSamples samples;

  explicit Row(Workload& w) : work(&w), r(w.row()) {}

  /// Removes the file a run left, if the workload has one.
  void discard() const { work->discard_output(); }

  /// Returns false when the row is finished (unsupported or failed).
  bool account(const ChildRun& run) {
    std::string why = work->failure(run);
    if (why.empty()) {
      if (!work->output().empty()) r.verified = true;  // a command's files are never checked
      return true;
    }
    if (run.unsupported()) {
      r.status = ResultStatus::kUnsupported;
      r.verified.reset();
    } else {
      r.status = run.timed_out ? ResultStatus::kTimeout : ResultStatus::kFailed;
      if (!work->output().empty()) r.verified = false;
    }
    r.error = why;
    discard();  // never leave a partial file behind
    done = true;
    return false;
  }

  void add_sample(const ChildRun& run, int order) {
    times.push_back(run.elapsed_ns);
    timed_ns += run.elapsed_ns;
    samples.add(run.elapsed_ns, run.usage, run.cpu_wait_ns);
    r.run_order.push_back(order);
  }

  void summarize_timed() {
    samples.summarize_into(r);
    r.noisy = noisy(r.time_ns);  // said after the table, where the other rows are known
  }
};

void Runner::notify(Row& row, RunKind kind) {
  const bool traced = impl_->backend != nullptr;
  const int total = impl_->settings.warmup + row.planned + (traced ? 1 : 0);
  if (impl_->observer) impl_->observer({row.r.strategy, ++row.started, total, kind});
}

void Runner::warm_up(Row& row) {
  const RunSettings& o = impl_->settings;
  for (int i = 0; i < o.warmup && !row.done; ++i) {
    notify(row, RunKind::kWarmup);
    ChildRun run = row.work->run(nullptr, o.timeout);
    if (!row.account(run)) return;
    row.estimate_ns = run.elapsed_ns;
    row.discard();
  }
}

void Runner::run_timed(std::vector<Row>& rows) {
  const RunSettings& o = impl_->settings;
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
      ChildRun run = row.work->run(nullptr, o.timeout);
      if (!row.account(run)) continue;
      row.add_sample(run, impl_->timed_runs++);
      if (!keep_last) row.discard();
    }
  }
  for (Row& row : rows)
    if (!row.done) row.summarize_timed();
}

/// The warnings a counted run may give, each once per runner.
void Runner::warn_once(const TraceResult& t, const StrategyResult& r) {
  const auto warn = [&](std::string text) {
    if (impl_->notices) impl_->notices({RunNotice::Kind::kWarning, std::move(text)});
  };
  if (!t.available && !impl_->warned_untraceable) {
    warn(fmt::format("cannot trace ({}); syscall counts unavailable", t.unavailable_reason));
    impl_->warned_untraceable = true;
  }
  if (t.available && t.ptrace && !t.ptrace->seccomp && !impl_->warned_no_seccomp) {
    warn(
        "seccomp filter refused; tracing every syscall with PTRACE_SYSCALL (two stops per call: "
        "slower traced runs)");
    impl_->warned_no_seccomp = true;
  }
  if (t.ptrace) {
    for (const auto& program : t.ptrace->lost_privileges)  // a command's setuid programs
      warn(fmt::format("{}: {}", r.strategy, lost_privileges_warning(program)));
    for (const auto& [program, request] : t.ptrace->refused_ptrace)  // a command's debugger
      warn(fmt::format("{}: {}", r.strategy, refused_ptrace_warning(program, request)));
  }
  for (const std::string& lost : t.lost)
    warn(fmt::format("{}: counts incomplete: {}", r.strategy, lost));
}

void Runner::trace_row(Row& row) {
  const RunSettings& o = impl_->settings;
  StrategyResult& r = row.r;
  if (impl_->backend) {
    notify(row, RunKind::kTraced);
    // Tracer and strategy on one CPU for the traced run (the child inherits the mask at
    // fork, the calibration children too). Left apart, each goes back to its own idle CPU
    // after every stop, and on a VM whose idle CPUs halt every stop then cost ~200 us and
    // buried the calls it times. A strategy is our code and asks nothing of its mask; a
    // user's program (`trace`, `compare`) is never pinned. Times come from the untraced runs.
    const tracing::CpuPin together(row.work->pinned_when_traced() && o.tracer.backend->pins);
    if (std::exchange(impl_->calibrate_first, false)) impl_->backend->overhead_ns();
    const StrategyResult untraced = r;
    std::optional<StrategyResult> kept;
    for (int attempt = 0;; ++attempt) {
      r = untraced;
      const std::int64_t began = monotonic_ns();
      ChildRun run = row.work->run(impl_->backend.get(), o.timeout);
      if (run.trace) warn_once(*run.trace, r);
      // A failed counted run fails the row (wrong bytes too): its counts would describe them.
      if (!row.account(run)) return;
      if (run.trace && run.trace->available) {
        impl_->pinned = (run.trace->ptrace && run.trace->ptrace->pinned) || together.pinned();
        row.work->attribute(*run.trace, r);
      }
      r.traced_time_ns = run.elapsed_ns;
      r.trace = std::move(run.trace);
      set_syscall_share(r);
      // A one-clock share holds only if the run went at the speed of the stretches its
      // cost was measured in: its own time away from the untraced median says it did not
      // (this VM's speed flips for 10 ms-1 s). Traced again, and the nearest run kept.
      const std::optional<double> gap = traced_speed_gap(r);
      if (!kept || (gap && *gap < traced_speed_gap(*kept).value_or(1e9))) kept = r;
      const std::int64_t took = monotonic_ns() - began;  // what a redo of this row would cost
      if (attempt > 0) impl_->redo_budget_ns -= took;
      if (!trace_again(gap, attempt, took, impl_->redo_budget_ns)) break;
      row.discard();
    }
    r = std::move(*kept);
  }

  if (o.keep && !row.work->output().empty()) {
    // The last run's file, verified; it is in --dir.
    if (impl_->notices) impl_->notices({RunNotice::Kind::kKept, row.work->output()});
  } else {
    row.discard();
  }
}

std::vector<StrategyResult> Runner::run_rows(const std::vector<Workload*>& workloads,
                                             const ResultSink& on_result) {
  std::vector<Row> rows;
  for (Workload* w : workloads) {
    rows.emplace_back(*w);
    if (impl_->dir) {  // a strategies runner: where the file was written
      rows.back().r.dir = impl_->parent_dir;
      rows.back().r.filesystem = impl_->filesystem;
    }
  }
  for (Row& row : rows) warm_up(row);
  run_timed(rows);
  std::int64_t timed_ns = 0;
  for (const Row& row : rows) timed_ns += row.timed_ns;
  impl_->redo_budget_ns = std::llround(kTracedRedoShare * static_cast<double>(timed_ns));
  std::vector<StrategyResult> results;
  for (Row& row : rows) {
    if (!row.done) trace_row(row);
    results.push_back(std::move(row.r));
    if (on_result) on_result(results.back());
  }
  return results;
}

}  // namespace iobench
