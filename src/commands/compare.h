// `iobench compare`: real programs side by side, the way hyperfine runs them (warm-ups, then
// timed runs of the whole process, no shell unless asked), plus one traced run each for the
// exact write calls, in the same table, summary, JSON and chart as the strategies. Each
// command runs through the same Runner as a strategy (run/command_workload.h).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "run/command_workload.h"  // attribute_command_writes
#include "tracer/tracer.h"

namespace iobench {

struct CompareCommand {
  std::string name;               // -n NAME, else the command as written
  std::string command;            // as written
  std::vector<std::string> argv;  // split into words (or sh -c COMMAND with --shell)
  std::string program;            // argv[0] resolved through PATH
};

struct CompareOptions {
  std::vector<CompareCommand> commands;
  int runs = 5;
  // --runs auto (as BenchOptions::runs == kRunsAuto): as many timed runs as run_plan.h's
  // rule asks for; `runs` holds the default 5 meanwhile.
  bool runs_auto = false;
  int warmup = 1;
  bool shell = false;
  bool show_output = false;
  bool trace = true;
  TracerOptions tracer;
  std::optional<std::chrono::nanoseconds> timeout;
  OutputFormat format = OutputFormat::kTable;
  ColorMode color = ColorMode::kAuto;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;  // as BenchOptions::columns
  std::string plot;
  std::string export_json, export_csv, export_markdown;  // rewritten after every command
};

/// Splits a command line into words as a POSIX shell would, without any expansion: blanks
/// separate words; '…' is literal; "…" is literal except \" \\ \$ \` ; a backslash outside
/// quotes takes the next character literally. Throws Error on an unterminated quote.
std::vector<std::string> split_words(const std::string& command);

/// `args` are the words after `compare`. Throws Error (exit 2).
CompareOptions parse_compare(const std::vector<std::string>& args);

/// `iobench compare --help`.
std::string compare_help();

/// Runs every command; prints the table (or JSON), draws --plot; returns the exit status
/// (3 when a command failed).
int run_compare(const CompareOptions& options);

}  // namespace iobench
