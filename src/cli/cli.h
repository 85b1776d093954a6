// Command-line parsing (CLI11) into validated options. Parsing and validation are here and
// only here; everything downstream trusts what it is given.
#pragma once

#include <chrono>
#include <string>
#include <variant>
#include <vector>

#include "model/options.h"
#include "commands/compare.h"
#include "commands/sweep.h"

namespace CLI {
class App;
}

namespace iobench {

struct ListCommand {};
struct VersionCommand {};
struct HelpCommand {
  std::string text;
};
using Command = std::variant<BenchOptions, TraceCommandOptions, ListCommand, VersionCommand, HelpCommand,
                             SweepOptions, CompareOptions>;

/// Throws Error (exit status 2) with a one-line message naming the flag and the reason.
Command parse_command_line(int argc, const char* const* argv);

/// `iobench trace`'s words after "trace", split into iobench's options and the command,
/// which starts after the first "--" or at the first word that is not an option of
/// `trace` and is kept exactly as given (a later "--" included). Throws Error on an
/// unknown option before the command.
struct TraceWords {
  std::vector<std::string> options, command;
};
TraceWords split_trace_words(const CLI::App& trace, const std::vector<std::string>& words);

/// Flag values shared by the subcommands; each throws Error naming the flag.
OutputFormat parse_format(const std::string& text);
std::chrono::nanoseconds parse_timeout(const std::string& text);
ColorMode parse_color(const std::string& text);
SortOrder parse_sort(const std::string& text);
/// --columns: a table width from 60 (the minimal table) up.
std::size_t parse_columns(const std::string& text);

}  // namespace iobench
