// Validated options: what the CLI hands the runner. Parsing lives in cli.cc; everything
// here has already been checked, so the runner never sees a bad value.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/expect.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench {

enum class OutputFormat { kTable, kJson, kCsv, kMarkdown };

/// --color: escape codes on a terminal (auto), always, or never.
enum class ColorMode { kAuto, kAlways, kNever };
/// --sort: the table's row order. kRegistry is the order of strategies/registry.cc (or of
/// the commands as given); time and syscalls put the fastest and the fewest first.
enum class SortOrder { kRegistry, kName, kTime, kSyscalls };

struct BenchOptions {
  std::vector<const Strategy*> strategies;
  StrategyParams params;
  int runs = 0;  // kRunsAuto (run_plan.h), or exactly this many timed runs
  int warmup = 1;
  bool interleave = true;  // timed runs of all strategies in one random order
  std::string dir;         // parent of the private directory (the first of dirs)
  std::vector<std::string> dirs;  // --dir A,B: the same run in each (dirs.h)
  bool keep = false;
  bool trace = true;  // one traced run per strategy besides the timed ones
  TracerOptions tracer;
  std::optional<std::chrono::nanoseconds> timeout;  // per run
  OutputFormat format = OutputFormat::kTable;
  std::vector<Expectation> expectations;
  // Written after every strategy, so a later crash loses nothing (hyperfine's exports).
  std::string export_json, export_csv, export_markdown;
  std::string export_junit;  // every --expect and baseline comparison as a JUnit test case
  std::string save_baseline, baseline;
  std::optional<std::uint64_t> count_tolerance;  // calls a count may differ by; default exact
  double time_tolerance = 0.25;                   // a median may be this much slower
  // Presentation: the table's colour and order, and an SVG chart (gnuplot) of the results.
  ColorMode color = ColorMode::kAuto;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;  // --columns: the table's width; 0 = the terminal's (none when piped)
  std::string plot;
  bool latency = false;  // p50/p99/max columns; --plot draws the latency CDFs
};

struct TraceCommandOptions {
  std::vector<std::string> command;
  TracerOptions tracer;
  bool per_process = false;
  OutputFormat format = OutputFormat::kTable;
  std::optional<std::chrono::nanoseconds> timeout;
  std::vector<Expectation> expectations;
  std::string output;       // -o: the report goes here instead of stderr (table) or stdout
  std::string export_json;  // also the iobench-trace/1 document here
  std::string export_junit;  // every --expect as a JUnit test case
};

/// Parses a byte size: a whole number with an optional suffix K, M, G (powers of 1024,
/// also written KiB, MiB, GiB) or B. Throws Error naming `flag` when it is not one.
std::uint64_t parse_size(const std::string& flag, const std::string& text);

/// Default parent directory: $TMPDIR, else /tmp.
std::string default_dir();

/// --sync as it is written: "none", "end" or "every:N" (JSON config, headers).
inline std::string to_string(const SyncPolicy& sync) {
  switch (sync.mode) {
    case SyncMode::kEnd: return "end";
    case SyncMode::kEvery: return "every:" + std::to_string(sync.every);
    case SyncMode::kNone: break;
  }
  return "none";
}

}  // namespace iobench
