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
using RowField = Field<ResultRow>;

/// A column whose cell is `cell` for a row that ran and `missing` for one that did not.
Column<ResultRow> row_figure(GridColumn head, RowCell cell,
                             const GridCell& missing = GridCell(kNone),
                             std::vector<RowField> fields = {}) {
  return {std::move(head),
          [cell = std::move(cell), missing](const ResultRow& row) {
            return ran(row) ? cell(row) : missing;
          },
          std::move(fields)};
}

/// The same, for a cell that is a figure of the result alone.
Column<ResultRow> figure(GridColumn head, ResultCell cell, std::vector<RowField> fields = {},
                         const GridCell& missing = GridCell(kNone)) {
  return row_figure(
      std::move(head), [cell = std::move(cell)](const ResultRow& row) { return cell(*row.result); },
      missing, std::move(fields));
}

/// A plain value that is a figure of the result alone.
RowField field(std::string key, std::function<std::string(const StrategyResult&)> value) {
  return {.key = std::move(key),
          .value = [value = std::move(value)](const ResultRow& row) { return value(*row.result); }};
}

/// A time of the untraced runs in whole ns, "" when the row has none (it did not run).
RowField timed_ns(std::string key, double Stats::*figure, Stats StrategyResult::*stats) {
  return field(std::move(key), [figure, stats](const StrategyResult& r) -> std::string {
    if ((r.*stats).samples.empty()) return "";
    return fmt::format("{:.0f}", (r.*stats).*figure);
  });
}

template <typename T>
std::string plain_count(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}

const char* status_sgr(const StrategyResult& r) {
  return r.status == ResultStatus::kUnsupported ? style::kYellow : style::kRed;
}

/// The robust spread of the timed runs as a share of their median (Stats::spread): "±2%"
/// fits where "min … max" took 22 columns, and one wild run does not make a quiet row look noisy.
std::string spread(const Stats& s) {
  if (s.samples.size() < 2 || s.median <= 0) return kNone;
  return fmt::format("±{:.0f}%", 100 * s.spread / s.median);
}

std::optional<double> bytes_per_call(const StrategyResult& r) {
  if (!r.write_calls || *r.write_calls == 0 || r.bytes == 0) return std::nullopt;
  return static_cast<double>(r.bytes) / static_cast<double>(*r.write_calls);
}

std::string share(const StrategyResult& r) {
  const auto pct = syscall_share(r);
  return pct ? fmt::format("{:.0f}%", *pct) : kNone;
}

/// Minor and major faults, as the faults column adds them; "" for a row that did not run.
RowField faults(std::string key, std::uint64_t StrategyResult::*count) {
  return field(std::move(key), [count](const StrategyResult& r) {
    return r.time_ns.samples.empty() ? std::string() : std::to_string(r.*count);
  });
}

