// `iobench trace`'s table, as strace -c draws one: a row per syscall (most time first, most
// calls in count mode) and their total, a row per file, optionally a table per process (its
// syscalls and its files), and what the write-call count and the times mean.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "report/escape.h"
#include "report/grid.h"
#include "report/reporter.h"
#include "report/table_parts.h"
#include "tracer/counting_backend.h"
#include "tracer/tracer.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";

/// A line of the syscall table: one syscall's totals, or the total of them all (whose
/// per-call cells stay empty).
struct SyscallRow {
  std::string name;
  SyscallStats stats;
  bool counted = false;  // its calls return byte counts (moves_data)
  bool total = false;
};

/// A syscall's time: "—" in count mode, and when the tracer's cost subtracted left nothing
/// or its 95% interval holds 0; "≈" when it was scaled up from a sample.
std::string trace_time(const SyscallStats& st, bool timed) {
  if (!timed || st.calls == 0 || st.time_ns <= 0) return kNone;
  if (st.timed_calls > 0 && st.time_uncertain()) return kNone;
  return (st.estimated() && st.timed_calls > 0 ? "≈" : "") +
         format_duration(static_cast<double>(st.time_ns));
}

/// A figure of the calls' returns (errors, bytes): "—" in count mode and where no call came
/// back; "≈" where it was scaled from the timed calls' returns (tracer/tally.h), so that a
/// rare error between them is never shown as a count.
std::string returns_text(std::uint64_t n, const SyscallStats& st, bool timed) {
  if (!timed || st.returns_unknown) return kNone;
  return (st.returns_estimated() ? "≈" : "") + format_count(n);
}

/// The bytes of calls that return a byte count; "—" for the others (io_uring_enter, fsync).
std::string bytes_text(std::uint64_t n, const SyscallStats& st, bool counted, bool timed) {
  return counted ? returns_text(n, st, timed) : kNone;
}

std::vector<Column<SyscallRow>> syscall_columns(bool timed) {
  auto per_call = [timed](const SyscallRow& row) -> GridCell {
    const SyscallStats& st = row.stats;
    if (row.total) return "";
    if (trace_time(st, timed) == kNone) return kNone;
    return format_duration(static_cast<double>(st.time_ns) / static_cast<double>(st.calls));
  };
  std::vector<Column<SyscallRow>> cols = {
      {{"syscall", false}, [](const SyscallRow& row) { return row.name; }},
      {{"calls", true}, [](const SyscallRow& row) { return format_count(row.stats.calls); }},
      {{"errors", true},
       [timed](const SyscallRow& row) { return returns_text(row.stats.errors, row.stats, timed); }},
      {{"bytes", true},
       [timed](const SyscallRow& row) {
         return bytes_text(row.stats.bytes, row.stats, row.counted, timed);
       }},
      {{"time", true}, [timed](const SyscallRow& row) { return trace_time(row.stats, timed); }},
      {{"time/call", true}, per_call},
  };
  const std::pair<const char*, std::int64_t LatencySummary::*> kQuantiles[] = {
      {"p50", &LatencySummary::p50}, {"p99", &LatencySummary::p99}, {"max", &LatencySummary::max}};
  for (const auto& [title, q] : kQuantiles) {
    cols.push_back({{title, true}, [timed, q = q](const SyscallRow& row) -> GridCell {
                      if (row.total) return "";
                      const auto& latency = row.stats.latency;
                      if (!timed || !latency) return kNone;
                      return format_duration(static_cast<double>((*latency).*q));
                    }});
  }
  return cols;
}

std::string syscall_table(const std::map<std::string, SyscallStats>& syscalls, bool timed,
                          std::size_t columns) {
  std::vector<SyscallRow> rows;
  SyscallRow total{"total", {}, false, true};
  total.stats.returns_unknown = true;
  for (const auto& [name, st] : syscalls) {
    rows.push_back({name, st, moves_data(name), false});
    total.stats.calls += st.calls;
    // A total of estimates is one: the timed calls and what is unknown add up, so it is
    // marked as its parts are.
    total.stats.timed_calls += st.timed_calls;
    total.stats.returns_unknown = total.stats.returns_unknown && st.returns_unknown;
    total.stats.errors += st.errors;
    total.stats.bytes += st.bytes;
    total.stats.time_ns += st.time_ns;
    total.counted = total.counted || moves_data(name);
  }
  // strace -c order: most time first (most calls in count mode).
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return timed ? a.stats.time_ns > b.stats.time_ns : a.stats.calls > b.stats.calls;
  });
  rows.push_back(total);
  return render_columns(syscall_columns(timed), rows, false, columns);
}

