#include "report/result_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "report/escape.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";
constexpr std::size_t kBar = 8;  // columns; eighths make 64 steps

using RowCell = std::function<GridCell(const ResultRow&)>;
using ResultCell = std::function<GridCell(const StrategyResult&)>;

/// A column whose cell is `cell` for a row that ran and `missing` for one that did not.
Column<ResultRow> row_figure(GridColumn head, RowCell cell,
                             const GridCell& missing = GridCell(kNone)) {
  return {std::move(head), [cell = std::move(cell), missing](const ResultRow& row) {
            return ran(row) ? cell(row) : missing;
          }};
}

/// The same, for a cell that is a figure of the result alone.
Column<ResultRow> figure(GridColumn head, ResultCell cell,
                         const GridCell& missing = GridCell(kNone)) {
  return row_figure(
      std::move(head), [cell = std::move(cell)](const ResultRow& row) { return cell(*row.result); },
      missing);
}

const char* status_sgr(const StrategyResult& r) {
  return r.status == ResultStatus::kUnsupported ? style::kYellow : style::kRed;
}

/// The spread of the timed runs as a share of their mean: "±2%" fits where "min … max" took
/// 22 columns, and says the same thing to an audience.
std::string spread(const Stats& s) {
  if (s.samples.size() < 2 || s.mean <= 0) return kNone;
  return fmt::format("±{:.0f}%", 100 * s.stddev / s.mean);
}

std::string bytes_per_call(const StrategyResult& r) {
  if (!r.write_calls || *r.write_calls == 0 || r.bytes == 0) return kNone;
  return format_bytes(static_cast<double>(r.bytes) / static_cast<double>(*r.write_calls));
}

std::string share(const StrategyResult& r) {
  const auto pct = syscall_share(r);
  return pct ? fmt::format("{:.0f}%", *pct) : kNone;
}

/// The largest median and write-call count among the rows that ran: the bars' full length.
struct Scale {
  double time = 0, calls = 0;
};
Scale scale(const std::vector<ResultRow>& rows) {
  Scale max;
  for (const ResultRow& row : rows) {
    if (!ran(row)) continue;
    const StrategyResult& r = *row.result;
    max.time = std::max(max.time, r.time_ns.median);
    if (r.write_calls) max.calls = std::max(max.calls, static_cast<double>(*r.write_calls));
  }
  return max;
}

}  // namespace

bool ran(const ResultRow& row) { return row.result->status == ResultStatus::kOk; }

std::vector<Column<ResultRow>> result_columns(const std::vector<ResultRow>& rows, GridColumn name,
                                              GridColumn relative) {
  const Scale max = scale(rows);
  auto calls_bar = [max](const StrategyResult& r) {  // log scale
    if (!r.write_calls || max.calls <= 0) return GridCell::bar(-1, style::kCyan);
    return GridCell::bar(
        std::log10(1 + static_cast<double>(*r.write_calls)) / std::log10(1 + max.calls),
        style::kCyan);
  };
  auto time_bar = [max](const ResultRow& row) {  // linear
    return GridCell::bar(max.time > 0 ? row.result->time_ns.median / max.time : -1, row.time_sgr);
  };
  auto median = [](const ResultRow& row) -> GridCell {
    const StrategyResult& r = *row.result;
    if (ran(row)) return format_duration(r.time_ns.median);
    return {to_string(r.status), status_sgr(r)};
  };
  return {
      {std::move(name), [](const ResultRow& row) { return row.name; }},
      figure({"calls", true, "write"},
             [](const auto& r) { return r.write_calls ? format_count(*r.write_calls) : kNone; }),
      figure(bar_column(kBar, 4), calls_bar, ""),
      figure({"call", true, "bytes/", 2, 5}, bytes_per_call),
      {{"median", true, "time"}, median},
      figure(
          {"±σ", true, "", 1, 6}, [](const auto& r) { return spread(r.time_ns); }, ""),
      row_figure(bar_column(kBar, 3), time_bar, ""),
      row_figure(std::move(relative), [](const ResultRow& row) { return row.relative; }),
      figure({"time", true, "syscall", 2, 2}, format_syscall_time),
      figure({"time", true, "% of", 2, 1}, share),
      figure({"CPU", true, "", 2, 7},
             [](const auto& r) { return format_duration(r.cpu_ns.median); }),
      figure({"faults", true, "", 2, 8},
             [](const auto& r) { return format_count(r.minor_faults + r.major_faults); }),
  };
}

std::vector<Column<ResultRow>> latency_columns() {
  std::vector<Column<ResultRow>> cols;
  const std::pair<const char*, std::int64_t LatencySummary::*> kQuantiles[] = {
      {"p50", &LatencySummary::p50}, {"p99", &LatencySummary::p99}, {"max", &LatencySummary::max}};
  for (const auto& [title, q] : kQuantiles) {
    cols.push_back(figure({title, true, "latency"}, [q = q](const StrategyResult& r) -> GridCell {
      return r.latency ? format_duration(static_cast<double>((*r.latency).*q)) : kNone;
    }));
  }
  return cols;
}

std::vector<std::string> result_notes(const std::vector<ResultRow>& rows) {
  bool untrusted = false, lost = false;
  std::vector<std::pair<std::string, const StrategyResult*>> named;
  std::vector<const StrategyResult*> results;
  for (const ResultRow& row : rows) {
    if (!ran(row)) continue;
    results.push_back(row.result);
    untrusted = untrusted || syscall_share_untrusted(*row.result);
    lost = lost || syscall_time_lost(*row.result);
    named.emplace_back(row.label, row.result);
  }
  std::vector<std::string> notes;
  if (untrusted) notes.emplace_back(kShareNote);
  if (lost) notes.emplace_back(kLostNote);
  if (std::string n = unavailable_note(results); !n.empty()) notes.push_back(std::move(n));
  if (std::string n = sampled_note(named); !n.empty()) notes.push_back(std::move(n));
  return notes;
}

std::vector<std::string> failure_lines(const std::vector<ResultRow>& rows, bool color) {
  std::vector<std::string> lines;
  for (const ResultRow& row : rows) {
    if (ran(row)) continue;
    const StrategyResult& r = *row.result;
    lines.push_back(
        paint(escape_text(fmt::format("{}: {}: {}", row.label, to_string(r.status), r.error)),
              status_sgr(r), color));
  }
  return lines;
}

std::string render_result_grid(const RunRecord& rep, const Presentation& pres,
                               const std::string& what, const char* per,
                               const std::vector<Column<ResultRow>>& cols,
                               const std::vector<ResultRow>& rows) {
  return wrap_lines(render_heading(rep, what, per), pres.columns) +
         render_columns(cols, rows, pres.color, pres.columns);
}

std::string render_result_footer(const RunRecord& rep, const Presentation& pres, const char* per,
                                 const std::vector<std::string>& failures) {
  std::string out = "\n";
  out += reflow(render_provenance(rep, per), pres.columns);
  for (const auto& line : failures) out += wrap_lines(line, pres.columns) + "\n";
  return out;
}

}  // namespace iobench