/// The columns' plain values beside the median: the status and error a row that did not run
/// shows there and in its failure line, and the timed runs' count, median and range.
std::vector<RowField> median_fields() {
  return {field("status", [](const auto& r) { return std::string(to_string(r.status)); }),
          field("error", [](const auto& r) { return r.error; }),
          field("runs", [](const auto& r) { return std::to_string(r.time_ns.samples.size()); }),
          timed_ns("time_median_ns", &Stats::median, &StrategyResult::time_ns),
          timed_ns("time_min_ns", &Stats::min, &StrategyResult::time_ns),
          timed_ns("time_max_ns", &Stats::max, &StrategyResult::time_ns)};
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

std::string plain(std::optional<double> v) { return v ? fmt::format("{}", *v) : ""; }

std::vector<Column<ResultRow>> result_columns(const std::vector<ResultRow>& rows, GridColumn name,
                                              GridColumn relative,
                                              std::vector<RowField> relative_fields) {
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
  auto syscall_ns = [](const StrategyResult& r) {
    const auto t = syscall_time(r);
    return t ? fmt::format("{:.0f}", *t) : std::string();
  };
  auto share_ratio = [](const StrategyResult& r) {
    const auto pct = syscall_share(r);
    return plain(pct ? std::optional(*pct / 100) : std::nullopt);
  };
  return {
      {std::move(name),
       [](const ResultRow& row) { return row.name; },
       {field("strategy", [](const auto& r) { return r.strategy; })}},
      figure({"calls", true, "write"},
             [](const auto& r) { return r.write_calls ? format_count(*r.write_calls) : kNone; },
             {field("write_calls", [](const auto& r) { return plain_count(r.write_calls); })}),
      figure(bar_column(kBar, 4), calls_bar, {}, ""),
      figure({.title = "call", .over = "bytes/", .drop = 5},
             [](const auto& r) {
               const auto b = bytes_per_call(r);
               return b ? format_bytes(*b) : kNone;
             },
             {field("bytes", [](const auto& r) { return std::to_string(r.bytes); }),
              field("bytes_per_call", [](const auto& r) { return plain(bytes_per_call(r)); })}),
      {{"median", true, "time"}, median, median_fields()},
      figure(
          {.title = "±σ", .gap = 1, .drop = 6, .terminal_only = true},
          [](const auto& r) { return spread(r.time_ns); },
          {timed_ns("time_mean_ns", &Stats::mean, &StrategyResult::time_ns),
           timed_ns("time_stddev_ns", &Stats::stddev, &StrategyResult::time_ns)},
          ""),
      row_figure(bar_column(kBar, 3), time_bar, ""),
      row_figure(
          std::move(relative), [](const ResultRow& row) { return row.relative; }, kNone,
          std::move(relative_fields)),
      figure({.title = "time", .over = "syscall", .drop = 2}, format_syscall_time,
             {field("syscall_time_ns", syscall_ns)}),
      figure({.title = "time", .over = "% of", .drop = 1}, share,
             {field("syscall_share", share_ratio)}),
      figure({.title = "CPU", .drop = 7},
             [](const auto& r) { return format_duration(r.cpu_ns.median); },
             {timed_ns("cpu_median_ns", &Stats::median, &StrategyResult::cpu_ns)}),
      figure({.title = "faults", .drop = 8},
             [](const auto& r) { return format_count(r.minor_faults + r.major_faults); },
             {faults("minor_faults", &StrategyResult::minor_faults),
              faults("major_faults", &StrategyResult::major_faults)}),
  };
}

std::vector<Column<ResultRow>> latency_columns() {
  std::vector<Column<ResultRow>> cols;
  const std::pair<const char*, std::int64_t LatencySummary::*> kQuantiles[] = {
      {"p50", &LatencySummary::p50}, {"p99", &LatencySummary::p99}, {"max", &LatencySummary::max}};
  for (const auto& [title, q] : kQuantiles) {
    auto value = [q = q](const StrategyResult& r) -> std::optional<std::int64_t> {
      if (!r.latency) return std::nullopt;
      return (*r.latency).*q;
    };
    cols.push_back(
        figure({title, true, "latency"},
               [value](const StrategyResult& r) -> GridCell {
                 const auto ns = value(r);
                 return ns ? format_duration(static_cast<double>(*ns)) : kNone;
               },
               {field(fmt::format("latency_{}_ns", title),
                      [value](const StrategyResult& r) { return plain_count(value(r)); })}));
  }
  return cols;
}

std::vector<std::string> result_notes(const std::vector<ResultRow>& rows) {
  bool lost = false;
  std::vector<const char*> share_notes;  // each whole a share was over, once, in row order
  std::vector<std::pair<std::string, const StrategyResult*>> named;
  std::vector<const StrategyResult*> results;
  for (const ResultRow& row : rows) {
    if (!ran(row)) continue;
    results.push_back(row.result);
    if (syscall_share_untrusted(*row.result)) {
      const char* note = share_note(*row.result);
      if (std::find(share_notes.begin(), share_notes.end(), note) == share_notes.end())
        share_notes.push_back(note);
    }
    lost = lost || syscall_time_lost(*row.result);
    named.emplace_back(row.label, row.result);
  }
  std::vector<std::string> notes(share_notes.begin(), share_notes.end());
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
  if (pres.notes == Notes::kFull) {
    out += reflow(render_provenance(rep, per), pres.columns);
  } else if (pres.notes == Notes::kOneLine) {
    // Each entry's first line: an entry's continuations are indented.
    std::string entries = render_provenance(rep, per);
    for (std::size_t at = 0; at < entries.size();) {
      std::size_t end = at;
      do end = entries.find('\n', end + 1);
      while (end != std::string::npos && entries.compare(end + 1, 2, "  ") == 0);
      out += first_line(entries.substr(at, end - at), pres.columns) + "\n";
      at = end == std::string::npos ? entries.size() : end + 1;
    }
  }
  for (const auto& line : failures) out += wrap_lines(line, pres.columns) + "\n";
  return out == "\n" ? "" : out;
}

}  // namespace iobench
