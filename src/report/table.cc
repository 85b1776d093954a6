// The terminal table: one row per strategy, times from untraced runs, counts from the
// traced run, and a footer that says where every number came from.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/reporter.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";

/// Display width of UTF-8 text: code points, not bytes (µ, ×, — are one column each).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

struct Column {
  std::string title;
  bool right;
};

std::string render_grid(const std::vector<Column>& cols,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) {
    w[c] = width(cols[c].title);
    for (const auto& row : rows) w[c] = std::max(w[c], width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string pad(w[c] - width(cells[c]), ' ');
      if (c) out += "  ";
      out += cols[c].right ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : cols) titles.push_back(c.title);
  std::string out = line(titles);
  std::size_t total = 0;
  for (auto x : w) total += x;
  total += 2 * (w.size() - 1);
  std::string rule;
  for (std::size_t i = 0; i < total; ++i) rule += "─";
  out += rule + "\n";
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string relative(double reference, double value) {
  if (value <= 0 || reference <= 0) return kNone;
  double ratio = reference / value;
  if (std::fabs(ratio - 1.0) < 0.005) return "1.00×";
  if (ratio >= 1) return fmt::format("{:.2f}× faster", ratio);
  return fmt::format("{:.2f}× slower", 1 / ratio);
}

}  // namespace

std::string render_table(const BenchReport& rep) {
  // Relative speed is against unbuffered (the naive program) when it ran, else the slowest row.
  const StrategyResult* reference = nullptr;
  for (const auto& r : rep.results) {
    if (r.status != ResultStatus::kOk) continue;
    if (r.strategy == "unbuffered") {
      reference = &r;
      break;
    }
    if (!reference || r.time_ns.median > reference->time_ns.median) reference = &r;
  }

  std::vector<Column> cols = {
      {"strategy", false}, {"write calls", true}, {"bytes/call", true},  {"time (median)", true},
      {"min … max", true}, {"CPU", true},         {"faults", true},      {"MB/s", true},
      {"syscall time", true}, {"in syscalls", true},
      {reference ? "vs " + reference->strategy : "relative", true}};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
  for (const auto& r : rep.results) {
    if (r.status != ResultStatus::kOk) {
      rows.push_back({r.strategy, kNone, kNone, to_string(r.status), kNone, kNone, kNone, kNone,
                      kNone, kNone, kNone});
      notes.push_back(fmt::format("{}: {}: {}", r.strategy, to_string(r.status), r.error));
      continue;
    }
    const double med = r.time_ns.median;
    std::string calls = r.write_calls ? format_count(*r.write_calls) : kNone;
    std::string per_call = kNone;
    if (r.write_calls && *r.write_calls > 0)
      per_call = format_bytes(static_cast<double>(r.bytes) / static_cast<double>(*r.write_calls));
    std::string sys_time = kNone, share = kNone;
    if (r.syscall_time_ns && r.trace && r.trace->mode == TraceMode::kTiming) {
      sys_time = format_duration(static_cast<double>(*r.syscall_time_ns));
      if (med > 0) share = fmt::format("{:.0f}%", 100.0 * static_cast<double>(*r.syscall_time_ns) / med);
    }
    const double mbps = med > 0 ? static_cast<double>(r.bytes) / (med / 1e9) / 1e6 : 0;
    rows.push_back({r.strategy, calls, per_call, format_duration(med),
                    format_duration(r.time_ns.min) + " … " + format_duration(r.time_ns.max),
                    format_duration(r.cpu_ns.median), format_count(r.minor_faults + r.major_faults),
                    r.bytes ? fmt::format("{:.0f}", mbps) : kNone, sys_time, share,
                    reference ? relative(reference->time_ns.median, med) : kNone});
  }

  std::string out = fmt::format(
      "iobench {} · {} lines ({}) · {} on {} · {} run{} + {} warm-up per strategy\n"
      "{} · {} CPUs · kernel {}\n\n",
      rep.version, format_count(rep.lines), format_bytes(static_cast<double>(rep.bytes)), rep.dir,
      rep.filesystem, rep.runs, rep.runs == 1 ? "" : "s", rep.warmup, rep.host.cpu, rep.host.cpus,
      rep.host.kernel);
  out += render_grid(cols, rows);
  out += "\n";
  out += fmt::format("time, CPU (user+sys), faults: median of {} untraced run{} per strategy.\n",
                     rep.runs, rep.runs == 1 ? "" : "s");
  if (rep.traced) {
    out += fmt::format(
        "write calls, syscall time: one traced run per strategy (ptrace + seccomp, {} mode{}",
        rep.trace_mode == TraceMode::kTiming ? "timing" : "count",
        rep.pinned ? ", tracer pinned to the tracee's CPU" : "");
    if (rep.trace_mode == TraceMode::kTiming)
      out += fmt::format(", {} tracer cost per call subtracted",
                         format_duration(static_cast<double>(rep.tracer_overhead_ns)));
    out += ").\n";
    out += "write calls: calls that write data to the output file (write, writev, pwrite...);\n"
           "io_uring_enter on the ring for io_uring. ftruncate/fsync are in --format json.\n";
  } else {
    out += "write calls: not traced (--no-trace).\n";
  }
  for (const auto& n : notes) out += n + "\n";
  return out;
}

