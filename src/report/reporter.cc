#include "report/reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace iobench {

std::string render(OutputFormat format, const RunRecord& record, const Presentation& presentation) {
  switch (format) {
    case OutputFormat::kJson:
      return render_json(record);
    case OutputFormat::kCsv:
      return render_csv(record);
    case OutputFormat::kMarkdown:
      return render_markdown(record);
    case OutputFormat::kTable:
      break;
  }
  return render_table(record, presentation);
}

std::string render(OutputFormat format, const TraceRecord& report) {
  switch (format) {
    case OutputFormat::kJson:
      return render_trace_json(report);
    case OutputFormat::kCsv:
    case OutputFormat::kMarkdown:
    case OutputFormat::kTable:
      break;
  }
  return render_trace_table(report);
}

std::string run_count_text(const RunRecord& rep, const std::string& noun) {
  auto counted = [&](std::size_t n) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); };
  if (rep.runs) return counted(static_cast<std::size_t>(*rep.runs));
  std::size_t fewest = SIZE_MAX, most = 0;
  for (const auto& r : rep.results) {
    if (r.time_ns.samples.empty()) continue;
    fewest = std::min(fewest, r.time_ns.samples.size());
    most = std::max(most, r.time_ns.samples.size());
  }
  if (most == 0) return fmt::format("{} or more {}s", rep.auto_min_runs, noun);
  if (fewest == most) return counted(most);
  return fmt::format("{}–{} {}s", fewest, most, noun);
}

std::string format_duration(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string format_bytes(double bytes) {
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1024.0 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace iobench
