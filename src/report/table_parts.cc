#include "report/table_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/escape.h"
#include "report/grid.h"
#include "strategies/registry.h"
#include "tracer/counting_backend.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

bool ok(const StrategyResult& r) { return r.status == ResultStatus::kOk && r.time_ns.median > 0; }
bool measured(const StrategyResult& r) { return r.status == ResultStatus::kOk; }

}  // namespace

double median_log_error(const Stats& s) {
  const std::size_t n = s.samples.size();
  if (n < 2 || s.median <= 0) return 0;
  // The standard error of a median is 1.2533 σ/√n for normal noise; σ is the robust spread.
  return 1.2533 * (s.spread / s.median) / std::sqrt(static_cast<double>(n));
}

std::vector<const StrategyResult*> sorted_rows(const RunRecord& rep, SortOrder sort) {
  std::vector<const StrategyResult*> rows;
  for (const auto& r : rep.results) rows.push_back(&r);
  auto calls = [](const StrategyResult* r) {
    return r->write_calls ? static_cast<double>(*r->write_calls) : HUGE_VAL;
  };
  switch (sort) {
    case SortOrder::kRegistry:
      break;
    case SortOrder::kName:
      std::stable_sort(rows.begin(), rows.end(),
                       [](auto* a, auto* b) { return a->strategy < b->strategy; });
      break;
    case SortOrder::kTime:
      std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
        if (measured(*a) != measured(*b)) return measured(*a);
        return a->time_ns.median < b->time_ns.median;
      });
      break;
    case SortOrder::kSyscalls:
      std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) {
        if (measured(*a) != measured(*b)) return measured(*a);
        return calls(a) < calls(b);
      });
      break;
  }
  return rows;
}

Speedup speedup(const StrategyResult& faster, const StrategyResult& slower) {
  Speedup s{.faster = &faster, .slower = &slower};
  if (faster.time_ns.median <= 0) return s;
  s.ratio = slower.time_ns.median / faster.time_ns.median;
  s.low = s.high = s.ratio;
  if (faster.time_ns.samples.size() > 1 && slower.time_ns.samples.size() > 1) {
    // On the log of the ratio: the interval is a factor each way, so it never reaches 0.
    s.log_sigma = std::hypot(median_log_error(faster.time_ns), median_log_error(slower.time_ns));
    s.low = s.ratio * std::exp(-s.log_sigma);
    s.high = s.ratio * std::exp(s.log_sigma);
  }
  return s;
}

const Strategy* strategy_of(const StrategyResult& r) { return find_strategy(r.strategy); }

StrategyRole role_of(const StrategyResult& r) {
  const Strategy* s = strategy_of(r);
  return s ? s->role : StrategyRole::kNormal;
}

Comparison compare_rows(const RunRecord& rep) {
  Comparison c;
  const bool strategies = rep.commands.empty();
  std::vector<const StrategyResult*> rows;
  for (const auto& r : rep.results)
    if (ok(r) && !(strategies && role_of(r) == StrategyRole::kFloor)) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(),
                   [](auto* a, auto* b) { return a->time_ns.median < b->time_ns.median; });
  if (rows.empty()) return c;
  if (strategies) {
    for (auto* r : rows)
      if (role_of(*r) == StrategyRole::kReference) c.reference = r, c.against_naive = true;
  }
  if (!c.reference) c.reference = rows.front();
  for (auto* r : rows) {
    if (r == c.reference) continue;
    if (c.against_naive && r->time_ns.median < c.reference->time_ns.median)
      c.lines.push_back(speedup(*r, *c.reference));
    else
      c.lines.push_back(speedup(*c.reference, *r));
  }
  return c;
}

std::string render_summary(const Comparison& cmp, bool color) {
  if (cmp.lines.empty()) return "";
  std::string out = paint("Summary", style::kBold, color);
  // The reference says what it is: its name and its one-line description.
  const Strategy* naive = cmp.against_naive ? strategy_of(*cmp.reference) : nullptr;
  out += naive ? fmt::format(" (each strategy against {}: {})\n", naive->name, naive->description)
               : "\n";
  for (const Speedup& s : cmp.lines) {
    std::string ratio = fmt::format("{:.2f}", s.ratio);
    if (s.log_sigma > 0) ratio += fmt::format(" ({:.2f}–{:.2f})", s.low, s.high);
    out += fmt::format("  {} ran {} times faster than {}\n",
                       paint(escape_text(s.faster->strategy), style::kBold, color),
                       paint(ratio, style::kGreen, color), escape_text(s.slower->strategy));
  }
  return out;
}

