// The baseline comparison as a person reads it (check/baseline.h compares; this shows):
// "baseline comparison", the changed configuration, then one aligned row per value that
// changed, and every write_calls and median (metric, before, after, change), REGRESSION
// beside each that regressed, "improved" beside a count that fell (CHANGED with exact counts).
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

/// What a saved baseline holds, in one line, each value named as the comparison names it:
/// "prog: write_calls 1,000, write 1,002, file out.txt 1,000"; rows after "; ", at most
/// twelve values and then how many more, unescaped.
std::string baseline_summary(const Baseline& b);

}  // namespace iobench
