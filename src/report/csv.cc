// CSV: one row per strategy, numbers in plain units (ns, bytes) for spreadsheets and scripts.
// Empty cell = not measured.
#include <fmt/format.h>

#include "report/escape.h"
#include "report/reporter.h"

namespace iobench {
namespace {

/// A text cell: escaped as the table escapes it (report/escape.h: a newline in a name stays
/// one row, no control byte reaches a terminal that cats the file, the file stays UTF-8),
/// then quoted when it holds a comma or a quote (RFC 4180).
std::string quote(const std::string& raw) {
  std::string s = escape_text(raw);
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

template <typename T>
std::string cell(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}

}  // namespace

std::string render_csv(const RunRecord& rep) {
  std::string out =
      "strategy,status,error,lines,bytes,verified,runs,time_median_ns,time_mean_ns,time_stddev_ns,"
      "time_min_ns,time_max_ns,cpu_median_ns,minor_faults,major_faults,write_calls,syscall_time_ns,"
      "dir,filesystem\n";
  for (const auto& r : rep.results) {
    const bool measured = !r.time_ns.samples.empty();
    auto num = [&](double v) { return measured ? fmt::format("{:.0f}", v) : std::string(); };
    // dir and filesystem last, so that scripts indexing the older columns keep working; with
    // --dir A,B they tell the two runs' rows apart.
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       quote(r.strategy), to_string(r.status), quote(r.error), rep.lines, r.bytes,
                       r.verified ? (*r.verified ? "true" : "false") : "", r.time_ns.samples.size(),
                       num(r.time_ns.median), num(r.time_ns.mean), num(r.time_ns.stddev),
                       num(r.time_ns.min), num(r.time_ns.max), num(r.cpu_ns.median),
                       measured ? std::to_string(r.minor_faults) : "",
                       measured ? std::to_string(r.major_faults) : "", cell(r.write_calls),
                       cell(r.syscall_time_ns), quote(r.dir), quote(r.filesystem));
  }
  return out;
}

}  // namespace iobench