/// Relative speed in a few columns: "33.5× faster", "3.15× slower".
std::string format_relative(double reference, double value) {
  if (value <= 0 || reference <= 0) return "—";
  const double ratio = reference / value;
  if (std::fabs(ratio - 1.0) < 0.005) return "1.00×";
  const double x = ratio >= 1 ? ratio : 1 / ratio;
  const char* word = ratio >= 1 ? "faster" : "slower";
  if (x >= 100) return fmt::format("{:.0f}× {}", x, word);
  return x >= 10 ? fmt::format("{:.1f}× {}", x, word) : fmt::format("{:.2f}× {}", x, word);
}

bool syscall_time_measured(const StrategyResult& r) {
  return r.syscall_time_ns && r.trace && measures(*r.trace).times;
}

std::optional<double> syscall_time(const StrategyResult& r) {
  if (!syscall_time_measured(r)) return std::nullopt;
  // Its 95% interval holds 0: the tracer's cost per stop varied more than the calls took.
  // Not a measurement of zero, nor of anything else.
  if (syscall_time_uncertain(r)) return std::nullopt;
  return static_cast<double>(*r.syscall_time_ns);
}

bool syscall_time_lost(const StrategyResult& r) {
  return r.trace && measures(*r.trace).times && syscall_time_uncertain(r);
}

bool syscall_time_sampled(const StrategyResult& r) {
  // timed_calls 0 with a time: a result from before sampling, every call timed.
  return syscall_time(r) && r.write_calls && r.timed_calls > 0 && r.timed_calls < *r.write_calls;
}

std::optional<double> syscall_share(const StrategyResult& r) {
  if (!r.syscall_share || !syscall_time(r)) return std::nullopt;
  return 100.0 * *r.syscall_share;
}

namespace {

/// A share over the traced run's own time (set_syscall_share, run/runner.cc: one clock
/// where the backend knows what tracing cost the run).
bool share_over_traced_run(const RunRecord& rep) {
  return std::any_of(rep.results.begin(), rep.results.end(), [](const StrategyResult& r) {
    return r.syscall_share && traced_own_time_ns(r);
  });
}

/// Else a share over the untraced median less its waits for a CPU (set_syscall_share takes
/// that median where every untraced run could tell its waits; a command's runs cannot).
bool share_over_time_less_cpu_waits(const RunRecord& rep) {
  return std::any_of(rep.results.begin(), rep.results.end(),
                     [](const StrategyResult& r) { return r.time_less_cpu_waits_ns.has_value(); });
}

}  // namespace

std::string share_definition(const RunRecord& rep) {
  if (share_over_traced_run(rep))
    return "syscall time over the traced run's own time less what tracing cost it";
  if (share_over_time_less_cpu_waits(rep))
    return "syscall time over the untraced median time less its waits for a CPU";
  return "syscall time over the untraced median time";
}

bool syscall_share_untrusted(const StrategyResult& r) {
  // Not when ptrace ran without its filter: that run's note says why instead.
  return syscall_time(r) && !r.syscall_share && r.trace &&
         !(r.trace->ptrace && !r.trace->ptrace->seccomp);
}

std::string format_syscall_time(const StrategyResult& r) {
  auto t = syscall_time(r);
  if (!t) return "—";
  return (syscall_time_sampled(r) ? "≈" : "") + format_duration(*t);
}

std::string sampled_note(const std::vector<std::pair<std::string, const StrategyResult*>>& rows) {
  std::string list, line;
  for (const auto& [name, r] : rows) {
    if (!syscall_time_sampled(*r)) continue;
    std::string item = fmt::format("{} {} of {}", name, format_count(r->timed_calls),
                                   format_count(*r->write_calls));
    if (!line.empty() && line.size() + item.size() > 90) {
      list += line + ",\n  ";
      line.clear();
    }
    line += (line.empty() ? "" : ", ") + item;
  }
  if (line.empty()) return "";
  return "≈ syscall time: timed a sample spread over the run, scaled to every call (95% "
         "interval in\n  --format json; --time-all times every call). Calls timed: " +
         (list.empty() ? "" : "\n  " + list) + line + ".";
}

const std::string& time_unavailable_reason(const StrategyResult& r) {
  static const std::string kNoReason;
  return r.trace && r.trace->available ? r.trace->time_unavailable_reason : kNoReason;
}

std::string unavailable_note(const std::vector<const StrategyResult*>& rows) {
  std::vector<std::string> reasons;
  for (const StrategyResult* r : rows) {
    const std::string& why = time_unavailable_reason(*r);
    if (!why.empty() && std::find(reasons.begin(), reasons.end(), why) == reasons.end())
      reasons.push_back(why);
  }
  std::string out;
  // The reason can name --dir (calibration.cc): the user's bytes, escaped like the heading's.
  for (const std::string& why : reasons) {
    if (!out.empty()) out += '\n';
    out += fmt::format("syscall time —: {}.", escape_text(why));
  }
  return out;
}

const char* const kLostNote =
    "syscall time —: the tracer's own cost per call varied by more than the calls took (its 95%\n"
    "  interval holds zero, or it came out above the whole untraced run). A quieter machine\n"
    "  measures it.";

