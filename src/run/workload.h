// What the runner runs in each fresh child: a strategy (strategy_workload.h) or a command
// (command_workload.h). The runner does everything around it the same way for both: the
// warm-ups, the timed runs and their order, --runs auto, the noise check, the counted run
// through the CountingBackend, the share, failures and progress.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/result.h"
#include "run/child.h"

namespace iobench {

class CountingBackend;

class Workload {
 public:
  Workload() = default;
  virtual ~Workload() = default;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  /// The row before anything ran: its name, and the bytes a correct run writes when they
  /// are known up front (a strategy's; a command's come from its trace).
  virtual StrategyResult row() const = 0;
  /// One run in a fresh child: untraced (its time and rusage) when `counted` is null, else
  /// counted by it (ChildRun::trace). Throws Error only when fork itself fails.
  virtual ChildRun run(CountingBackend* counted,
                       std::optional<std::chrono::nanoseconds> timeout) = 0;
  /// Why `run` failed, in one line, or "" (a strategy's also checks its file byte for byte).
  virtual std::string failure(const ChildRun& run) const = 0;
  /// write_calls, its time and the rest, from a counted run that succeeded.
  virtual void attribute(const TraceResult& trace, StrategyResult& result) const = 0;
  /// The file every run creates anew, which the runner removes between runs and --keep
  /// keeps; "" for a command, whose files are its own (never checked, never removed).
  virtual const std::string& output() const = 0;
  /// Removes that file, if there is one (through the directory's descriptor, never its name).
  virtual void discard_output() const {}
  /// Whether the counted run shares one CPU with the tracer: our own code may (runner.cc
  /// says why); a user's program keeps the affinity it would have had.
  virtual bool pinned_when_traced() const = 0;
};

}  // namespace iobench
