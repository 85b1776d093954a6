#include "report/reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace iobench {

const std::vector<FormatInfo>& output_formats() {
  static const std::vector<FormatInfo> kFormats = {
      {.format = OutputFormat::kTable,
       .name = "table",
       .alias = nullptr,
       .bench = render_table,
       .trace = render_trace_table},
      {.format = OutputFormat::kJson,
       .name = "json",
       .alias = nullptr,
       // JSON is the record whole: how a table would present it is no part of it.
       .bench = [](const RunRecord& r, const Presentation&) { return render_json(r); },
       .trace = [](const TraceRecord& r, const Presentation&) { return render_trace_json(r); }},
      {.format = OutputFormat::kCsv, .name = "csv", .alias = nullptr, .bench = render_csv},
      {.format = OutputFormat::kMarkdown,
       .name = "markdown",
       .alias = "md",
       .bench = render_markdown},
  };
  return kFormats;
}

const FormatInfo* find_format(const std::string& name) {
  for (const FormatInfo& f : output_formats())
    if (name == f.name || (f.alias && name == f.alias)) return &f;
  return nullptr;
}

std::string format_names(bool trace) {
  std::string out;
  for (const FormatInfo& f : output_formats()) {
    if (trace && !f.trace) continue;
    out += (out.empty() ? "" : ", ") + std::string(f.name);
  }
  return out;
}

namespace {

const FormatInfo& info(OutputFormat format) {
  for (const FormatInfo& f : output_formats())
    if (f.format == format) return f;
  return output_formats().front();  // unreachable: every OutputFormat has its line
}

}  // namespace

std::string render(OutputFormat format, const RunRecord& record, const Presentation& presentation) {
  return info(format).bench(record, presentation);
}

std::string render(OutputFormat format, const TraceRecord& report,
                   const Presentation& presentation) {
  const FormatInfo& f = info(format);
  return f.trace ? f.trace(report, presentation) : render_trace_table(report, presentation);
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
