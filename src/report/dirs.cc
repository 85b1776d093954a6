#include "report/dirs.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "report/escape.h"

namespace iobench {

std::vector<std::string> parse_dirs(const std::string& text) {
  std::vector<std::string> dirs;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string dir =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (dir.empty()) throw Error("--dir: empty directory in '" + text + "'");
    // The same directory twice would be two identical blocks, and twice the run time.
    if (std::find(dirs.begin(), dirs.end(), dir) != dirs.end())
      throw Error(fmt::format("--dir: {} is given twice in '{}'", dir, text));
    dirs.push_back(dir);
  }
  return dirs;
}

std::vector<std::string> result_dirs(const std::vector<StrategyResult>& results) {
  std::vector<std::string> dirs;
  for (const auto& r : results)
    if (std::find(dirs.begin(), dirs.end(), r.dir) == dirs.end()) dirs.push_back(r.dir);
  return dirs;
}

RunRecord dir_block(const RunRecord& rep, const std::string& dir) {
  RunRecord block = rep;
  block.results.clear();
  for (const auto& r : rep.results)
    if (r.dir == dir) block.results.push_back(r);
  block.dir = dir;
  if (!block.results.empty()) block.filesystem = block.results.front().filesystem;
  return block;
}

std::string dir_title(const std::string& filesystem, const std::string& dir) {
  return escape_text(fmt::format("{} · {}", filesystem, dir));  // a heading on the terminal
}

std::string render_by_dir(OutputFormat format, const RunRecord& rep, const Presentation& pres) {
  const std::vector<std::string> dirs = result_dirs(rep.results);
  const bool blocks = format == OutputFormat::kTable || format == OutputFormat::kMarkdown;
  if (dirs.size() <= 1 || !blocks) return render(format, rep, pres);
  std::string out;
  for (const std::string& dir : dirs) {
    const RunRecord block = dir_block(rep, dir);
    const std::string title = dir_title(block.filesystem, dir);
    if (!out.empty()) out += "\n";
    out += format == OutputFormat::kMarkdown ? "### " + title + "\n\n"
                                             : fmt::format("━━ {} ━━\n", title);
    out += render(format, block, pres);
  }
  return out;
}

}  // namespace iobench
