// The terminal table: one row per strategy (or command), times from untraced runs, counts
// from the traced run, a bar beside each number a presenter points at, a summary in
// hyperfine's words, footnotes where the cost hides, and a footer that says where every
// number came from.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "report/bench_columns.h"
#include "report/grid.h"
#include "report/reporter.h"
#include "report/result_table.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

bool ok(const StrategyResult& r) { return r.status == ResultStatus::kOk; }

NoteRow note_row(const StrategyResult& r) {
  NoteRow n{.write_calls = r.write_calls,
            .page_faults = r.minor_faults + r.major_faults,
            .time_ns = r.time_ns.median,
            .cpu_ns = r.cpu_ns.median,
            .syscall_time_ns = std::nullopt};
  if (syscall_time_measured(r)) n.syscall_time_ns = static_cast<double>(*r.syscall_time_ns);
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

/// The strategies' notes, then the result notes: each reflowed (or cut to its first line,
/// pres.notes), dim.
std::string render_notes(const RunRecord& rep, const Presentation& pres,
                         const std::vector<ResultRow>& rows) {
  if (pres.notes == Notes::kNone) return "";
  auto notes = footnotes(rep);
  for (auto& n : result_notes(rows)) notes.push_back(std::move(n));
  std::string out;
  if (!notes.empty()) out += "\n";
  for (const auto& n : notes) {
    const std::string text =
        pres.notes == Notes::kOneLine ? first_line(n, pres.columns) : reflow(n, pres.columns);
    out += paint(text, style::kDim, pres.color) + "\n";
  }
  return out;
}

}  // namespace

std::string render_table(const RunRecord& rep, const Presentation& pres) {
  const Comparison cmp = compare_rows(rep);
  const std::vector<ResultRow> rows = bench_rows(rep, pres, true);
  const auto cols = bench_columns(rep, pres, rows);
  const bool commands = !rep.commands.empty();

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
