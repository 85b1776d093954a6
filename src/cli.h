// Command-line parsing (CLI11) into validated options. Parsing and validation are here and
// only here; everything downstream trusts what it is given.
#pragma once

#include <chrono>
#include <string>
#include <variant>
#include <vector>

#include "compare.h"
#include "options.h"
#include "sweep.h"

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

/// Flag values shared by the subcommands; each throws Error naming the flag.
OutputFormat parse_format(const std::string& text);
std::chrono::nanoseconds parse_timeout(const std::string& text);
ColorMode parse_color(const std::string& text);
SortOrder parse_sort(const std::string& text);
/// --columns: a table width from 60 (the minimal table) up.
std::size_t parse_columns(const std::string& text);

}  // namespace iobench
