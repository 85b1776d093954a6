// Value parsers shared by the commands' flag groups (cli.cc, compare_cli.cc, trace_cli.cc).
// Each throws Error (exit 2) with a one-line message naming the flag; the public ones used
// outside the CLI are declared in cli.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strategies/strategy.h"

namespace iobench {

/// Parses a byte size: a whole number with an optional suffix K, M, G (powers of 1024,
/// also written KiB, MiB, GiB) or B. Throws Error naming `flag` when it is not one.
std::uint64_t parse_size(const std::string& flag, const std::string& text);
/// A whole number in [min, max], for `flag`.
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max);
/// A tolerance: "25%" or "0.25", finite and not negative.
double parse_fraction(const std::string& flag, const std::string& text);
/// --strategy all | NAME,... (unknown names get a did-you-mean).
std::vector<const Strategy*> parse_strategies(const std::string& text);
/// --sync none | end | every:N.
SyncPolicy parse_sync(const std::string& text);

/// The words parse_color, parse_sort and parse_sync take (every:N as its prefix "every:"),
/// for --help's metavariables and the shell completions.
std::vector<std::string> color_words();
std::vector<std::string> sort_words();
std::vector<std::string> sync_words();
/// --format's words, from output_formats() (only those `iobench trace` renders when `trace`).
std::vector<std::string> format_words(bool trace);
/// --strategy's words: all, then every strategy of the registry.
std::vector<std::string> strategy_words();
/// --tracer's words: every backend of the list, then auto.
std::vector<std::string> tracer_words();
/// "a|b|c": `words` as a metavariable of choices.
std::string choices(const std::vector<std::string>& words);

}  // namespace iobench
