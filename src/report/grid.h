// Aligned text tables for the terminal: columns with one- or two-line headers, cells that
// may carry a colour, and the bars drawn beside the numbers. Shared by every table iobench
// prints (strategies, commands, sweeps, trace).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace iobench {

/// SGR escape codes. Written only when the table is rendered with colour.
namespace style {
inline constexpr const char* kNone = "";
inline constexpr const char* kBold = "\x1b[1m";
inline constexpr const char* kDim = "\x1b[2m";
inline constexpr const char* kRed = "\x1b[31m";
inline constexpr const char* kGreen = "\x1b[32m";
inline constexpr const char* kYellow = "\x1b[33m";
inline constexpr const char* kBlue = "\x1b[34m";
inline constexpr const char* kCyan = "\x1b[36m";
inline constexpr const char* kReset = "\x1b[0m";
}  // namespace style

/// Text wrapped in a style (and a reset) when colour is on; the text alone otherwise.
std::string paint(const std::string& text, const char* sgr, bool color);

/// Display width of UTF-8 text in terminal cells: µ, ×, — and ▉ one each, a CJK character
/// or a fullwidth form two, a combining mark none (code_points.h); escape sequences none.
std::size_t display_width(const std::string& s);

/// A horizontal bar of `width` columns filled to `fraction` (0..1) in eighths of a column
/// (▏▎▍▌▋▊▉█), so eight columns show 64 steps. Any fraction above 0 shows at least an eighth,
/// so "a little" never looks like "none".
std::string bar(double fraction, std::size_t width);

/// A column's header and layout. Built with designated initializers: {.title = "call",
/// .over = "bytes/", .drop = 5}.
struct GridColumn {
  std::string title = {};  // bottom header line
  bool right = true;       // numbers right-aligned, names left
  std::string over = {};   // optional top header line (two-line headers keep columns narrow)
  std::size_t gap = 2;     // spaces before this column (a bar sits one space from its number)
  /// When the grid must fit a width, columns go in order of this rank, highest first;
  /// 0 never goes. Bars narrow before anything goes.
  int drop = 0;
  std::size_t bar_width = 0;  // >0: a bar column of this many columns (cells carry a fraction)
  /// Drawn on the terminal only (a bar, a glyph): Markdown leaves the column out.
  bool terminal_only = false;
  /// When the grid must fit a width, this column narrows first, its longer cells losing
  /// their middle to "…" (elide_middle: a path keeps its start and its file name).
  bool elide = false;
};

/// A column of bars, drawn at layout time so that they can narrow to fit.
GridColumn bar_column(std::size_t width, int drop);

struct GridCell {
  GridCell(std::string t = {}, const char* s = style::kNone) : text(std::move(t)), sgr(s) {}
  GridCell(const char* t, const char* s = style::kNone) : text(t), sgr(s) {}
  /// A bar cell: filled to `f` (0..1) of the column's width; a negative f draws nothing.
  static GridCell bar(double f, const char* s = style::kNone) {
    GridCell c(std::string{}, s);
    c.fraction = f;
    return c;
  }
  std::string text;
  const char* sgr;
  double fraction = -1;
};

/// Header lines, a rule, and one line per row; trailing blanks trimmed. Styles are applied
/// after padding, so escape codes never disturb the alignment. With `max_width` > 0, eliding
/// columns narrow (to 16 columns or their title), then bars (to 3 columns), then columns are
/// dropped by their rank until every line fits.
std::string render_grid(const std::vector<GridColumn>& cols,
                        const std::vector<std::vector<GridCell>>& rows, bool color = false,
                        std::size_t max_width = 0);

/// A column's plain value for machines (CSV): its key and the value in plain units (ns,
/// bytes, counts, ratios as numbers), or "" where the figure was not measured, never 0.
template <typename Row>
struct Field {
  std::string key;
  std::function<std::string(const Row&)> value;
};

/// One column of a table described once: its header, how a row fills its cell for people
/// (the terminal, Markdown) and its plain values, if any. A table is a list of these
/// (report/result_table.h, the trace table), so each renderer says what its columns are
/// and render_columns, Markdown and CSV draw them all alike.
template <typename Row>
struct Column {
  // A constructor, not a default member initializer: GCC 12 fails on one here (an internal
  // compiler error in nothrow_spec_p).
  Column(GridColumn h, std::function<GridCell(const Row&)> c, std::vector<Field<Row>> f = {})
      : head(std::move(h)), cell(std::move(c)), fields(std::move(f)) {}
  GridColumn head;
  std::function<GridCell(const Row&)> cell;
  std::vector<Field<Row>> fields;
};

/// render_grid of each row's cells, column by column.
template <typename Row>
std::string render_columns(const std::vector<Column<Row>>& cols, const std::vector<Row>& rows,
                           bool color = false, std::size_t max_width = 0) {
  std::vector<GridColumn> heads;
  heads.reserve(cols.size());
  for (const auto& c : cols) heads.push_back(c.head);
  std::vector<std::vector<GridCell>> cells;
  cells.reserve(rows.size());
  for (const Row& row : rows) {
    auto& line = cells.emplace_back();
    line.reserve(cols.size());
    for (const auto& c : cols) line.push_back(c.cell(row));
  }
  return render_grid(heads, cells, color, max_width);
}

/// Each line of `text` wrapped at word boundaries to `width` columns, continuation lines
/// indented two more than the line they continue; `text` unchanged when width is 0.
std::string wrap_lines(const std::string& text, std::size_t width);
/// Whether every line of `text` is at most `width` columns wide.
bool fits(const std::string& text, std::size_t width);
/// The rows `text` takes on a terminal `columns` wide: a line wider than that wraps onto more.
std::size_t screen_rows(const std::string& text, std::size_t columns);
/// Like wrap_lines, but a line that starts with two spaces first rejoins the line before it
/// (hand-wrapped notes become one paragraph), so the text reflows to any width; text that
/// already fits is returned as it is.
std::string reflow(const std::string& text, std::size_t width);
/// `line` cut to at most `width` columns, whole code points dropped from its end.
std::string cut_to_width(std::string line, std::size_t width);
/// `text` in at most `width` columns, as file managers show a long path: its start, "…" and
/// its end, the end being its last path component whole when that leaves room for a start.
std::string elide_middle(const std::string& text, std::size_t width);
/// The first line `text` reflows to at `width` (0: its first line as written), ending in "…"
/// when anything was cut: a note on a screen too short for every note.
std::string first_line(const std::string& text, std::size_t width);

}  // namespace iobench
