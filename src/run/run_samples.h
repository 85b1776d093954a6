// The timed runs of one row, summarised once: a strategy's and a command's (both through
// runner.cc) are measured the same way, so they are aggregated by the same code.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <vector>

#include "base/result.h"

namespace iobench {

class RunSamples {
 public:
  /// One timed run: its wall time and wait4's rusage (CPU user + sys, faults, switches).
  void add(std::int64_t elapsed_ns, const rusage& usage, std::int64_t cpu_wait_ns = -1);
  /// time_ns and cpu_ns (every sample, median, spread), and the medians of the faults and
  /// context switches.
  void summarize_into(StrategyResult& result) const;

 private:
  std::vector<std::int64_t> times_, cpus_, minflt_, majflt_, nvcsw_, nivcsw_;
  std::vector<std::int64_t> unwaited_;  // elapsed less the wait for a CPU, where known

};

}  // namespace iobench
