// The terminal table: one row per strategy (or command), times from untraced runs, counts
// from the traced run, a bar beside each number a presenter points at, a summary in
// hyperfine's words, footnotes where the cost hides, and a footer that says where every
// number came from.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "report/grid.h"
#include "report/reporter.h"
#include "report/result_table.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";

bool ok(const StrategyResult& r) { return r.status == ResultStatus::kOk; }

NoteRow note_row(const StrategyResult& r) {
  NoteRow n{r.write_calls, r.minor_faults + r.major_faults, r.time_ns.median, r.cpu_ns.median,
            std::nullopt};
  if (r.syscall_time_ns && r.trace && r.trace->mode == TraceMode::kTiming)
    n.syscall_time_ns = static_cast<double>(*r.syscall_time_ns);
  return n;
}

/// Where the cost of a strategy hides somewhere the write-call column cannot show it: each
/// strategy writes its own note (strategies/note.h), in the order of their note_rank.
std::vector<std::string> footnotes(const RunRecord& rep) {
  std::vector<std::string> out;
  if (!rep.commands.empty()) return out;
  NoteFigures f{.bytes = rep.bytes,
                .stdio_buffer = rep.params.stdio_buffer,
                .block_size = rep.block_size,
                .count = format_count,
                .duration = format_duration,
                .size = format_bytes};
  for (const auto& r : rep.results)
    if (const Strategy* s = strategy_of(r); ok(r) && s && s->role == StrategyRole::kFloor) {
      f.floor = note_row(r), f.floor_name = s->name;
      break;
    }
  std::vector<std::pair<int, std::string>> notes;
  for (const auto& r : rep.results) {
    const Strategy* s = ok(r) ? strategy_of(r) : nullptr;
    if (!s || !s->footnote) continue;
    f.row = note_row(r);
    if (std::string n = s->footnote(f); !n.empty()) notes.emplace_back(s->note_rank, std::move(n));
  }
  std::stable_sort(notes.begin(), notes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& n : notes) out.push_back(std::move(n.second));
  return out;
}

/// One row per result in --sort order; "vs" the reference, green where a row beats it and
/// red where it loses: readable from the back row.
std::vector<ResultRow> strategy_rows(const RunRecord& rep, SortOrder sort,
                                     const StrategyResult* reference) {
  std::vector<ResultRow> rows;
  for (const StrategyResult* r : sorted_rows(rep, sort)) {
    const double med = r->time_ns.median;
    const char* speed = style::kNone;
    if (reference && r != reference)
      speed = med < reference->time_ns.median ? style::kGreen : style::kRed;
    rows.push_back({r,
                    {r->strategy, r == reference ? style::kBold : style::kNone},
                    {reference ? format_relative(reference->time_ns.median, med) : kNone, speed},
                    speed,
                    r->strategy});
  }
  return rows;
}

/// The strategies' notes, then the result notes: each reflowed, dim.
std::string render_notes(const RunRecord& rep, const Presentation& pres,
                         const std::vector<ResultRow>& rows) {
  auto notes = footnotes(rep);
  for (auto& n : result_notes(rows)) notes.push_back(std::move(n));
  std::string out;
  if (!notes.empty()) out += "\n";
  for (const auto& n : notes) out += paint(reflow(n, pres.columns), style::kDim, pres.color) + "\n";
  return out;
}

}  // namespace

std::string render_table(const RunRecord& rep, const Presentation& pres) {
  const Comparison cmp = compare_rows(rep);
  const StrategyResult* reference = cmp.reference;
  const std::vector<ResultRow> rows = strategy_rows(rep, pres.sort, reference);
  const bool commands = !rep.commands.empty();
  auto cols =
      result_columns(rows, {commands ? "command" : "strategy", false},
                     {reference ? reference->strategy : "relative", true, reference ? "vs" : ""});
  if (pres.latency)
    for (auto& c : latency_columns()) cols.push_back(std::move(c));

  const std::string what = commands ? fmt::format("compare · {} command{}", rep.commands.size(),
                                                  rep.commands.size() == 1 ? "" : "s")
                                    : fmt::format("{} lines ({})", format_count(rep.lines),
                                                  format_bytes(static_cast<double>(rep.bytes)));
  const char* per = commands ? "command" : "strategy";
  std::string out = render_result_grid(rep, pres, what, per, cols, rows);
  if (pres.live) return out;  // rows so far, while the run goes on: the rest comes at the end
  const std::string summary = render_summary(cmp, pres.color);
  if (!summary.empty()) {
    out += "\n";
    out += wrap_lines(summary, pres.columns);
  }
  out += render_notes(rep, pres, rows);
  return out + render_result_footer(rep, pres, per, failure_lines(rows, pres.color));
}

}  // namespace iobench
