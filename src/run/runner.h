// The runner: for each strategy, warm-up runs, timed runs and one traced run, each in a
// fresh child, each output file checked. Produces plain StrategyResult values. The timed
// runs of all strategies are interleaved in a random order (unless --no-interleave), so a
// busy machine's drift hits every row alike; warm-ups come first, the traced runs last.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "cli/options.h"

namespace iobench {

class Tracer;

enum class RunKind { kWarmup, kTimed, kTraced };

/// One child run about to start: run `run` of `total` for one strategy (warm-ups, timed runs
/// and the traced run, counted together).
struct RunEvent {
  std::string_view name;
  int run = 0;
  int total = 0;
  RunKind kind = RunKind::kTimed;
};
using RunObserver = std::function<void(const RunEvent&)>;

class Runner {
 public:
  /// Creates the private directory under options.dir (throws Error if it cannot).
  explicit Runner(const BenchOptions& options);
  ~Runner();

  /// Runs every strategy; on_result sees each row as soon as it is complete (after all
  /// timed runs when they interleave), so a later failure loses nothing already measured.
  std::vector<StrategyResult> run(const std::function<void(const StrategyResult&)>& on_result = {});

  /// Run one strategy (all its runs).
  StrategyResult run_one(const Strategy& strategy);

  /// Told before every child run (progress display); optional.
  void set_observer(RunObserver observer);

  const std::string& private_dir() const;
  /// The calibrated tracer cost per call (timing mode), or 0 when nothing was traced.
  std::int64_t tracer_overhead_ns() const;
  /// Whether traced runs were pinned, and whether ptrace was usable at all.
  bool tracer_pinned() const;

 private:
  struct Impl;
  struct Row;
  /// Warm-ups row by row, the timed runs of all rows in one order, then each traced run.
  std::vector<StrategyResult> run_rows(const std::vector<const Strategy*>& strategies,
                                       const std::function<void(const StrategyResult&)>& on_result);
  void warm_up(Row& row);
  void run_timed(std::vector<Row>& rows);
  void trace_row(Row& row);
  void notify(Row& row, RunKind kind);
  std::unique_ptr<Impl> impl_;
};

/// write_calls and syscall_time_ns of a strategy's traced run: count_writes on its own file
/// (README "What counts as a write").
void attribute_write_calls(const TraceResult& trace, const std::string& target_path,
                           StrategyResult& result);

/// syscall_share: syscall_time_ns (traced run) over the untraced median time, clamped to 1
/// within the time's error; unset when it is above 1 by more (the correction is off) and
/// when the time is uncertain.
void set_syscall_share(StrategyResult& r);

}  // namespace iobench
