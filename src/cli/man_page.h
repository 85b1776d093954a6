// iobench(1): the man page, in roff, from command_docs() (the App objects --help prints).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cli/command_docs.h"

namespace iobench {

/// One command line of the man page's EXAMPLES, and what it does.
struct ManExample {
  const char* command;  // as typed, "iobench --lines 100000 --strategy all"
  const char* what;
};
/// The EXAMPLES (tests parse each one, so none goes stale).
std::span<const ManExample> man_examples();

/// The whole page for `version` ("0.1.0").
std::string man_page(const std::vector<CommandDoc>& commands, const std::string& version);

}  // namespace iobench
