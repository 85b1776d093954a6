#include "report/grid.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "report/code_points.h"
#include "report/escape.h"

namespace iobench {

std::string paint(const std::string& text, const char* sgr, bool color) {
  if (!color || !sgr || !*sgr || text.empty()) return text;
  return sgr + text + style::kReset;
}

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      // An SGR sequence takes no room: skip past its final letter.
      i += 2;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      // Not UTF-8 (cells are escaped first; this is text of our own): a lead byte, one cell.
      if ((s[i] & 0xC0) != 0x80) ++n;
      ++i;
      continue;
    }
    n += cell_width(decode_utf8(std::string_view(s).substr(i, len)));
    i += len;
  }
  return n;
}

std::string bar(double fraction, std::size_t width) {
  static const char* const kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  if (!(fraction > 0)) return "";
  fraction = std::min(fraction, 1.0);
  auto eighths = static_cast<std::size_t>(std::lround(fraction * static_cast<double>(width) * 8));
  eighths = std::max<std::size_t>(eighths, 1);
  std::string out;
  for (std::size_t i = 0; i < eighths / 8; ++i) out += "█";
  out += kEighths[eighths % 8];
  return out;
}

GridColumn bar_column(std::size_t width, int drop) {
  return {.right = false, .gap = 1, .drop = drop, .bar_width = width, .terminal_only = true};
}

namespace {

constexpr std::size_t kNarrowestBar = 3;
constexpr std::size_t kNarrowestElided = 16;  // a path's start and a short file name

/// Which columns a grid shows and how wide each is.
struct Layout {
  std::vector<bool> shown;
  std::vector<std::size_t> bar_width;  // per column; 0 for text columns
  std::vector<std::size_t> width;
  std::vector<std::size_t> cap;  // an eliding column's most, its longer cells elided
};

/// A cell's text escaped (a file name or a -n name with ESC or a newline must neither drive
/// the terminal nor break the row), or its bar.
std::string cell_text(const GridCell& cell, std::size_t bar_width) {
  if (bar_width == 0 || cell.fraction < 0) return escape_text(cell.text);
  return bar(cell.fraction, bar_width);
}

/// Escaped as its cells are: a title can be a -n name (the compare table's "vs" column).
std::size_t title_width(const GridColumn& col) {
  return std::max(display_width(escape_text(col.title)), display_width(escape_text(col.over)));
}

void measure(Layout& l, const std::vector<GridColumn>& cols,
             const std::vector<std::vector<GridCell>>& rows) {
  for (std::size_t c = 0; c < cols.size(); ++c) {
    l.width[c] = title_width(cols[c]);
    for (const auto& row : rows)
      l.width[c] = std::max(l.width[c], display_width(cell_text(row[c], l.bar_width[c])));
    l.width[c] = std::min(l.width[c], std::max(l.cap[c], title_width(cols[c])));
  }
}

std::size_t total_width(const Layout& l, const std::vector<GridColumn>& cols) {
  std::size_t total = 0;
  bool first = true;
  for (std::size_t c = 0; c < cols.size(); ++c) {
    if (!l.shown[c]) continue;
    total += l.width[c] + (first ? 0 : cols[c].gap);
    first = false;
  }
  return total;
}

/// One step toward `max_width`: narrow the bars, else drop the highest-ranked column.
bool shrink(Layout& l, const std::vector<GridColumn>& cols) {
  bool narrowed = false;
  for (std::size_t c = 0; c < cols.size(); ++c) {
    if (l.shown[c] && l.bar_width[c] > kNarrowestBar) {
      --l.bar_width[c];
      narrowed = true;
    }
  }
  if (narrowed) return true;
  std::size_t victim = cols.size();
  for (std::size_t c = 0; c < cols.size(); ++c)
    if (l.shown[c] && cols[c].drop > 0 &&
        (victim == cols.size() || cols[c].drop > cols[victim].drop))
      victim = c;
  if (victim == cols.size()) return false;
  l.shown[victim] = false;
  return true;
}

/// Caps the eliding columns by what the grid is wider than `max_width`, none of them below
/// kNarrowestElided: a path gives way before any figure does.
void elide_to_fit(Layout& l, const std::vector<GridColumn>& cols, std::size_t max_width) {
  std::size_t total = total_width(l, cols);
  for (std::size_t c = 0; c < cols.size() && total > max_width; ++c) {
    const std::size_t floor = std::max(kNarrowestElided, title_width(cols[c]));
    if (!cols[c].elide || l.width[c] <= floor) continue;
    const std::size_t give = std::min(total - max_width, l.width[c] - floor);
    l.cap[c] = l.width[c] - give;
    total -= give;
  }
}

Layout lay_out(const std::vector<GridColumn>& cols, const std::vector<std::vector<GridCell>>& rows,
               std::size_t max_width) {
  Layout l{std::vector<bool>(cols.size(), true),
           {},
           std::vector<std::size_t>(cols.size()),
           std::vector<std::size_t>(cols.size(), SIZE_MAX)};
  for (const auto& c : cols) l.bar_width.push_back(c.bar_width);
  measure(l, cols, rows);
  if (max_width > 0) {
    elide_to_fit(l, cols, max_width);
    measure(l, cols, rows);
  }
  while (max_width > 0 && total_width(l, cols) > max_width && shrink(l, cols))
    measure(l, cols, rows);
  return l;
}

}  // namespace

