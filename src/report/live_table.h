// On a terminal, the results table grows in place while the run goes on: each strategy's row
// appears as soon as it is measured (hyperfine shows each result as it finishes), and the
// final table, with its summary and notes, takes the live table's place at the end. The
// Progress draws it (show_block), so that notices go above it and it is redrawn below them.
#pragma once

#include <cstddef>

#include "report/progress.h"
#include "report/reporter.h"

namespace iobench {

class LiveTable {
 public:
  /// Draws only for the table format on a terminal stdout that moves its cursor (not
  /// TERM=dumb); otherwise every call does nothing, so piped output is exactly the final table.
  LiveTable(OutputFormat format, Progress& progress);

  /// Replaces what the last update drew with the table of `rep`'s rows so far.
  void update(const RunRecord& rep, const Presentation& pres);
  /// Erases the live table: the final table is printed where it stood.
  void clear();

 private:
  bool enabled_;
  Progress& progress_;
  std::size_t lines_ = 0;  // lines the last update drew
};

}  // namespace iobench
