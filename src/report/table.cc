// The terminal table: one row per strategy (or command), times from untraced runs, counts
// from the traced run, a bar beside each number a presenter points at, a summary in
// hyperfine's words, footnotes where the cost hides, and a footer that says where every
// number came from.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/grid.h"
#include "report/reporter.h"
#include "report/table_parts.h"
#include "tracer/tracer.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";
constexpr std::size_t kCallsBar = 8;  // columns; eighths make 64 steps
constexpr std::size_t kTimeBar = 8;

bool ok(const StrategyResult& r) { return r.status == ResultStatus::kOk; }

/// The spread of the timed runs as a share of their mean: "±2%" fits where "min … max" took
/// 22 columns, and says the same thing to an audience.
std::string spread(const Stats& s) {
  if (s.samples.size() < 2 || s.mean <= 0) return kNone;
  return fmt::format("±{:.0f}%", 100 * s.stddev / s.mean);
}

NoteRow note_row(const StrategyResult& r) {
  NoteRow n{r.write_calls, r.minor_faults + r.major_faults, r.time_ns.median, r.cpu_ns.median,
            std::nullopt};
  if (r.syscall_time_ns && r.trace && r.trace->mode == TraceMode::kTiming)
    n.syscall_time_ns = static_cast<double>(*r.syscall_time_ns);
  return n;
}

/// Where the cost of a strategy hides somewhere the write-call column cannot show it: each
/// strategy writes its own note (strategies/note.h), in the order of their note_rank.
std::vector<std::string> footnotes(const BenchReport& rep) {
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

/// A syscall's time in the trace table: "≈" when scaled from a sample, "—" when its 95%
/// interval holds 0.
std::string trace_time(const SyscallStats& st) {
  if (st.calls > 0 && st.timed_calls > 0 && st.time_uncertain()) return kNone;
  return (st.estimated() && st.timed_calls > 0 ? "≈" : "") +
         format_duration(static_cast<double>(st.time_ns));
}

}  // namespace

