// The runner: for each row (a strategy or a command: workload.h), warm-up runs, timed runs
// and one counted run, each in a fresh child, each checked. Produces plain StrategyResult
// values. The timed runs of all rows are interleaved in a random order (unless
// --no-interleave), so a busy machine's drift hits every row alike; warm-ups come first,
// the counted runs last.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/options.h"
#include "model/run_event.h"

namespace iobench {

class Workload;

using ResultSink = std::function<void(const StrategyResult&)>;

class Runner {
 public:
  /// For `strategies` with `params`: creates the private directory under `dir` (throws
  /// Error if it cannot); the tracer calibrates there.
  Runner(const RunSettings& settings, std::vector<const Strategy*> strategies,
         const StrategyParams& params, const std::string& dir);
  /// For workloads that need no directory (commands).
  explicit Runner(const RunSettings& settings);
  ~Runner();

  /// Runs every strategy (a Runner made for strategies); on_result sees each row
  /// as soon as it is complete (after all timed runs when they interleave), so a later failure
  /// loses nothing already measured.
  std::vector<StrategyResult> run(const ResultSink& on_result = {});
  /// Run one strategy (all its runs).
  StrategyResult run_one(const Strategy& strategy);
  /// Runs each workload as a row, the same way as run() runs strategies.
  std::vector<StrategyResult> run_workloads(const std::vector<Workload*>& workloads,
                                            const ResultSink& on_result = {});

  /// Told before every child run (progress display); optional.
  void set_observer(RunObserver observer);
  /// Given each warning and the --keep line; optional (without one they are dropped).
  void set_notice_sink(NoticeSink sink);

  /// The calibrated tracer cost per call (timing mode), or 0 when nothing was traced.
  std::int64_t tracer_overhead_ns() const;
  /// Whether traced runs were pinned, and whether ptrace was usable at all.
  bool tracer_pinned() const;

 private:
  struct Impl;
  struct Row;
  /// Warm-ups row by row, the timed runs of all rows in one order, then each counted run.
  std::vector<StrategyResult> run_rows(const std::vector<Workload*>& workloads,
                                       const ResultSink& on_result);
  void warm_up(Row& row);
  void run_timed(std::vector<Row>& rows);
  void trace_row(Row& row);
  void warn_once(const TraceResult& trace, const StrategyResult& r);
  void notify(Row& row, RunKind kind);
  std::unique_ptr<Impl> impl_;
};

/// syscall_share: syscall_time_ns (traced run) over the traced run's own time where the
/// backend measured what tracing cost it (bpf), else over the untraced median, clamped to 1
/// within the time's error; unset when it is above 1 by more (the correction is off) and
/// when the time is uncertain.
void set_syscall_share(StrategyResult& r);
/// How far a traced run's own time (less what tracing cost it and its waits for a CPU) is
/// from the untraced median, as a fraction of it; nullopt where the backend did not measure
/// its cost beside this run (ptrace; bpf's short runs, which take the last run's) or
/// nothing was timed. Above kTracedSpeedAgreement the run is traced again, up to
/// kTracedRedos times and while the redos' time fits in kTracedRedoShare of the rows' timed
/// runs, and the nearest kept.
std::optional<double> traced_speed_gap(const StrategyResult& r);
inline constexpr double kTracedSpeedAgreement = 0.05;
inline constexpr int kTracedRedos = 2;
// The redos' budget, a share of the rows' timed runs: redos are dear (each is a traced run of
// a big row), and unbounded they lengthened the traced demo far more than they steadied
// its shares (docs/tracer.md, the kernel clock).
inline constexpr double kTracedRedoShare = 0.10;
/// Whether a row is traced again after `attempt` (0: the first), whose gap that was and which
/// took `attempt_ns`, with `budget_ns` left of the redos' budget.
bool trace_again(std::optional<double> gap, int attempt, std::int64_t attempt_ns,
                 std::int64_t budget_ns);

}  // namespace iobench