std::string render_trace_table(const TraceReport& rep) {
  const TraceResult& t = rep.trace;
  std::string out;
  if (!t.available) return fmt::format("not traced: {}\n", t.unavailable_reason);
  const bool timed = t.mode == TraceMode::kTiming;
  auto table = [&](const std::map<std::string, SyscallStats>& syscalls) {
    std::vector<Column> cols = {{"syscall", false}, {"calls", true}, {"errors", true},
                                {"bytes", true},    {"time", true},  {"time/call", true}};
    std::vector<std::vector<std::string>> rows;
    SyscallStats total;
    std::vector<std::pair<std::string, SyscallStats>> sorted(syscalls.begin(), syscalls.end());
    // strace -c order: most time first (most calls in count mode).
    std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
      return timed ? a.second.time_ns > b.second.time_ns : a.second.calls > b.second.calls;
    });
    for (const auto& [name, st] : sorted) {
      total.calls += st.calls;
      total.errors += st.errors;
      total.bytes += st.bytes;
      total.time_ns += st.time_ns;
      rows.push_back({name, format_count(st.calls), timed ? format_count(st.errors) : kNone,
                      timed ? format_count(st.bytes) : kNone,
                      timed ? format_duration(static_cast<double>(st.time_ns)) : kNone,
                      timed && st.calls ? format_duration(static_cast<double>(st.time_ns) /
                                                          static_cast<double>(st.calls))
                                        : kNone});
    }
    rows.push_back({"total", format_count(total.calls), timed ? format_count(total.errors) : kNone,
                    timed ? format_count(total.bytes) : kNone,
                    timed ? format_duration(static_cast<double>(total.time_ns)) : kNone, ""});
    return render_grid(cols, rows);
  };
  out += table(t.syscalls);
  if (!t.files.empty()) {
    std::vector<Column> cols = {{"file", false}, {"calls", true}, {"bytes", true}};
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : t.files)
      rows.push_back({f.path, format_count(f.calls()), timed ? format_count(f.bytes()) : kNone});
    out += "\n";
    out += render_grid(cols, rows);
  }
  if (rep.per_process) {
    for (const auto& p : t.processes) {
      out += fmt::format("\nprocess {}\n", p.pid);
      out += table(p.syscalls);
    }
  }
  out += fmt::format("\nwall time {} (traced: not the program's untraced speed); ",
                     format_duration(static_cast<double>(t.wall_ns)));
  if (timed)
    out += fmt::format("syscall times have the tracer's {} per call subtracted.\n",
                       format_duration(static_cast<double>(t.overhead_ns)));
  else
    out += "count mode: calls only.\n";
  return out;
}

}  // namespace iobench
