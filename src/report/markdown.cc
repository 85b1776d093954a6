// Markdown: the table a presenter pastes into slides or a PR description: the terminal
// table's columns (report/bench_columns.h) and rows, without its bars and colour.
#include <fmt/format.h>

#include <algorithm>

#include "report/bench_columns.h"
#include "report/escape.h"
#include "report/reporter.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

/// A name or an error in a table cell: escaped as the terminal table escapes it (a newline
/// shows as `\n` and cannot end the row), and `|`, which would end the cell, as `\|`
/// (GitHub's tables honour it inside a code span too).
std::string pipes(const std::string& escaped) {
  std::string out;
  for (const char c : escaped) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}
std::string cell(const std::string& text) { return pipes(escape_text(text)); }

/// A name as a code span. A compare -n name may hold backquotes, and a span ends at the first
/// run of as many as opened it (CommonMark, "Code spans"): the fence is one longer than the
/// longest run inside, padded with a space (which the renderer strips) so that a backquote
/// at either end cannot join it. A name without one keeps the plain `name`.
std::string code_span(const std::string& text) {
  const std::string body = cell(text);
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (longest == 0) return "`" + body + "`";
  const std::string fence(longest + 1, '`');
  return fence + " " + body + " " + fence;
}

/// The caption: what was run, how the figures were taken, and the terminal heading's host line
/// and options (render_host, already escaped for a terminal), so a slide says where it ran.
std::string heading(const RunRecord& rep) {
  const std::string counts =
      rep.traced ? "counts from one traced run" : "not traced (--no-trace): no counts";
  std::string what =
      !rep.commands.empty()
          ? fmt::format("{} command{}", rep.commands.size(), rep.commands.size() == 1 ? "" : "s")
          : fmt::format("{} lines ({})", format_count(rep.lines),
                        format_bytes(static_cast<double>(rep.bytes)));
  const std::string given = fmt::format("{}", fmt::join(rep.options, " "));
  return fmt::format("{}, median of {}; {} · {}{}\n\n", what, run_count_text(rep, "untraced run"),
                     counts, pipes(render_host(rep)),
                     given.empty() ? "" : " · options " + code_span(given));
}

/// A two-line terminal header as one line: "write calls", "vs unbuffered", "bytes/call".
std::string header(const GridColumn& head) {
  if (head.over.empty()) return head.title;
  return head.over + (head.over.back() == '/' ? "" : " ") + head.title;
}

/// The header row and the rule that aligns each column as the terminal does.
std::string header_rows(const std::vector<Column<ResultRow>>& cols) {
  std::string names = "|", rule = "|";
  for (const auto& c : cols) {
    names += " ";  // appended piece by piece: GCC 12 warns -Wrestrict on " " + a string
    names += cell(header(c.head));
    names += " |";
    rule += c.head.right ? "---:|" : ":---|";
  }
  return names + "\n" + rule + "\n";
}

/// A row's cells; the first names it, as a code span.
std::string row_line(const std::vector<Column<ResultRow>>& cols, const ResultRow& row) {
  std::string out = "|";
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const std::string text = cols[i].cell(row).text;
    out += " ";
    out += i == 0 ? code_span(text) : cell(text);
    out += " |";
  }
  return out + "\n";
}

/// Why a row did not run, under the table as under the terminal's: "- `name`: failed: why".
std::string failures(const std::vector<ResultRow>& rows) {
  std::string out;
  for (const ResultRow& row : rows)
    if (!ran(row))
      out += fmt::format("- {}: {}: {}\n", code_span(row.label), to_string(row.result->status),
                         cell(row.result->error));
  return out.empty() ? out : "\n" + out;
}

}  // namespace

std::string render_markdown(const RunRecord& rep, const Presentation& pres) {
  const std::vector<ResultRow> rows = bench_rows(rep, pres, true);
  std::vector<Column<ResultRow>> cols = bench_columns(rep, pres, rows);
  // Bars are drawn at layout time and have no text; every other column is the table's story.
  std::erase_if(cols, [](const auto& c) { return c.head.bar_width > 0; });
  std::string out = heading(rep) + header_rows(cols);
  for (const ResultRow& row : rows) out += row_line(cols, row);
  return out + failures(rows);
}

}  // namespace iobench
