#include "report/live_table.h"

#include <fmt/format.h>
#include <unistd.h>

#include "report/grid.h"
#include "report/terminal.h"

namespace iobench {

LiveTable::LiveTable(OutputFormat format, Progress& progress)
    : enabled_(format == OutputFormat::kTable && moves_cursor(STDOUT_FILENO)),
      progress_(progress) {}

void LiveTable::update(const RunRecord& rep, const Presentation& pres) {
  if (!enabled_) return;
  Presentation live = pres;
  live.live = true;
  const std::string table = render_table(rep, live);
  // Rows, not lines: a table wider than the terminal wraps (Progress erases by rows too).
  const std::size_t lines = screen_rows(table, terminal_width(STDOUT_FILENO));
  // A table taller than the screen scrolls out of reach of the cursor and could not be
  // erased: stop drawing live (the final table still comes).
  const std::size_t rows = terminal_rows(STDOUT_FILENO);
  if (rows == 0 || lines + 2 > rows) {
    clear();
    enabled_ = false;
    return;
  }
  progress_.show_block(table);
  lines_ = lines;
}

void LiveTable::clear() {
  if (!enabled_ || lines_ == 0) return;
  progress_.show_block("");
  lines_ = 0;
}

}  // namespace iobench