/// A path of any length (up to PATH_MAX) keeps every row within `columns`: it loses its
/// middle, never a figure. JSON has the path whole.
std::string file_table(const std::vector<FileStats>& files, bool timed, std::size_t columns) {
  const std::vector<Column<FileStats>> cols = {
      {{.title = "file", .right = false, .elide = true}, [](const FileStats& f) { return f.path; }},
      {{"calls", true}, [](const FileStats& f) { return format_count(f.calls()); }},
      {{"bytes", true}, [timed](const FileStats& f) {
         const SyscallStats moved = data_moved(f);
         return bytes_text(moved.bytes, moved, moved.calls > 0, timed);
       }}};
  return render_columns(cols, files, false, columns);
}

/// One process's tables, under its name and pid as ps shows them ("gzip (pid 6133)"; a
/// backend that names none: "process 6133"): its syscalls, then its files.
std::string process_tables(const ProcessStats& p, bool timed, std::size_t columns) {
  std::string out = p.name.empty() ? fmt::format("\nprocess {}\n", p.pid)
                                   : fmt::format("\n{} (pid {})\n", escape_text(p.name), p.pid);
  out += syscall_table(p.syscalls, timed, columns);
  if (!p.files.empty()) {
    out += '\n';  // appended apart: GCC 12 warns -Wrestrict on "\n" + a string
    out += file_table(p.files, timed, columns);
  }
  return out;
}

/// What the write-call count is, that the wall time is a traced one, and how the syscall
/// times were corrected or sampled.
std::string trace_footer(const TraceResult& t) {
  const TraceMeasures m = measures(t);
  std::string out = fmt::format(
      "\nwrite calls: {} ({}; README \"What counts as a write\")\n",
      format_count(count_writes(t).calls),
      m.per_file ? "data writes to files, not to stdout, stderr, terminals, pipes or "
                   "sockets;\n  io_uring_enter on rings"
                 : t.backend + " has no per-file split: every data write of the process tree");
  out += fmt::format("wall time {} (traced: not the program's untraced speed); ",
                     format_duration(static_cast<double>(t.wall_ns)));
  if (!m.times) return out + "count mode: calls only.\n";
  if (!t.time_unavailable_reason.empty())
    return out + fmt::format("syscall times —: {}.\n", escape_text(t.time_unavailable_reason));
  if (t.ptrace && t.ptrace->calibration_skipped)
    out += "no call timed, so no calibration was needed and nothing subtracted.\n";
  else if (const std::optional<std::int64_t> cost = subtracted_cost_ns(t))
    out += fmt::format("syscall times by {}, {} {} per call {}.\n", traits_of(t).label,
                       format_duration(std::abs(static_cast<double>(*cost))),
                       traits_of(t).correction, *cost < 0 ? "added" : "subtracted");
  else
    out += "syscall times as measured.\n";
  for (const auto& [name, st] : t.syscalls) {
    if (st.estimated() && st.timed_calls > 0)
      out += fmt::format(
          "≈ {}: timed {} of {} calls, spread over the run; time, errors and bytes scaled "
          "from them,\n  a rare error between them missed (--time-all: every call, counted); "
          "p50/p99/max: corrected per-call times.\n",
          name, format_count(st.timed_calls), format_count(st.calls));
  }
  return out;
}

}  // namespace

SyscallStats data_moved(const FileStats& file) {
  SyscallStats moved;
  moved.returns_unknown = true;
  for (const auto& [name, st] : file.syscalls) {
    if (!moves_data(name)) continue;
    moved.calls += st.calls;
    moved.timed_calls += st.timed_calls;
    moved.bytes += st.bytes;
    moved.returns_unknown = moved.returns_unknown && st.returns_unknown;
  }
  return moved;
}

std::string render_trace_table(const TraceRecord& rep, const Presentation& pres) {
  const TraceResult& t = rep.trace;
  if (!t.available) return fmt::format("not traced: {}\n", t.unavailable_reason);
  // A backend times calls where it sees their returns: one flag serves both.
  const bool timed = measures(t).times;
  std::string out = syscall_table(t.syscalls, timed, pres.columns);
  if (!t.files.empty()) {
    out += "\n";
    out += file_table(t.files, timed, pres.columns);
  }
  if (rep.per_process) {
    for (const auto& p : t.processes) out += process_tables(p, timed, pres.columns);
  }
  // Hand-wrapped for 90 columns: on a narrower terminal it reflows at word boundaries.
  std::string footer = trace_footer(t);
  if (t.cross_check) footer += cross_check_line(*t.cross_check);
  return out + reflow(footer, pres.columns);
}

}  // namespace iobench
