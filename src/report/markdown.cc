// Markdown: the table a presenter pastes into slides or a PR description.
#include <fmt/format.h>

#include "report/reporter.h"

namespace iobench {

std::string render_markdown(const BenchReport& rep) {
  std::string out = fmt::format("{} lines ({}) on {}, median of {}; counts from one traced run.\n\n",
                                format_count(rep.lines), format_bytes(static_cast<double>(rep.bytes)),
                                rep.filesystem, run_count_text(rep, "untraced run"));
  out += "| strategy | status | write calls | time (median) | min | max | CPU | syscall time |\n";
  out += "|:---|:---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rep.results) {
    if (r.status != ResultStatus::kOk) {
      out += fmt::format("| `{}` | {}: {} | | | | | | |\n", r.strategy, to_string(r.status), r.error);
      continue;
    }
    out += fmt::format("| `{}` | ok | {} | {} | {} | {} | {} | {} |\n", r.strategy,
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
