// The flag groups the commands share. Each group declares its flags once (name, help,
// validation, error text): `add` registers them on a CLI::App, and after parsing the group
// turns their words into validated option fields (Error, exit 2, naming the flag). The bench
// run, `sweep` (through the bench run), `compare` and `trace` register the groups they use;
// the tracer's group is tracer_flags.h and the knobs' is knob_flags.h.
#pragma once

#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cli/cli.h"
#include "model/options.h"
#include "strategies/strategy.h"

namespace CLI {
class App;
class ParseError;
class Option;
}  // namespace CLI

namespace iobench {

/// Every CLI::App of iobench's: a flag given twice takes its last value, as in most tools
/// (scripts append overrides). A list-valued flag (--expect, -n) still keeps every value.
void use_last_value(CLI::App& app);

/// Every file of `files` ({flag, path}) that was asked for (path not empty), checked for
/// writing now (report/output_file.h): a bad path is a usage error before anything ran.
void check_output_files(std::initializer_list<std::pair<const char*, const std::string*>> files);

/// One output flag and its file (an empty file: not asked for).
using OutputPath = std::pair<const char*, std::string>;

/// Refuses (exit 2, before anything runs) two flags of `files` that would write one file:
/// the same existing regular file (by st_dev and st_ino, so through a symlink or hard link
/// too) or the same new name, also when it is the file stdout or stderr (or a /dev/fd/N
/// given) is open on. Devices, FIFOs, pipes and descriptors may take several outputs.
/// After check_output_files: each path must already be known to be writable.
void check_distinct_outputs(const std::vector<OutputPath>& files);

/// Refuses (exit 2) a flag of `app` that takes a value but was given none: the last word, or
/// followed by another of app's options or "--" (CLI11 would take that word as the value, or
/// say "1 required TEXT missing"). Stops at "--" and at a subcommand's name. The message
/// names the flag, what it takes (its metavariable's words) and what came instead.
void check_option_values(const CLI::App& app, const std::vector<std::string>& words,
                         const std::string& prefix = "");

/// What the heading names: each option given with other words than its default, as words to
/// type again ("--line-length 128", "--sync"), in the app's order, by its long name. Options
/// added through skip_added (where the results go, what they are checked against) are left
/// out: they change no figure.
class GivenOptions {
 public:
  template <class Add>
  void skip_added(CLI::App& app, Add add) {
    const std::size_t first = option_count(app);
    add();
    skip_from(app, first);
  }
  /// Reads each option's default from its bound variable: after every flag is added, before
  /// the parse.
  void read_defaults(CLI::App& app);
  std::vector<std::string> given() const;

 private:
  static std::size_t option_count(const CLI::App& app);
  void skip_from(const CLI::App& app, std::size_t first);
  std::vector<std::pair<const CLI::Option*, std::string>> defaults_;
  std::vector<const CLI::Option*> skip_;
};

/// A CLI11 parse error as iobench's one line, `prefix` (e.g. "compare: ") first.
Error usage_error(const CLI::ParseError& e, const std::string& prefix = "");

/// --timeout SECONDS: the same words and the same error wherever a run can be cut short.
struct TimeoutFlag {
  std::string text;

  void add(CLI::App& app, const char* help);
  std::optional<std::chrono::nanoseconds> value() const;
};

/// -r/--runs (a count or auto), -w/--warmup, --timeout, --no-trace: how often each
/// workload (a strategy or a command) runs, and for how long at most.
class RunFlags {
 public:
  /// `workload` names a row in --runs' help ("strategy", "command"); `default_runs` is
  /// "auto" or a count.
  RunFlags(const char* workload, const char* default_runs)
      : workload_(workload), runs_(default_runs) {}
  void add(CLI::App& app);
  /// Fills the fields of `s` these flags set (runs, warmup, timeout, trace); the rest
  /// (interleave, keep, tracer) belong to other flags.
  void apply(RunSettings& s) const;

 private:
  const char* workload_;
  std::string runs_, warmup_ = "1";
  TimeoutFlag timeout_;
  bool no_trace_ = false;
};

/// --format, --color, --sort, --columns, --plot, --export-json/-csv/-markdown: what the
/// results look like and which files they are also written to.
struct OutputFlags {
  std::string format = "table", color = "auto", sort, columns, plot;
  std::string export_json, export_csv, export_markdown;
  bool brief = false, notes = false;

  void add(CLI::App& app);
  /// Checks every output file (and gnuplot for --plot) now: a bad path is a usage error
  /// before minutes of measuring, not a failure after them.
  void check_files() const;
  /// Every output file flag of this group with its value, for check_distinct_outputs.
  std::vector<OutputPath> files() const;
  /// Validates the values into the presentation fields BenchOptions and CompareOptions share.
  template <class Options>
  void apply(Options& o) const {
    o.format = parse_format(format);
    o.color = parse_color(color);
    if (!sort.empty()) o.sort = parse_sort(sort);
    if (!columns.empty()) o.columns = parse_columns(columns);
    o.notes = brief ? NotesMode::kBrief : notes ? NotesMode::kFull : NotesMode::kAuto;
    o.plot = plot;
    o.export_json = export_json;
    o.export_csv = export_csv;
    o.export_markdown = export_markdown;
  }
};

class BaselineFlags;

/// --expect (not compare's), --export-junit and the baselines (cli/baseline_flags.h):
/// --baseline, --save-baseline, --count-tolerance, --exact-counts and, with timed runs,
/// --time-tolerance.
/// `trace` checks one command: no strategies, no --time-tolerance, only what `iobench
/// trace` measures; `compare` checks its commands against a baseline alone.
class CheckFlags {
 public:
  enum class For { kRun, kTrace, kCompare };
  explicit CheckFlags(For command);
  ~CheckFlags();
  CheckFlags(const CheckFlags&) = delete;
  CheckFlags& operator=(const CheckFlags&) = delete;
  void add(CLI::App& app);
  /// Every --expect, checked against the strategies being run (none for trace) and the
  /// tracer's reach (--trace-all).
  std::vector<Expectation> expectations(const std::vector<const Strategy*>& strategies,
                                        bool trace_all) const;
  const std::string& export_junit() const { return export_junit_; }
  /// Checks --export-junit and --save-baseline for writing now (as OutputFlags::check_files).
  void check_files() const;
  /// --export-junit and --save-baseline with their values, for check_distinct_outputs.
  std::vector<OutputPath> files() const;
  /// The bench run's checks: expectations, JUnit file and baselines into o (after
  /// o.strategies, o.dirs and o.tracer are set).
  void apply(BenchOptions& o) const;
  /// trace's and compare's baselines; `outputs`: the command's other output files, none of
  /// which may be the --baseline.
  BaselineOptions baseline(std::vector<OutputPath> outputs) const;
  /// Whether a --baseline is given: the run has a check besides its --expect.
  bool compares() const;

 private:
  For for_;
  bool trace_;
  std::vector<std::string> expects_;
  std::string export_junit_;
  std::unique_ptr<BaselineFlags> baseline_;
};

}  // namespace iobench
