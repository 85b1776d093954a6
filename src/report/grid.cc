#include "report/grid.h"

#include <algorithm>
#include <cmath>

namespace iobench {

std::string paint(const std::string& text, const char* sgr, bool color) {
  if (!color || !sgr || !*sgr || text.empty()) return text;
  return sgr + text + style::kReset;
}

std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
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

std::string render_grid(const std::vector<GridColumn>& cols,
                        const std::vector<std::vector<GridCell>>& rows, bool color) {
  std::vector<std::size_t> w(cols.size());
  bool two_line = false;
  for (std::size_t c = 0; c < cols.size(); ++c) {
    w[c] = std::max(display_width(cols[c].title), display_width(cols[c].over));
    two_line = two_line || !cols[c].over.empty();
    for (const auto& row : rows) w[c] = std::max(w[c], display_width(row[c].text));
  }
  auto line = [&](const std::vector<GridCell>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string pad(w[c] - display_width(cells[c].text), ' ');
      if (c) out += std::string(cols[c].gap, ' ');
      const std::string text = paint(cells[c].text, cells[c].sgr, color);
      out += cols[c].right ? pad + text : text + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  std::vector<GridCell> over, titles;
  for (const auto& c : cols) {
    over.emplace_back(c.over, style::kBold);
    titles.emplace_back(c.title, style::kBold);
  }
  if (two_line) out += line(over);
  out += line(titles);
  std::size_t total = 0;
  for (std::size_t c = 0; c < cols.size(); ++c) total += w[c] + (c ? cols[c].gap : 0);
  std::string rule;
  for (std::size_t i = 0; i < total; ++i) rule += "─";
  out += paint(rule, style::kDim, color) + "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace iobench
