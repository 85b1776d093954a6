// Value parsers shared by the commands' flag groups (cli.cc, compare_cli.cc, trace_cli.cc).
// Each throws Error (exit 2) with a one-line message naming the flag; the public ones used
// outside the CLI are declared in cli.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strategy.h"

namespace iobench {

/// A whole number in [min, max], for `flag`.
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max);
/// A tolerance: "25%" or "0.25", finite and not negative.
double parse_fraction(const std::string& flag, const std::string& text);
/// --strategy all | NAME,... (unknown names get a did-you-mean).
std::vector<const Strategy*> parse_strategies(const std::string& text);
/// --sync none | end | every:N.
SyncPolicy parse_sync(const std::string& text);

}  // namespace iobench
