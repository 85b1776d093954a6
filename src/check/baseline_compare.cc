// Comparing a run with a baseline: whether the two are comparable (exit 2 before anything
// runs), then each row's differences as plain BaselineDiff values.
#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "check/baseline.h"
#include "strategies/knobs.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench {

void check_kind(const Baseline& before, BaselineKind kind) {
  if (before.kind != kind)
    throw Error(fmt::format("baseline not comparable: it was saved by {}, and this is {}",
                            command_name(before.kind), command_name(kind)));
}

void check_comparable(const Baseline& before, std::uint64_t lines,
                      const std::vector<std::string>& strategies) {
  check_kind(before, BaselineKind::kRun);
  if (before.lines != lines)
    throw Error(fmt::format("baseline not comparable: it wrote {} lines, this run {}", before.lines,
                            lines));
  for (const auto& name : before.order)
    if (std::find(strategies.begin(), strategies.end(), name) == strategies.end())
      throw Error(fmt::format(
          "baseline not comparable: strategy '{}' is in the baseline but is not run", name));
  for (const auto& name : strategies)
    if (!before.rows.count(name))
      throw Error(fmt::format(
          "baseline not comparable: strategy '{}' is run but is not in the baseline", name));
}

namespace {

/// The first count the baseline holds ("buffered.write_calls"), or "" when it has none.
std::string first_count(const Baseline& b) {
  for (const auto& name : b.order) {
    const BaselineRow& row = b.rows.at(name);
    if (row.write_calls) return name + ".write_calls";
    for (const auto& [sys, n] : row.syscall_calls)
      if (n) return fmt::format("{}.syscalls.{}", name, sys);
  }
  return "";
}

/// The first syscall outside the write family the baseline counts ("buffered.openat"): only
/// a --trace-all run counts one (every strategy opens its file), or "" when there is none.
std::string first_traced_all(const Baseline& b) {
  for (const auto& name : b.order)
    for (const auto& [sys, n] : b.rows.at(name).syscall_calls)
      if (!is_write_family(sys)) return fmt::format("{}.{}", name, sys);
  return "";
}

}  // namespace

void check_same_tracing(const Baseline& before, bool traced, bool trace_all) {
  const std::string count = first_count(before);
  // Untraced, every count would be "not measured on one side": a baseline whose counts are
  // its point would pass whatever the counts became.
  if (!traced && !count.empty())
    throw Error(fmt::format(
        "baseline not comparable: it has counts ({}) and --no-trace measures none; drop "
        "--no-trace",
        count));
  if (!traced || count.empty()) return;
  const std::string all = first_traced_all(before);
  if (!all.empty() && !trace_all)
    throw Error(fmt::format(
        "baseline not comparable: it counts {}, which only --trace-all traces; add --trace-all",
        all));
  if (all.empty() && trace_all)
    throw Error(
        "baseline not comparable: it was saved without --trace-all, so it counts only the write "
        "family; drop --trace-all");
}

void check_comparable(const Baseline& before, const BenchOptions& run) {
  std::vector<std::string> names;
  names.reserve(run.strategies.size());
  for (const Strategy* s : run.strategies) names.emplace_back(s->name);
  check_comparable(before, run.params.lines, names);
  check_same_tracing(before, run.run.trace, run.run.tracer.trace_all);
}

