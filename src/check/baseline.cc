#include "check/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "strategies/knobs.h"
#include "strategies/strategy.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

using nlohmann::json;

std::string value_text(const json& v) {
  if (v.is_null()) return "default";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

bool BaselineComparison::regressed() const {
  for (const auto& d : diffs)
    if (d.regression) return true;
  return false;
}

/// The member `key` of an object, or null: a const json's operator[] on a missing key is
/// undefined behaviour, and a baseline file is untrusted input.
const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

namespace {

using Bad = std::function<Error(const std::string&)>;

/// A count: null (not measured) or a whole number from 0 to 2^64-1. nlohmann reads -0 as a
/// signed integer and 1.0, 1e3 or 2^64 as floating point: a count is the value, whatever
/// the spelling, so -0 and 1.0 are counts and 1.5, -1 and 2^64 are not.
std::optional<std::uint64_t> count_of(const json& v, const std::string& where, const Bad& bad) {
  if (v.is_null()) return std::nullopt;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() == 0) return 0;  // -0
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^64 is exact as a double; every double below it that has no fraction fits.
    if (d >= 0 && d < 18446744073709551616.0 && d == std::trunc(d))
      return static_cast<std::uint64_t>(d);
  }
  throw bad(
      fmt::format("{} is {}, not a count (a whole number from 0 to 2^64-1)", where, v.dump()));
}

/// A median: null (not measured) or a positive, finite number of nanoseconds (no run takes
/// 0 ns, and a 0 would make every change +0.0%).
std::optional<double> median_of(const json& time_ns, const std::string& where, const Bad& bad) {
  if (time_ns.is_null()) return std::nullopt;
  const json& median = member(time_ns, "median");
  if (!median.is_number() || !(median.get<double>() > 0) || !std::isfinite(median.get<double>()))
    throw bad(fmt::format("{}.time_ns.median is {}, not a positive number of nanoseconds", where,
                          median.dump()));
  return median.get<double>();
}

BaselineRow row_of(const json& r, const std::string& name, const Bad& bad) {
  BaselineRow row;
  const json& status = member(r, "status");
  static const ResultStatus kStatuses[] = {ResultStatus::kOk, ResultStatus::kUnsupported,
                                           ResultStatus::kFailed, ResultStatus::kTimeout};
  for (ResultStatus st : kStatuses)
    if (status.is_string() && status.get<std::string>() == to_string(st))
      row.status = to_string(st);
  if (row.status.empty())
    throw bad(fmt::format("{}.status is {}, not ok, unsupported, failed or timeout", name,
                          status.dump()));
  row.write_calls = count_of(member(r, "write_calls"), name + ".write_calls", bad);
  row.time_median_ns = median_of(member(r, "time_ns"), name, bad);
  const json& syscalls = member(r, "syscalls");
  if (!syscalls.is_null() && !syscalls.is_object())
    throw bad(fmt::format("{}.syscalls is not an object", name));
  if (syscalls.is_object()) {
    for (const auto& [sys, st] : syscalls.items()) {
      const std::string where = fmt::format("{}.syscalls.{}.calls", name, sys);
      const std::optional<std::uint64_t> calls = count_of(member(st, "calls"), where, bad);
      if (!calls) throw bad(where + " is missing");
      row.syscall_calls[sys] = *calls;
    }
  }
  return row;
}

}  // namespace

Baseline parse_baseline(const std::string& text, const std::string& origin) {
  const Bad bad = [&](const std::string& why) {
    return Error(fmt::format("--baseline {}: {}", origin, why));
  };
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw bad("not valid JSON");
  const json& schema = member(doc, "schema");
  if (!schema.is_string() || schema.get<std::string>() != "iobench/1")
    throw bad("not an iobench/1 document (save one with --save-baseline)");
  Baseline b;
  const json& config = member(doc, "config");
  const json& lines = member(config, "lines");
  if (lines.is_null()) throw bad("config.lines is missing");
  b.lines = *count_of(lines, "config.lines", bad);
  for (const Knob& knob : all_knobs())
    if (const std::string k(knob.name); config.contains(k))
      b.config[k] = value_text(member(config, k.c_str()));
  const json& results = member(doc, "results");
  if (!results.is_array()) throw bad("results is missing");
  for (const json& r : results) {
    const json& name = member(r, "strategy");
    if (!name.is_string()) throw bad("a result has no strategy name");
    const std::string strategy = name.get<std::string>();
    if (!b.rows.emplace(strategy, row_of(r, strategy, bad)).second)
      throw bad(fmt::format("strategy '{}' appears twice", strategy));
    b.order.push_back(strategy);
  }
  return b;
}