std::string render_grid(const std::vector<GridColumn>& cols,
                        const std::vector<std::vector<GridCell>>& rows, bool color,
                        std::size_t max_width) {
  const Layout l = lay_out(cols, rows, max_width);
  auto line = [&](const std::vector<GridCell>& cells) {
    std::string out;
    bool first = true;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (!l.shown[c]) continue;
      std::string text = cell_text(cells[c], l.bar_width[c]);
      if (cols[c].elide) text = elide_middle(text, l.width[c]);
      std::string pad(l.width[c] - display_width(text), ' ');
      if (!first) out += std::string(cols[c].gap, ' ');
      first = false;
      const std::string painted = paint(text, cells[c].sgr, color);
      out += cols[c].right ? pad + painted : painted + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  std::vector<GridCell> over, titles;
  bool two_line = false;
  for (const auto& c : cols) {
    over.emplace_back(c.over, style::kBold);
    titles.emplace_back(c.title, style::kBold);
  }
  for (std::size_t c = 0; c < cols.size(); ++c)
    two_line = two_line || (l.shown[c] && !cols[c].over.empty());
  if (two_line) out += line(over);
  out += line(titles);
  std::string rule;
  for (std::size_t i = 0, n = total_width(l, cols); i < n; ++i) rule += "─";
  out += paint(rule, style::kDim, color) + "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

namespace {

std::size_t leading_spaces(const std::string& s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] == ' ') ++n;
  return n;
}

/// One line wrapped at spaces; a word longer than the room left stands alone on its line.
std::string wrap_line(const std::string& line, std::size_t width) {
  const std::size_t indent = leading_spaces(line);
  const std::string hang(indent + 2, ' ');
  std::string out = line.substr(0, indent), word;
  std::size_t col = indent;
  bool line_empty = true;
  auto flush = [&] {
    if (word.empty()) return;
    const std::size_t w = display_width(word);
    if (!line_empty && col + 1 + w > width) {
      out += "\n" + hang;
      col = hang.size();
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++col;
    }
    out += word;
    col += w;
    line_empty = false;
    word.clear();
  };
  for (std::size_t i = indent; i < line.size(); ++i) {
    if (line[i] == ' ') {
      flush();
    } else {
      word += line[i];
    }
  }
  flush();
  return out;
}

}  // namespace

std::string wrap_lines(const std::string& text, std::size_t width) {
  if (width == 0) return text;
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += display_width(line) <= width ? line : wrap_line(line, width);
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

bool fits(const std::string& text, std::size_t width) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (display_width(text.substr(start, end - start)) > width) return false;
    start = end + 1;
  }
  return true;
}

std::size_t screen_rows(const std::string& text, std::size_t columns) {
  std::size_t rows = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::size_t width = display_width(text.substr(start, end - start));
    // A line exactly as wide as the terminal still takes one row: the newline ends it.
    rows += columns == 0 || width <= columns ? 1 : (width + columns - 1) / columns;
    start = end + 1;
  }
  return rows;
}

std::string reflow(const std::string& text, std::size_t width) {
  // Text that fits keeps its hand-made breaks: a wide terminal shows today's layout.
  if (width == 0 || fits(text, width)) return text;
  std::string joined;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const bool continues = !joined.empty() && joined.back() == '\n' && leading_spaces(line) == 2;
    if (continues) {
      joined.back() = ' ';
      line.erase(0, 2);
    }
    joined += line;
    if (end < text.size()) joined += '\n';
    start = end + 1;
  }
  return wrap_lines(joined, width);
}

std::string first_line(const std::string& text, std::size_t width) {
  const std::string flowed = reflow(text, width);
  std::string line = flowed.substr(0, flowed.find('\n'));
  if (line.size() + 1 >= flowed.size()) return line;  // nothing after its first line
  return (width > 0 ? cut_to_width(line, width - 1) : line) + "…";
}

namespace {

/// The end of `text` in at most `width` columns, whole code points from its end.
std::string tail_to_width(const std::string& text, std::size_t width) {
  std::size_t start = text.size();
  while (start > 0) {
    std::size_t before = start - 1;
    while (before > 0 && (static_cast<unsigned char>(text[before]) & 0xC0) == 0x80) --before;
    if (display_width(text.substr(before)) > width) break;
    start = before;
  }
  return text.substr(start);
}

}  // namespace

std::string elide_middle(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  if (width == 0) return {};
  const std::size_t room = width - 1;  // "…" takes one
  // The file name whole (from its slash) when at least a third of the room is left for the
  // start that says where it is; otherwise as much of each end.
  const std::size_t slash = text.rfind('/');
  const std::size_t name =
      slash == std::string::npos ? SIZE_MAX : display_width(text.substr(slash));
  const std::size_t end = name <= room - room / 3 ? name : room / 2;
  return cut_to_width(text, room - end) + "…" + tail_to_width(text, end);
}

std::string cut_to_width(std::string line, std::size_t width) {
  while (display_width(line) > width && !line.empty()) {
    // Drop one whole code point: its continuation bytes, then its first byte.
    while (!line.empty() && (static_cast<unsigned char>(line.back()) & 0xC0) == 0x80)
      line.pop_back();
    if (!line.empty()) line.pop_back();
  }
  return line;
}

}  // namespace iobench
