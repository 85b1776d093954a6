// Command-line parsing (CLI11) into validated options. Parsing and validation are here and
// only here; everything downstream trusts what it is given.
#pragma once

#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "model/options.h"

namespace CLI {
class App;
}

namespace iobench {

struct ListCommand {};
struct VersionCommand {};
struct HelpCommand {
  std::string text;
};
using Command = std::variant<BenchOptions, TraceCommandOptions, ListCommand, VersionCommand,
                             HelpCommand, SweepOptions, CompareOptions>;

/// One exit status of a run and what it means, as --help's footer and the man page say it.
struct ExitStatusDoc {
  const char* status;  // "0", "128+N"
  const char* meaning;
};
std::span<const ExitStatusDoc> exit_statuses();
/// The sentence after them: trace's statuses are its own (trace --help).
std::string trace_status_note();
/// What counts, sizes and durations may be written as (the run's --help footer).
std::string numbers_help();

/// Throws Error (exit status 2) with a one-line message naming the flag and the reason.
Command parse_command_line(int argc, const char* const* argv);

/// Calls `visit` with every command's CLI::App as its --help shows it: the bench run's
/// (sweep takes its flags), trace's and compare's. For the help test: a flag without a
/// metavariable, or a help line too wide, shows in every command that has it.
void visit_command_apps(const std::function<void(const CLI::App&)>& visit);
/// compare's part of visit_command_apps (compare_cli.cc builds its App per parse).
void visit_compare_app(const std::function<void(const CLI::App&)>& visit);

/// `iobench trace`'s words after "trace", split into iobench's options and the command,
/// which starts after the first "--" or at the first word that is not an option of
/// `trace` and is kept exactly as given (a later "--" included). Throws Error on an
/// unknown option before the command.
struct TraceWords {
  std::vector<std::string> options, command;
};
TraceWords split_trace_words(const CLI::App& trace, const std::vector<std::string>& words);

/// `iobench sweep`: `args` are the words after `sweep`. Throws Error (exit 2) naming the
/// problem.
SweepOptions parse_sweep(const std::vector<std::string>& args);
/// `iobench sweep --help`.
std::string sweep_help();
/// The flags a sweep may vary (--lines, then the sweepable knobs), and its Usage line.
std::vector<std::string> sweep_flags();
std::string sweep_usage();

/// Splits a command line into words as a POSIX shell would, without any expansion: blanks
/// separate words; '…' is literal; "…" is literal except \" \\ \$ \` ; a backslash outside
/// quotes takes the next character literally. Throws Error on an unterminated quote.
std::vector<std::string> split_words(const std::string& command);
/// `iobench compare`: `args` are the words after `compare`. Throws Error (exit 2).
CompareOptions parse_compare(const std::vector<std::string>& args);
/// `iobench compare --help`.
std::string compare_help();

/// Flag values shared by the subcommands; each throws Error naming the flag.
OutputFormat parse_format(const std::string& text);
std::chrono::nanoseconds parse_timeout(const std::string& text);
ColorMode parse_color(const std::string& text);
SortOrder parse_sort(const std::string& text);
/// --columns: a table width from 60 (the minimal table) up.
std::size_t parse_columns(const std::string& text);

}  // namespace iobench
