// --save-baseline, --baseline, --count-tolerance and, where rows have timed runs (a run,
// compare), --time-tolerance: declared and validated once for the run, trace and compare.
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
  ProgramBaselineOptions options(const std::vector<OutputPath>& outputs) const;
  const std::string& save() const { return save_; }
  const std::string& compare_with() const { return baseline_; }

 private:
  bool times_;
  std::string save_, baseline_, count_tolerance_, time_tolerance_ = "25%";
};

}  // namespace iobench
