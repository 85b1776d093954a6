// The run record: what was measured, where and how — host facts, build, the run's
// configuration and the results. Plain values gathered before anything is rendered: the
// reporters render a record and the checks judge one, and neither looks anything up itself
// (Google Benchmark's Context and Run). How a record is shown (colour, order, width) is not
// here: report/reporter.h's Presentation is handed to the renderers alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "strategies/strategy.h"

namespace iobench {

/// Where a result was measured: printed with every table and stored in every export.
/// Gathered by run/host_info.cc's host_info().
struct HostInfo {
  std::string kernel;    // uname -r
  std::string cpu;       // model name from /proc/cpuinfo
  int cpus = 0;          // online CPUs
  std::string compiler;  // what built iobench
};

/// One `iobench compare` command: the name its row shows and the command line it ran.
struct CommandInfo {
  std::string name;
  std::string command;
};

/// Everything a benchmark's record holds: where, with what configuration, and the rows.
struct RunRecord {
  HostInfo host;
  std::string build_type;
  std::string version;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::string dir;
  std::string filesystem;
  StrategyParams params;
  // The options given that differ from their defaults, as typed ("--line-length 128").
  std::vector<std::string> options;
  std::string tracer_backend = "ptrace";  // or "perf" (TracerBackend)
  std::int64_t tracer_overhead_ns = 0;
  std::vector<StrategyResult> results;
  // st_blksize of a file in dir: the buffer glibc gives a FILE* (the stdio footnote); 0 unknown.
  std::uint64_t block_size = 0;
  // `iobench compare`: what each row ran, in order (rows are commands, not strategies).
  std::vector<CommandInfo> commands;
  std::optional<int> runs;  // nullopt: --runs auto, each row's samples say how many it got
  int auto_min_runs = 0;    // with --runs auto, the fewest timed runs a row gets (run/run_plan.h)
  int warmup = 0;
  TraceMode trace_mode = TraceMode::kTiming;
  bool interleave = false;  // the strategies' timed runs in one random order
  bool traced = false;
  bool pinned = false;
};

/// What `iobench trace` measured: the command, its trace, and why it did not run or finish.
struct TraceRecord {
  std::vector<std::string> command;
  TraceResult trace;
  bool per_process = false;  // the trace has a row per process (--per-process)
  std::string error;         // why the command did not run or finish ("cannot execute …"), or ""
  bool never_ran = false;    // exec failed: nothing of the command was counted (null, not 0)
};

}  // namespace iobench
