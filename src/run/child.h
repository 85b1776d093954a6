// Runs one strategy once in a freshly forked child, untraced or under the tracer.
// The child reports through shared memory mapped before fork, so it makes no syscall
// the strategy did not make (a pipe would add a write(2) to every count).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <optional>

#include "base/result.h"
#include "strategies/strategy.h"

namespace iobench {

class CountingBackend;

struct ChildRun {
  bool finished = false;   // the child returned from the strategy and reported
  StrategyOutcome outcome;
  std::int64_t elapsed_ns = 0;  // CLOCK_MONOTONIC around the strategy's whole job
  rusage usage{};
  int term_signal = 0;     // the child was killed by this signal
  int exit_code = 0;
  bool timed_out = false;
  std::optional<TraceResult> trace;  // traced runs only
};

/// One untraced run in a fresh child. Throws Error only when fork itself fails.
ChildRun run_untraced(const Strategy& strategy, const WriteJob& job,
                      std::optional<std::chrono::nanoseconds> timeout);

/// One run in a fresh child, counted by `backend` (ptrace + seccomp, or perf counters).
ChildRun run_traced(const Strategy& strategy, const WriteJob& job, CountingBackend& backend,
                    std::optional<std::chrono::nanoseconds> timeout);

}  // namespace iobench
