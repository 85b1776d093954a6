// One run of a workload in a freshly forked child, untraced or counted: the fork, the wait
// for its whole process tree and the decoding of how it ended, once for strategies and
// commands alike (workload.h).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "base/result.h"
#include "strategies/strategy.h"

namespace iobench {

class CountingBackend;

struct ChildRun {
  bool finished = false;  // a strategy's child returned from the strategy and reported
  StrategyOutcome outcome;
  // A strategy's: CLOCK_MONOTONIC around its whole job, in the child. A command's: from
  // fork to its main process's exit, as hyperfine measures a whole process.
  std::int64_t elapsed_ns = 0;
  std::int64_t cpu_wait_ns = -1;  // of elapsed_ns, waiting for a CPU (untraced strategy runs)
  rusage usage{};
  int term_signal = 0;  // the child was killed by this signal
  int exit_code = 0;
  bool timed_out = false;
  std::optional<TraceResult> trace;  // counted runs only

  /// The strategy said it cannot run here (no io_uring, no O_DIRECT): not a failure.
  bool unsupported() const { return finished && outcome.status == RunStatus::kUnsupported; }
};

/// One untraced run: forks (see fork_tree), runs `child_main` in the child (it must
/// `_exit` or exec, and never throw), and waits for the child and every process it starts;
/// past `timeout` the whole tree is killed. elapsed_ns runs from just before fork to the
/// main child's exit. Throws Error only when fork itself fails.
ChildRun run_untraced(const std::function<void()>& child_main,
                      std::optional<std::chrono::nanoseconds> timeout);

/// One run counted by `backend` (ptrace + seccomp, or perf counters): child_main as
/// CountingBackend::run takes it. elapsed_ns is the counted run's wall time.
ChildRun run_counted(CountingBackend& backend, const std::function<int()>& child_main,
                     std::optional<std::chrono::nanoseconds> timeout);

}  // namespace iobench