std::string render_table(const BenchReport& rep) {
  const bool color = rep.color;
  const Comparison cmp = compare_rows(rep);
  const StrategyResult* reference = cmp.reference;

  double max_time = 0, max_calls = 0;
  for (const auto& r : rep.results) {
    if (!ok(r)) continue;
    max_time = std::max(max_time, r.time_ns.median);
    if (r.write_calls) max_calls = std::max(max_calls, static_cast<double>(*r.write_calls));
  }

  // The drop ranks say what a narrow terminal gives up first (highest first): the bars narrow,
  // then faults, CPU, spread, bytes/call, the bars, syscall time, share; never the name, the
  // calls, the median or "vs", which are the table's message.
  std::vector<GridColumn> cols = {
      {rep.commands.empty() ? "strategy" : "command", false},
      {"calls", true, "write"},
      bar_column(kCallsBar, 4),  // log scale
      {"call", true, "bytes/", 2, 5},
      {"median", true, "time"},
      {"±σ", true, "", 1, 6},
      bar_column(kTimeBar, 3),  // linear
      {reference ? reference->strategy : "relative", true, reference ? "vs" : ""},
      {"time", true, "syscall", 2, 2},
      {"time", true, "% of", 2, 1},
      {"CPU", true, "", 2, 7},
      {"faults", true, "", 2, 8},
  };
  if (rep.latency) {
    for (const char* q : {"p50", "p99", "max"}) cols.push_back({q, true, "latency"});
  }
  std::vector<std::vector<GridCell>> rows;
  std::vector<std::string> errors;
  bool over_100 = false, lost = false;
  for (const StrategyResult* rp : sorted_rows(rep)) {
    const StrategyResult& r = *rp;
    if (!ok(r)) {
      const char* sgr = r.status == ResultStatus::kUnsupported ? style::kYellow : style::kRed;
      rows.push_back({r.strategy,
                      kNone,
                      "",
                      kNone,
                      {to_string(r.status), sgr},
                      "",
                      "",
                      kNone,
                      kNone,
                      kNone,
                      kNone,
                      kNone});
      if (rep.latency) rows.back().resize(cols.size(), GridCell(kNone));
      errors.push_back(
          paint(fmt::format("{}: {}: {}", r.strategy, to_string(r.status), r.error), sgr, color));
      continue;
    }
    const double med = r.time_ns.median;
    std::string calls = r.write_calls ? format_count(*r.write_calls) : kNone;
    double calls_bar = -1;
    if (r.write_calls && max_calls > 0)
      calls_bar = std::log10(1 + static_cast<double>(*r.write_calls)) / std::log10(1 + max_calls);
    std::string per_call = kNone;
    if (r.write_calls && *r.write_calls > 0 && r.bytes > 0)
      per_call = format_bytes(static_cast<double>(r.bytes) / static_cast<double>(*r.write_calls));
    std::string sys_time = kNone, share = kNone;
    sys_time = format_syscall_time(r);
    lost = lost || syscall_time_lost(r);
    if (auto pct = syscall_share(r)) share = fmt::format("{:.0f}%", *pct);
    over_100 = over_100 || syscall_share_untrusted(r);
    // Green where it beats the reference, red where it loses: readable from the back row.
    const char* speed = style::kNone;
    if (reference && &r != reference)
      speed = med < reference->time_ns.median ? style::kGreen : style::kRed;
    rows.push_back({{r.strategy, &r == reference ? style::kBold : style::kNone},
                    calls,
                    GridCell::bar(calls_bar, style::kCyan),
                    per_call,
                    format_duration(med),
                    spread(r.time_ns),
                    GridCell::bar(max_time > 0 ? med / max_time : -1, speed),
                    {reference ? format_relative(reference->time_ns.median, med) : kNone, speed},
                    sys_time,
                    share,
                    format_duration(r.cpu_ns.median),
                    format_count(r.minor_faults + r.major_faults)});
    if (rep.latency) {
      for (std::int64_t LatencySummary::*q :
           {&LatencySummary::p50, &LatencySummary::p99, &LatencySummary::max})
        rows.back().push_back(r.latency
                                  ? GridCell(format_duration(static_cast<double>((*r.latency).*q)))
                                  : GridCell(kNone));
    }
  }

  const bool commands = !rep.commands.empty();
  std::string what = commands ? fmt::format("compare · {} command{}", rep.commands.size(),
                                            rep.commands.size() == 1 ? "" : "s")
                              : fmt::format("{} lines ({})", format_count(rep.lines),
                                            format_bytes(static_cast<double>(rep.bytes)));
  const char* per = commands ? "command" : "strategy";
  const std::size_t width = rep.columns;
  std::string out = wrap_lines(render_heading(rep, what, per), width);
  out += render_grid(cols, rows, color, width);
  if (rep.live) return out;  // rows so far, while the run goes on: the rest comes at the end
  const std::string summary = render_summary(cmp, color);
  if (!summary.empty()) out += "\n" + wrap_lines(summary, width);
  auto notes = footnotes(rep);
  if (over_100) notes.emplace_back(kShareNote);
  if (lost) notes.emplace_back(kLostNote);
  if (std::string n = sampled_note(sorted_rows(rep)); !n.empty()) notes.push_back(n);
  if (!notes.empty()) {
    out += "\n";
    for (const auto& n : notes) out += paint(reflow(n, width), style::kDim, color) + "\n";
  }
  out += "\n" + reflow(render_provenance(rep, per), width);
  for (const auto& e : errors) out += wrap_lines(e, width) + "\n";
  return out;
}

