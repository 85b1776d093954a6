// Command-line parsing (CLI11) into validated options. Parsing and validation are here and
// only here; everything downstream trusts what it is given.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "options.h"

namespace iobench {

struct ListCommand {};
struct VersionCommand {};
struct HelpCommand {
  std::string text;
};
using Command = std::variant<BenchOptions, TraceCommandOptions, ListCommand, VersionCommand, HelpCommand>;

/// Throws Error (exit status 2) with a one-line message naming the flag and the reason.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace iobench