namespace {

/// The workload's knobs that differ, in key order: shown, not refused, since comparing
/// configurations is a main use.
std::vector<std::string> config_changes(const Baseline& before, const RunRecord& after) {
  std::vector<std::string> changes;
  std::map<std::string, std::string> now;
  for (const Knob& k : all_knobs()) now[std::string(k.name)] = knob_text(k.value(after.params));
  for (const auto& [key, value] : now) {
    auto it = before.config.find(key);
    if (it != before.config.end() && it->second != value)
      changes.push_back(fmt::format("{} {} → {}", key, it->second, value));
  }
  return changes;
}

/// How counts are judged: `slack` calls either way are no change; below it, fewer calls are
/// an improvement, which fails only when `exact`.
struct CountRule {
  std::uint64_t slack = 0;
  bool exact = false;
};

/// A count before and after: a regression above `rule.slack`, an improvement below it.
BaselineDiff count_diff(const std::string& strategy, const std::string& metric,
                        std::optional<std::uint64_t> was, std::optional<std::uint64_t> is,
                        const CountRule& rule) {
  // Unsigned both ways: no count is too large to subtract exactly.
  const bool up = was && is && *is > *was && *is - *was > rule.slack;
  const bool down = was && is && *was > *is && *was - *is > rule.slack;
  return {.strategy = strategy,
          .metric = metric,
          .kind = BaselineDiff::Kind::kCount,
          .count_before = was,
          .count_after = is,
          .regression = up,
          .improvement = down,
          .failed = up || (down && rule.exact)};
}

/// Every file either side has, one per path: "file out.txt" (0 where a side has none).
void file_diffs(const std::string& row,
                const std::map<std::string, std::optional<std::uint64_t>>& was,
                const std::map<std::string, std::uint64_t>& is, const CountRule& rule,
                std::vector<BaselineDiff>& diffs) {
  std::map<std::string, std::uint64_t> paths = is;
  for (const auto& [path, n] : was) paths.try_emplace(path, 0);
  for (const auto& [path, n] : paths) {
    const auto it = was.find(path);
    const std::optional<std::uint64_t> before = it == was.end() ? 0 : it->second;
    diffs.push_back(count_diff(row, "file " + path, before, n, rule));
  }
}

/// Every syscall either side counts (0 where a side has none).
void syscall_diffs(const std::string& row, const BaselineRow& b, const TraceResult& trace,
                   const CountRule& rule, std::vector<BaselineDiff>& diffs) {
  std::map<std::string, std::uint64_t> calls;
  for (const auto& [name, st] : trace.syscalls) calls[name] = st.calls;
  for (const auto& [name, n] : b.syscall_calls) calls.try_emplace(name, 0);
  for (const auto& [name, n] : calls) {
    const auto it = b.syscall_calls.find(name);
    const std::optional<std::uint64_t> was = it == b.syscall_calls.end() ? 0 : it->second;
    diffs.push_back(count_diff(row, name, was, n, rule));
  }
}

/// One row's values: its status, write_calls, every syscall and file, and its median time.
void row_diffs(const BaselineRow& b, const ComparedRow& row, const CountRule& rule,
               double time_tolerance, std::vector<BaselineDiff>& diffs) {
  const StrategyResult& r = *row.result;
  const std::string& name = row.name;
  const bool worse = b.status != to_string(r.status) &&
                     (r.status == ResultStatus::kFailed || r.status == ResultStatus::kTimeout);
  diffs.push_back({.strategy = name,
                   .metric = "status",
                   .kind = BaselineDiff::Kind::kStatus,
                   .status_before = b.status,
                   .status_after = to_string(r.status),
                   .regression = worse,
                   .failed = worse});
  if (r.trace && !r.trace->lost.empty()) {
    // Its backend had no room for some calls: every count below may be short of the truth.
    diffs.push_back({.strategy = name,
                     .metric = "counts",
                     .kind = BaselineDiff::Kind::kStatus,
                     .status_before = "complete",
                     .status_after = "incomplete",
                     .regression = true,
                     .failed = true});
  }
  if (b.write_calls || r.write_calls)
    diffs.push_back(count_diff(name, "write_calls", b.write_calls, r.write_calls, rule));
  if (b.file_calls && row.file_calls) file_diffs(name, *b.file_calls, *row.file_calls, rule, diffs);
  if (r.trace && r.trace->available) syscall_diffs(name, b, *r.trace, rule, diffs);
  if (b.time_median_ns && r.status == ResultStatus::kOk && !r.time_ns.samples.empty()) {
    const double was = *b.time_median_ns, is = r.time_ns.median;
    // was > 0 (parse_baseline refuses anything else), but may be tiny: the ratio may be inf.
    const bool slower = is / was - 1 > time_tolerance;
    diffs.push_back({.strategy = name,
                     .metric = "time (median)",
                     .kind = BaselineDiff::Kind::kTime,
                     .time_before_ns = was,
                     .time_after_ns = is,
                     .regression = slower,
                     .failed = slower});
  }
}

}  // namespace

BaselineComparison compare_with_baseline(const Baseline& before, const RunRecord& after,
                                         const BaselineRules& rules) {
  std::vector<std::string> ran;
  ran.reserve(after.results.size());
  for (const auto& r : after.results) ran.push_back(r.strategy);
  check_comparable(before, after.lines, ran);

  std::vector<ComparedRow> rows;
  for (const auto& r : after.results) rows.push_back({r.strategy, &r, std::nullopt});
  BaselineComparison cmp = compare_rows(before, rows, rules);
  cmp.config_changes = config_changes(before, after);
  return cmp;
}

BaselineComparison compare_rows(const Baseline& before, const std::vector<ComparedRow>& after,
                                const BaselineRules& rules) {
  BaselineComparison cmp;
  cmp.exact_counts = rules.exact_counts || before.exact_counts;
  const CountRule rule{.slack = rules.count_tolerance.value_or(0), .exact = cmp.exact_counts};
  for (const ComparedRow& row : after)
    row_diffs(before.rows.at(row.name), row, rule, rules.time_tolerance, cmp.diffs);
  return cmp;
}

}  // namespace iobench
