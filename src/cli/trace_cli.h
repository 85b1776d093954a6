// `iobench trace`'s flags: its own (--format table|json, --per-process, -o, --export-json)
// and the groups it shares with the bench run (--timeout, --expect and --export-junit, the
// tracer's).
#pragma once

#include <string>
#include <vector>

#include "cli/flag_groups.h"
#include "cli/tracer_flags.h"
#include "model/options.h"

namespace CLI {
class App;
}

namespace iobench {

class TraceFlags {
 public:
  /// Adds the `trace` subcommand and its flags to app; returns the subcommand.
  CLI::App* add(CLI::App& app);
  /// Validated options for `command` (the words after trace's options). Throws Error.
  TraceCommandOptions options(std::vector<std::string> command) const;

 private:
  /// The tracer's flags, in count mode for checks that only count (README "iobench
  /// trace"): there are checks (an --expect, or a --baseline, which compares counts alone),
  /// count mode judges every --expect (judged_by: no time, no bytes), and nothing asks for
  /// times (--time-all, --latency).
  TracerFlags tracer_options(const std::vector<Expectation>& checks) const;

  TraceCommandOptions o_;  // the fields CLI11 fills directly (-o, --export-json, ...)
  std::string format_ = "table";
  TimeoutFlag timeout_;
  CheckFlags check_{CheckFlags::For::kTrace};
  std::string name_;  // --name
  TracerFlags tracer_;
  bool latency_ = false;  // --latency: time the calls although every check asks for counts
};

}  // namespace iobench
