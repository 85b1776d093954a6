// --save-baseline, --baseline, --count-tolerance, --exact-counts and, where rows have timed
// runs (a run, compare), --time-tolerance: declared and validated once for the run, trace and
// compare; and the command line that saves a run's counts as its baseline.
#pragma once

#include <string>
#include <vector>

#include "cli/flag_groups.h"
#include "model/options.h"

namespace CLI {
class App;
}

namespace iobench {

class BaselineFlags {
 public:
  /// `times`: the command has timed runs, so --time-tolerance applies.
  explicit BaselineFlags(bool times) : times_(times) {}
  void add(CLI::App& app);
  /// The validated values. Throws Error (exit 2) naming the flag, or when one of `outputs`
  /// (every file the command writes, --save-baseline included) is the --baseline itself.
  BaselineOptions options(const std::vector<OutputPath>& outputs) const;
  const std::string& save() const { return save_; }
  const std::string& compare_with() const { return baseline_; }

 private:
  bool times_;
  bool exact_counts_ = false;
  std::string save_, baseline_, count_tolerance_, time_tolerance_ = "25%";
};

/// `words` (argv[0], the subcommand if any, then iobench's options) with --baseline FILE as
/// --save-baseline FILE, put first, and any other --save-baseline left out, then "--" and
/// `command` when there is one (trace's): the command line that saves the run's counts as
/// the baseline it was compared with. Empty when `words` hold no --baseline.
std::vector<std::string> baseline_update_command(const std::vector<std::string>& words,
                                                 std::size_t options_from,
                                                 const std::vector<std::string>& command = {});

}  // namespace iobench
