// Reporters are pure functions from results to bytes (hyperfine's exporters); where the
// bytes go is the caller's job. All of them are fed the same BenchReport.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/options.h"
#include "run/host_info.h"

namespace iobench {

/// One `iobench compare` command: the name its row shows and the command line it ran.
struct CommandInfo {
  std::string name;
  std::string command;
};

/// Everything a benchmark report shows: where, with what configuration, and the rows.
struct BenchReport {
  HostInfo host;
  std::string build_type;
  std::string version;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  std::string dir;
  std::string filesystem;
  StrategyParams params;
  std::string tracer_backend = "ptrace";  // its name in tracer/backends.cc
  std::int64_t tracer_overhead_ns = 0;
  std::vector<StrategyResult> results;
  // st_blksize of a file in dir: the buffer glibc gives a FILE* (the stdio footnote); 0 unknown.
  std::uint64_t block_size = 0;
  // `iobench compare`: what each row ran, in order (rows are commands, not strategies).
  std::vector<CommandInfo> commands;
  int runs = 0;  // kRunsAuto: each row's samples say how many it got
  int warmup = 0;
  TraceMode trace_mode = TraceMode::kTiming;
  bool interleave = false;  // the strategies' timed runs in one random order
  bool traced = false;
  bool pinned = false;
  // The terminal table only: escape codes, row order, the width to fit (0: no limit, as when
  // piped), and whether this is the table so far of a run still going (no summary or notes).
  bool color = false;
  bool latency = false;  // --latency: the write calls' p50/p99/max columns
  bool live = false;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;
};

/// What `iobench trace` shows.
struct TraceReport {
  std::vector<std::string> command;
  TraceResult trace;
  bool per_process = false;
  std::string error;  // why the command did not run or finish ("cannot execute …"), or ""
};

std::string render_table(const BenchReport& report);
std::string render_json(const BenchReport& report);
std::string render_csv(const BenchReport& report);
std::string render_markdown(const BenchReport& report);
std::string render_trace_table(const TraceReport& report);
std::string render_trace_json(const TraceReport& report);
/// A file's calls that return a byte count, summed (trace_table.cc): whether its bytes are
/// known (calls > 0, !returns_unknown) and whether they are an estimate.
SyscallStats data_moved(const FileStats& file);

std::string render(OutputFormat format, const BenchReport& report);
std::string render(OutputFormat format, const TraceReport& report);

/// "5 untraced runs", "1 run": `noun` counted as --runs asked. With --runs auto, the
/// fewest and most samples a row got ("5–37 untraced runs"), or "5 or more" before any row.
std::string run_count_text(const BenchReport& report, const std::string& noun);

/// Units for people: 1.23 ms, 64.0 KiB, 100,000.
std::string format_duration(double ns);
std::string format_bytes(double bytes);
std::string format_count(std::uint64_t n);

}  // namespace iobench
