#include "report/baseline_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/escape.h"
#include "report/grid.h"
#include "report/reporter.h"

namespace iobench {
namespace {

std::string show(std::optional<std::uint64_t> v) { return v ? format_count(*v) : "—"; }

/// A time at any magnitude a file may hold: format_duration's units for the times a run
/// can take (1 ns to 11 days), else three significant digits, never 300 of them.
std::string show_time(double ns) {
  if (ns >= 1 && ns < 1e15) return format_duration(ns);
  return fmt::format("{:.3g} ns", ns);
}

/// A median's change, after / before: a percentage below 10 times, then a factor, capped at
/// ">999×" (a median of 1e-300 ns in an edited file is a ratio of 1e305 or infinity).
std::string show_change(double ratio) {
  if (ratio < 10) return fmt::format("{:+.1f}%", 100 * (ratio - 1));
  return ratio < 999.5 ? fmt::format("{:.3g}×", ratio) : ">999×";
}

/// A count's change: "=", "+N" or "-N", or that one side has none.
std::string count_change(std::optional<std::uint64_t> was, std::optional<std::uint64_t> is) {
  if (!was || !is) return "not measured on one side";
  // Unsigned both ways: no count is too large to subtract exactly.
  const std::uint64_t distance = *is > *was ? *is - *was : *was - *is;
  return distance == 0 ? "=" : fmt::format("{}{}", *is > *was ? '+' : '-', distance);
}

/// Whether the table shows a value: every write_calls and median, anything else when it
/// changed (an unchanged syscall or file would only repeat write_calls).
bool shown(const BaselineDiff& d) {
  switch (d.kind) {
    case BaselineDiff::Kind::kStatus:
      return d.status_before != d.status_after;
    case BaselineDiff::Kind::kTime:
      return true;
    case BaselineDiff::Kind::kCount:
      break;
  }
  return d.metric == "write_calls" || d.count_before != d.count_after;
}

/// The word beside a row: what the change means for the check.
const char* verdict(const BaselineDiff& d) {
  if (d.regression) return "  REGRESSION";
  if (d.improvement) return d.failed ? "  CHANGED" : "  improved";
  return "";
}

}  // namespace

BaselineCells baseline_cells(const BaselineDiff& d) {
  switch (d.kind) {
    case BaselineDiff::Kind::kStatus:
      return {d.status_before, d.status_after, d.status_before == d.status_after ? "=" : "changed"};
    case BaselineDiff::Kind::kTime:
      return {show_time(d.time_before_ns), show_time(d.time_after_ns),
              show_change(d.time_after_ns / d.time_before_ns)};
    case BaselineDiff::Kind::kCount:
      break;
  }
  return {show(d.count_before), show(d.count_after), count_change(d.count_before, d.count_after)};
}

std::string baseline_diff_line(const BaselineDiff& d) {
  const BaselineCells c = baseline_cells(d);
  return fmt::format("{}.{}: {} → {} ({})", d.strategy, d.metric, c.before, c.after, c.change);
}

std::string render_comparison(const BaselineComparison& cmp) {
  std::string out = "\nbaseline comparison";
  if (!cmp.config_changes.empty()) {
    out += " (configuration changed: ";
    for (std::size_t i = 0; i < cmp.config_changes.size(); ++i)
      out += (i ? ", " : "") + cmp.config_changes[i];
    out += ")";
  }
  out += "\n";
  std::vector<const BaselineDiff*> rows;
  for (const auto& d : cmp.diffs)
    if (shown(d)) rows.push_back(&d);
  std::vector<BaselineCells> cells;
  cells.reserve(rows.size());
  for (const BaselineDiff* d : rows) cells.push_back(baseline_cells(*d));
  std::size_t w0 = 8, w1 = 6, w2 = 6, w3 = 5;
  // A name may come from the baseline file or a compare -n: shown as the tables show it.
  auto metric = [](const BaselineDiff& d) { return escape_text(d.strategy + "." + d.metric); };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    w0 = std::max(w0, display_width(metric(*rows[i])));
    w1 = std::max(w1, display_width(cells[i].before));
    w2 = std::max(w2, display_width(cells[i].after));
    w3 = std::max(w3, display_width(cells[i].change));
  }
  auto pad = [&](const std::string& s, std::size_t w, bool right) {
    std::string p(w - std::min(w, display_width(s)), ' ');
    return right ? p + s : s + p;
  };
  out += pad("metric", w0, false) + "  " + pad("before", w1, true) + "  " + pad("after", w2, true) +
         "  " + pad("change", w3, true) + "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BaselineCells& c = cells[i];
    out += pad(metric(*rows[i]), w0, false) + "  " + pad(c.before, w1, true) + "  " +
           pad(c.after, w2, true) + "  " + pad(c.change, w3, true) + verdict(*rows[i]) + "\n";
  }
  return out;
}

std::string baseline_summary(const Baseline& b) {
  constexpr std::size_t kMostValues = 12;  // one line, not a second table
  std::size_t listed = 0, more = 0;
  auto add = [&](std::string& row, const std::string& value) {
    if (listed == kMostValues) {
      ++more;
      return;
    }
    row += (row.back() == ':' ? " " : ", ") + value;
    ++listed;
  };
  std::string out;
  for (const std::string& name : b.order) {
    const BaselineRow& r = b.rows.at(name);
    std::string row = name + ":";
    add(row, "write_calls " + show(r.write_calls));
    for (const auto& [sys, n] : r.syscall_calls) add(row, sys + " " + show(n));
    if (r.file_calls)
      for (const auto& [path, n] : *r.file_calls) add(row, "file " + path + " " + show(n));
    if (r.time_median_ns) add(row, "time (median) " + show_time(*r.time_median_ns));
    if (row.back() != ':') out += (out.empty() ? "" : "; ") + row;
  }
  if (more > 0) out += fmt::format(" and {} more", more);
  return out;
}

}  // namespace iobench
