// The option vocabulary every layer above model/ speaks: what a command was asked to do, as
// validated plain values. cli/ fills them (every usage error is found there), commands/
// assemble them into what run/, check/ and report/ take; nothing here knows a flag's words.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/expectation.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench {

enum class OutputFormat { kTable, kJson, kCsv, kMarkdown };

/// --color: escape codes on a terminal (auto), always, or never.
enum class ColorMode { kAuto, kAlways, kNever };
/// --sort: the table's row order. kRegistry is the order of strategies/registry.cc (or of
/// the commands as given); time and syscalls put the fastest and the fewest first.
enum class SortOrder { kRegistry, kName, kTime, kSyscalls };

/// How much of the text after a table: --brief (the heading, the table and the summary), --notes
/// (every note in full), or by default everything, each note cut to one line on a terminal
/// shorter than the output (piped output keeps everything).
enum class NotesMode { kAuto, kFull, kBrief };

/// How often each row (a strategy or a command) runs, in what order, whether and how one
/// run is counted, and for how long each may take: what the runner reads of a command's
/// options, filled by the run flags (-r, -w, --timeout, --no-trace, ...).
struct RunSettings {
  /// Exactly this many timed runs per row; nullopt is --runs auto (run/run_plan.h's rule).
  std::optional<int> runs;
  int warmup = 1;
  bool interleave = true;  // the timed runs of all rows in one random order
  bool keep = false;       // keep the last run's output file (strategies)
  bool trace = true;       // one counted run per row besides the timed ones
  TracerOptions tracer;
  std::optional<std::chrono::nanoseconds> timeout;  // per run
};

/// How a run is held to its baseline: --count-tolerance, --time-tolerance, --exact-counts.
struct BaselineRules {
  std::optional<std::uint64_t> count_tolerance;  // calls a count may differ by; default none
  double time_tolerance = 0.25;                  // a median may be this much slower
  /// A count below its baseline fails too; by default it is an improvement and passes.
  bool exact_counts = false;
};

/// --save-baseline, --baseline and their rules, as the run, `trace` and `compare` take them
/// (a trace's or compare's rows are programs, named as check/program_baseline.h says).
struct BaselineOptions {
  std::string save, compare_with;  // --save-baseline, --baseline
  BaselineRules rules;
  /// This command line with --baseline FILE as --save-baseline FILE (and no other
  /// --save-baseline), as words: what saves the run's counts as the new baseline.
  std::vector<std::string> update_command;
};

struct BenchOptions {
  std::vector<const Strategy*> strategies;
  StrategyParams params;
  RunSettings run;
  std::string dir;                // parent of the private directory (the first of dirs)
  std::vector<std::string> dirs;  // --dir A,B: the same run in each (dirs.h)
  // The options given that differ from their defaults, as typed ("--sync"): the heading's.
  std::vector<std::string> given;
  OutputFormat format = OutputFormat::kTable;
  std::vector<Expectation> expectations;
  // Written after every strategy, so a later crash loses nothing (hyperfine's exports).
  std::string export_json, export_csv, export_markdown;
  std::string export_junit;  // every --expect and baseline comparison as a JUnit test case
  BaselineOptions baseline;
  // Presentation: the table's colour and order, and a chart (gnuplot: SVG, PNG or PDF) of the
  // results.
  ColorMode color = ColorMode::kAuto;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;  // --columns: the table's width; 0 = the terminal's (none when piped)
  NotesMode notes = NotesMode::kAuto;  // --brief, --notes
  std::string plot;
  bool latency = false;  // p50/p99/max columns; --plot draws the latency CDFs
  bool bare = false;     // no word given: the run first says what it is about to do
};

/// `iobench trace -- CMD`: one run of one command, counted; no timed runs.
struct TraceCommandOptions {
  std::vector<std::string> command;
  TracerOptions tracer;
  bool per_process = false;
  OutputFormat format = OutputFormat::kTable;
  std::optional<std::chrono::nanoseconds> timeout;
  std::vector<Expectation> expectations;
  std::string output;        // -o: the report goes here instead of stderr (table) or stdout
  std::string export_json;   // also the iobench-trace/1 document here
  std::string export_junit;  // every --expect and baseline comparison as a JUnit test case
  std::string name;          // the program's name in a baseline: --name, else argv[0]'s last part
  BaselineOptions baseline;
};

/// One program of `iobench compare`.
struct CompareCommand {
  std::string name;               // -n NAME, else the command as written
  std::string command;            // as written
  std::vector<std::string> argv;  // split into words (or sh -c COMMAND with --shell)
  std::string program;            // argv[0] resolved through PATH
  std::string baseline_name;      // its row in a baseline: -n NAME, else its program's name
};

struct CompareOptions {
  std::vector<CompareCommand> commands;
  RunSettings run;  // --runs defaults to 5 here (cli/compare_cli.cc)
  bool shell = false;
  bool show_output = false;
  OutputFormat format = OutputFormat::kTable;
  ColorMode color = ColorMode::kAuto;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;             // as BenchOptions::columns
  NotesMode notes = NotesMode::kAuto;  // as BenchOptions::notes
  std::string plot;
  std::string export_json, export_csv, export_markdown;  // rewritten after every command
  std::string export_junit;  // every baseline comparison as a JUnit test case
  BaselineOptions baseline;
};

/// `iobench sweep`: one full bench run per value of one knob (or --lines).
struct SweepOptions {
  std::string flag;                   // "--buffer-size"
  std::string parameter;              // "buffer_size" (the iobench/1 config key)
  bool sizes = false;                 // the values are byte sizes
  std::vector<std::uint64_t> values;  // ascending, distinct
  std::vector<BenchOptions> runs;     // one per value, same order
};

/// Default parent directory: $TMPDIR, else /tmp.
std::string default_dir();

}  // namespace iobench
