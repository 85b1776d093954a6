// `iobench compare`: real programs side by side, the way hyperfine runs them (warm-ups, then
// timed runs of the whole process, no shell unless asked), plus one traced run each for the
// exact write calls, in the same table, summary, JSON and chart as the strategies. Each
// command runs through the same Runner as a strategy (run/command_workload.h).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "model/options.h"
#include "run/command_workload.h"  // attribute_command_writes
#include "tracer/tracer.h"

namespace iobench {

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