void check_comparable(const Baseline& before, std::uint64_t lines,
                      const std::vector<std::string>& strategies) {
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
    if (!row.syscall_calls.empty()) return name + ".syscalls." + row.syscall_calls.begin()->first;
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

/// A syscall the run does not trace would compare as 0 (openat 1 → 0, a regression), and
/// one the baseline did not trace as new (0 → 1): both sides --trace-all, or neither.
void check_same_syscalls(const Baseline& before, const BenchOptions& run) {
  if (!run.run.trace || first_count(before).empty()) return;
  const std::string all = first_traced_all(before);
  if (!all.empty() && !run.run.tracer.trace_all)
    throw Error(fmt::format(
        "baseline not comparable: it counts {}, which only --trace-all traces; add --trace-all",
        all));
  if (all.empty() && run.run.tracer.trace_all)
    throw Error(
        "baseline not comparable: it was saved without --trace-all, so it counts only the write "
        "family; drop --trace-all");
}

}  // namespace

void check_comparable(const Baseline& before, const BenchOptions& run) {
  std::vector<std::string> names;
  names.reserve(run.strategies.size());
  for (const Strategy* s : run.strategies) names.emplace_back(s->name);
  check_comparable(before, run.params.lines, names);
  // Untraced, every count would be "not measured on one side": a baseline whose counts are
  // its point would pass whatever the counts became.
  if (const std::string count = first_count(before); !run.run.trace && !count.empty())
    throw Error(fmt::format(
        "baseline not comparable: it has counts ({}) and --no-trace measures none; drop "
        "--no-trace",
        count));
  check_same_syscalls(before, run);
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

/// A count before and after: "=", "+N" or "-N", a regression beyond `slack`.
BaselineDiff count_diff(const std::string& strategy, const std::string& metric,
                        std::optional<std::uint64_t> was, std::optional<std::uint64_t> is,
                        std::uint64_t slack) {
  // Unsigned both ways: no count is too large to subtract exactly.
  const std::uint64_t distance = !was || !is ? 0 : *is > *was ? *is - *was : *was - *is;
  return {.strategy = strategy,
          .metric = metric,
          .kind = BaselineDiff::Kind::kCount,
          .count_before = was,
          .count_after = is,
          .regression = distance > slack};
}

/// One row's differences: its status, write_calls, every syscall whose count changed, and
/// its median time.
void row_diffs(const BaselineRow& b, const StrategyResult& r, std::uint64_t slack,
               double time_tolerance, std::vector<BaselineDiff>& diffs) {
  if (b.status != to_string(r.status)) {
    diffs.push_back(
        {.strategy = r.strategy,
         .metric = "status",
         .kind = BaselineDiff::Kind::kStatus,
         .status_before = b.status,
         .status_after = to_string(r.status),
         .regression = r.status == ResultStatus::kFailed || r.status == ResultStatus::kTimeout});
  }
  if (b.write_calls || r.write_calls)
    diffs.push_back(count_diff(r.strategy, "write_calls", b.write_calls, r.write_calls, slack));
  if (r.trace && r.trace->available) {
    std::map<std::string, std::uint64_t> calls;
    for (const auto& [name, st] : r.trace->syscalls) calls[name] = st.calls;
    for (const auto& [name, n] : b.syscall_calls) calls.try_emplace(name, 0);
    for (const auto& [name, n] : calls) {
      const auto it = b.syscall_calls.find(name);
      const std::uint64_t was = it == b.syscall_calls.end() ? 0 : it->second;
      if (was == n) continue;  // unchanged syscalls would only repeat write_calls
      diffs.push_back(count_diff(r.strategy, name, was, n, slack));
    }
  }
  if (b.time_median_ns && r.status == ResultStatus::kOk && !r.time_ns.samples.empty()) {
    const double was = *b.time_median_ns, is = r.time_ns.median;
    // was > 0 (parse_baseline refuses anything else), but may be tiny: the ratio may be inf.
    const double ratio = is / was;
    diffs.push_back({.strategy = r.strategy,
                     .metric = "time (median)",
                     .kind = BaselineDiff::Kind::kTime,
                     .time_before_ns = was,
                     .time_after_ns = is,
                     .regression = ratio - 1 > time_tolerance});
  }
}

}  // namespace

BaselineComparison compare_with_baseline(const Baseline& before, const RunRecord& after,
                                         std::optional<std::uint64_t> count_tolerance,
                                         double time_tolerance) {
  std::vector<std::string> ran;
  ran.reserve(after.results.size());
  for (const auto& r : after.results) ran.push_back(r.strategy);
  check_comparable(before, after.lines, ran);

  BaselineComparison cmp;
  cmp.config_changes = config_changes(before, after);
  for (const auto& r : after.results)
    row_diffs(before.rows.at(r.strategy), r, count_tolerance.value_or(0), time_tolerance,
              cmp.diffs);
  return cmp;
}

}  // namespace iobench
