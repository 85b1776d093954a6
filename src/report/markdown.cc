// Markdown: the table a presenter pastes into slides or a PR description.
#include <fmt/format.h>

#include <algorithm>

#include "report/escape.h"
#include "report/reporter.h"

namespace iobench {
namespace {

/// A name or an error in a table cell: escaped as the terminal table escapes it (a newline
/// shows as `\n` and cannot end the row), and `|`, which would end the cell, as `\|`
/// (GitHub's tables honour it inside a code span too).
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : escape_text(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

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

/// What was run, and how the figures were taken: `compare` runs commands, not lines.
std::string heading(const RunRecord& rep) {
  const std::string counts =
      rep.traced ? "counts from one traced run" : "not traced (--no-trace): no counts";
  if (!rep.commands.empty())
    return fmt::format("{} command{}, median of {}; {}.\n\n", rep.commands.size(),
                       rep.commands.size() == 1 ? "" : "s", run_count_text(rep, "untraced run"),
                       counts);
  return fmt::format("{} lines ({}) on {}, median of {}; {}.\n\n", format_count(rep.lines),
                     format_bytes(static_cast<double>(rep.bytes)), cell(rep.filesystem),
                     run_count_text(rep, "untraced run"), counts);
}

}  // namespace

std::string render_markdown(const RunRecord& rep) {
  std::string out = heading(rep);
  out += fmt::format(
      "| {} | status | write calls | time (median) | min | max | CPU | syscall time |\n",
      rep.commands.empty() ? "strategy" : "command");
  out += "|:---|:---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rep.results) {
    if (r.status != ResultStatus::kOk) {
      out += fmt::format("| {} | {}: {} | | | | | | |\n", code_span(r.strategy),
                         to_string(r.status), cell(r.error));
      continue;
    }
    out += fmt::format("| {} | ok | {} | {} | {} | {} | {} | {} |\n", code_span(r.strategy),
                       r.write_calls ? format_count(*r.write_calls) : "—",
                       format_duration(r.time_ns.median), format_duration(r.time_ns.min),
                       format_duration(r.time_ns.max), format_duration(r.cpu_ns.median),
                       r.syscall_time_ns && r.trace && r.trace->mode == TraceMode::kTiming
                           ? format_duration(static_cast<double>(*r.syscall_time_ns))
                           : "—");
  }
  return out;
}

}  // namespace iobench
