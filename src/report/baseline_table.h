// The baseline comparison as a person reads it (check/baseline.h compares; this shows):
// "baseline comparison", the changed configuration, then one aligned row per compared value
// (metric, before, after, change), REGRESSION beside each that regressed.
#pragma once

#include <string>

#include "check/baseline.h"

namespace iobench {

/// A compared value's cells: "20", "—" (not measured), "1.23 ms", "ok"; the change "=",
/// "+1", "-3", "+12.5%", "14.2×", ">999×", "changed" or "not measured on one side".
struct BaselineCells {
  std::string before, after, change;
};
BaselineCells baseline_cells(const BaselineDiff& d);

/// "buffered.write_calls: 20 → 21 (+1)": the regression line and the JUnit case's detail,
/// unescaped (the names may come from the baseline file or a compare -n).
std::string baseline_diff_line(const BaselineDiff& d);

/// The comparison's table, starting with an empty line (it follows the results).
std::string render_comparison(const BaselineComparison& cmp);

}  // namespace iobench
