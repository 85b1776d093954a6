// A strategy as the runner's workload: each run forks a child that runs the strategy once
// into a new file in the private directory, and the parent checks that file byte for byte.
#pragma once

#include <string>

#include "run/workload.h"
#include "strategies/strategy.h"

namespace iobench {

class StrategyWorkload : public Workload {
 public:
  /// Its file is NAME.out in the directory `dir_fd`, made, checked and removed through that
  /// descriptor; `dir` is its name for messages and `canonical_dir` the same directory as the
  /// tracer names it (through /proc/PID/fd: symlinks resolved).
  StrategyWorkload(const Strategy& strategy, const StrategyParams& params, int dir_fd,
                   const std::string& dir, const std::string& canonical_dir);

  StrategyResult row() const override;
  ChildRun run(CountingBackend* counted, std::optional<std::chrono::nanoseconds> timeout) override;
  std::string failure(const ChildRun& run) const override;
  void attribute(const TraceResult& trace, StrategyResult& result) const override;
  const std::string& output() const override { return path_; }
  void discard_output() const override;
  bool pinned_when_traced() const override { return true; }

 private:
  WriteJob job() const { return {name_.c_str(), params_, bytes_, dir_fd_}; }

  const Strategy& strategy_;
  StrategyParams params_;
  std::uint64_t bytes_;  // what a correct run writes
  int dir_fd_;
  std::string name_, path_, canonical_path_;
};

/// write_calls and syscall_time_ns of a strategy's traced run: count_writes on its own file
/// (README "What counts as a write").
void attribute_write_calls(const TraceResult& trace, const std::string& target_path,
                           StrategyResult& result);

}  // namespace iobench