const char* const kShareNote =
    "% of time —: the corrected syscall time came out above the untraced median time by more\n"
    "  than its error: the correction is off on this machine, not shown.";
const char* const kOwnRunShareNote =
    "% of time —: the corrected syscall time came out above the traced run's own time (less\n"
    "  what tracing cost it) by more than their errors: the correction is off on this machine,\n"
    "  not shown.";

const char* share_note(const StrategyResult& r) {
  return traced_own_time_ns(r) ? kOwnRunShareNote : kShareNote;
}

std::string render_host(const RunRecord& rep) {
  std::string where = rep.dir.empty() ? ""
                                      : fmt::format("{} on {} · ", escape_text(rep.dir),
                                                    escape_text(rep.filesystem));
  return fmt::format("{}{} · {} CPUs · kernel {}", where, escape_text(rep.host.cpu), rep.host.cpus,
                     escape_text(rep.host.kernel));
}

std::string render_given_options(const RunRecord& rep) {
  return escape_text(fmt::format("{}", fmt::join(rep.options, " ")));
}

std::string render_heading(const RunRecord& rep, const std::string& what, const char* per) {
  const std::string given = render_given_options(rep);
  return fmt::format("iobench {} · {} · {} + {} warm-up per {}\n{}\n{}\n", rep.version, what,
                     run_count_text(rep, "run"), rep.warmup, per, render_host(rep),
                     given.empty() ? "" : "options: " + given + "\n");
}

bool tracer_uncalibrated(const RunRecord& rep) {
  bool any_reason = false;
  for (const StrategyResult& r : rep.results) {
    if (!r.trace || !r.trace->available) continue;
    if (r.trace->time_unavailable_reason.empty()) return false;
    any_reason = true;
  }
  return any_reason;
}

std::string cross_check_line(const CrossCheck& c, const std::string& label) {
  const std::string head =
      "ptrace estimate / kernel clock" + (label.empty() ? "" : " (" + escape_text(label) + ")");
  if (!c.unavailable_reason.empty())
    return fmt::format("{}: — ({})\n", head, escape_text(c.unavailable_reason));
  const std::string calls = c.calls == c.kernel_calls
                                ? "same " + format_count(c.calls) + " calls"
                                : fmt::format("ptrace {} calls, kernel {}", format_count(c.calls),
                                              format_count(c.kernel_calls));
  return fmt::format("{}: {:.2f} ± {:.2f} ({})\n", head, c.ratio, c.ratio_ci95, calls);
}

std::string render_provenance(const RunRecord& rep, const char* per) {
  const bool commands = !rep.commands.empty();
  std::string out;
  out += fmt::format("time, CPU (user+sys), faults: median of {} per {}{}.\n",
                     run_count_text(rep, "untraced run"), per,
                     commands ? " (wall time of the whole process: fork to wait4)" : "");
  if (rep.traced) {
    const BackendTraits& backend = traits_named(rep.tracer_backend);
    const bool subtracts = measures(backend, rep.trace_mode).tracer_cost_subtracted;
    out += fmt::format("write calls, syscall time: one traced run per {} ({}, {} mode", per,
                       backend.label, to_string(rep.trace_mode));
    std::string more;
    if (rep.pinned)
      more = rep.commands.empty() ? "tracer and strategy on one CPU" : "tracer pinned to one CPU";
    if (subtracts && !tracer_uncalibrated(rep))
      more += fmt::format("{}{} {} per call {}", more.empty() ? "" : ", ",
                          format_duration(std::abs(static_cast<double>(rep.tracer_overhead_ns))),
                          backend.correction, rep.tracer_overhead_ns < 0 ? "added" : "subtracted");
    else if (subtracts)
      more +=
          fmt::format("{}{} per call not calibrated", more.empty() ? "" : ", ", backend.correction);
    out += more.empty() ? ").\n" : ",\n  " + more + ").\n";
    if (share_over_traced_run(rep))
      out += "% of time: " + share_definition(rep) +
             "\n  (its cost per call, measured beside the run) and its waits for a CPU: one run,"
             " one clock.\n";
    if (commands)
      out +=
          "write calls: data writes (write, writev, pwrite*...) to any file but stdout, stderr,\n"
          "  terminals, pipes and sockets; io_uring_enter on rings (README).\n";
    else
      out +=
          "write calls: calls that write data to the output file (write, writev, pwrite...);\n"
          "  io_uring_enter on the ring for io_uring. ftruncate/fsync are in --format json.\n";
  } else {
    out += "write calls: not traced (--no-trace).\n";
  }
  for (const StrategyResult& r : rep.results)
    if (r.trace && r.trace->cross_check)
      out += cross_check_line(*r.trace->cross_check, rep.results.size() > 1 ? r.strategy : "");
  return out;
}

}  // namespace iobench
