#include "report/live_table.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "report/terminal.h"

namespace iobench {

LiveTable::LiveTable(OutputFormat format, Progress& progress)
    : enabled_(format == OutputFormat::kTable && is_terminal(STDOUT_FILENO)), progress_(progress) {}

std::string LiveTable::erase() const {
  // Up to the live table's first line, then clear to the end of the screen. This relies on
  // no line having wrapped, which the width-fitted table guarantees.
  return lines_ == 0 ? "" : fmt::format("\x1b[{}A\r\x1b[J", lines_);
}

void LiveTable::update(const RunRecord& rep, const Presentation& pres) {
  if (!enabled_) return;
  Presentation live = pres;
  live.live = true;
  const std::string table = render_table(rep, live);
  const auto lines = static_cast<std::size_t>(std::count(table.begin(), table.end(), '\n'));
  // A table taller than the screen scrolls out of reach of the cursor and could not be
  // erased: stop drawing live (the final table still comes).
  const std::size_t rows = terminal_rows(STDOUT_FILENO);
  if (rows == 0 || lines + 2 > rows) {
    clear();
    enabled_ = false;
    return;
  }
  progress_.print_above(erase() + table);
  lines_ = lines;
}

void LiveTable::clear() {
  if (!enabled_ || lines_ == 0) return;
  progress_.print_above(erase());
  lines_ = 0;
}

}  // namespace iobench
