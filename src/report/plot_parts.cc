#include "report/plot_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/escape.h"

namespace iobench {

std::string quote(const std::string& s) {
  std::string out = "\"";
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(s.find('\n', start), s.size());
    for (const char c : escape_text(std::string_view(s).substr(start, end - start))) {
      if (c == '\\' || c == '"' || c == '`') out += '\\';
      out += c;
    }
    if (end == s.size()) break;
    out += "\\n";
    start = end + 1;
  }
  return out + "\"";
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "NaN"; }

TimeUnit time_unit(double max_ns) {
  if (max_ns >= 10e9) return {1e9, "s"};
  if (max_ns >= 1e6) return {1e6, "ms"};
  if (max_ns >= 1e3) return {1e3, "µs"};
  return {1, "ns"};
}

std::string readable_list(const std::vector<std::string>& items, const char* word) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? fmt::format(" {} ", word) : ", ") + items[i];
  return out;
}

std::string filesystems_text(const std::string& joined) {
  std::vector<std::string> types;
  for (std::size_t start = 0; start <= joined.size();) {
    const std::size_t end = std::min(joined.find(',', start), joined.size());
    const std::string type = joined.substr(start, end - start);
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
    start = end + 1;
  }
  return readable_list(types, "and");
}

std::string machine(const RunRecord& rep) {
  return fmt::format("{} · {} CPUs · Linux {}", rep.host.cpu, rep.host.cpus, rep.host.kernel);
}

std::string runs_text(const RunRecord& rep) { return "median of " + run_count_text(rep, "run"); }

std::string lines_text(const RunRecord& rep) {
  return fmt::format("{} lines ({}) on {}", format_count(rep.lines),
                     format_bytes(static_cast<double>(rep.bytes)),
                     filesystems_text(rep.filesystem));
}

}  // namespace iobench