std::string render_trace_table(const TraceReport& rep) {
  const TraceResult& t = rep.trace;
  std::string out;
  if (!t.available) return fmt::format("not traced: {}\n", t.unavailable_reason);
  const bool timed = t.mode == TraceMode::kTiming;
  // A time of 0 after the tracer's cost is subtracted was lost in that subtraction, and a
  // call that returns no byte count (io_uring_enter, fsync) has unknown bytes: both "—".
  auto time = [&](std::int64_t ns, std::uint64_t calls) -> std::string {
    if (!timed || calls == 0 || ns <= 0) return kNone;
    return format_duration(static_cast<double>(ns));
  };
  auto bytes = [&](std::uint64_t n, bool counted) -> std::string {
    return timed && counted ? format_count(n) : kNone;
  };
  auto table = [&](const std::map<std::string, SyscallStats>& syscalls) {
    std::vector<GridColumn> cols = {{"syscall", false}, {"calls", true}, {"errors", true},
                                    {"bytes", true},    {"time", true},  {"time/call", true},
                                    {"p50", true},      {"p99", true},   {"max", true}};
    auto latency = [&](const SyscallStats& st, std::int64_t LatencySummary::*field) -> GridCell {
      if (!timed || !st.latency) return kNone;
      return format_duration(static_cast<double>((*st.latency).*field));
    };
    std::vector<std::vector<GridCell>> rows;
    SyscallStats total;
    bool any_counted = false;
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
      any_counted = any_counted || moves_data(name);
      const std::string took = time(st.time_ns, st.calls) == kNone ? kNone : trace_time(st);
      const std::string per_call =
          took == kNone
              ? std::string(kNone)
              : format_duration(static_cast<double>(st.time_ns) / static_cast<double>(st.calls));
      rows.push_back({name, format_count(st.calls), timed ? format_count(st.errors) : kNone,
                      bytes(st.bytes, moves_data(name)), took, per_call,
                      latency(st, &LatencySummary::p50), latency(st, &LatencySummary::p99),
                      latency(st, &LatencySummary::max)});
    }
    rows.push_back({"total", format_count(total.calls), timed ? format_count(total.errors) : kNone,
                    bytes(total.bytes, any_counted), time(total.time_ns, total.calls), "", "", "",
                    ""});
    return render_grid(cols, rows);
  };
  out += table(t.syscalls);
  if (!t.files.empty()) {
    std::vector<GridColumn> cols = {{"file", false}, {"calls", true}, {"bytes", true}};
    std::vector<std::vector<GridCell>> rows;
    for (const auto& f : t.files) {
      const bool counted = std::any_of(f.syscalls.begin(), f.syscalls.end(),
                                       [](const auto& s) { return moves_data(s.first); });
      rows.push_back({f.path, format_count(f.calls()), bytes(f.bytes(), counted)});
    }
    out += "\n";
    out += render_grid(cols, rows);
  }
  if (rep.per_process) {
    for (const auto& p : t.processes) {
      out += fmt::format("\nprocess {}\n", p.pid);
      out += table(p.syscalls);
    }
  }
  out += fmt::format("\nwrite calls: {} ({}; README \"What counts as a write\")\n",
                     format_count(count_writes(t).calls),
                     t.backend == "perf"
                         ? "perf has no per-file split: every data write of the process tree"
                         : "data writes to files, not to stdout, stderr, terminals, pipes or "
                           "sockets;\n  io_uring_enter on rings");
  out += fmt::format("wall time {} (traced: not the program's untraced speed); ",
                     format_duration(static_cast<double>(t.wall_ns)));
  if (timed) {
    out += fmt::format("syscall times have the tracer's {} per call subtracted.\n",
                       format_duration(static_cast<double>(t.overhead_ns)));
    for (const auto& [name, st] : t.syscalls) {
      if (st.estimated() && st.timed_calls > 0)
        out += fmt::format(
            "≈ {}: timed {} of {} calls, spread over the run (--time-all: every "
            "call); p50/p99/max: corrected per-call times.\n",
            name, format_count(st.timed_calls), format_count(st.calls));
    }
  } else
    out += "count mode: calls only.\n";
  return out;
}

}  // namespace iobench
