#include "check/program_baseline.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "tracer/counting_backend.h"
#include "tracer/write_calls.h"

namespace iobench {

std::string program_name(const std::string& given, const std::string& argv0) {
  if (!given.empty()) return given;
  std::string name = argv0;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  const std::size_t slash = name.rfind('/');
  return slash == std::string::npos || name.size() == 1 ? name : name.substr(slash + 1);
}

std::optional<std::map<std::string, std::uint64_t>> file_write_calls(const TraceResult& trace,
                                                                     const std::string& dir) {
  if (!trace.available || !measures(trace).per_file) return std::nullopt;
  std::map<std::string, std::uint64_t> out;
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  for (const FileStats& f : trace.files) {
    TraceResult one = trace;  // the file alone, so it counts exactly as write_calls does
    one.files = {f};
    const std::uint64_t calls = count_writes(one).calls;
    if (calls == 0) continue;  // a stream, a pipe, a socket: never a write call
    const bool under = !prefix.empty() && f.path.starts_with(prefix);
    out[under ? f.path.substr(prefix.size()) : f.path] += calls;
  }
  return out;
}

StrategyResult traced_program_result(const TraceResult& trace) {
  StrategyResult r;
  r.status = trace.timed_out                                  ? ResultStatus::kTimeout
             : trace.exit_code == 0 && trace.term_signal == 0 ? ResultStatus::kOk
                                                              : ResultStatus::kFailed;
  r.trace = trace;
  if (trace.available) r.write_calls = count_writes(trace).calls;
  return r;
}

void check_comparable(const Baseline& before, BaselineKind kind,
                      const std::vector<std::string>& names, bool traced, bool trace_all) {
  check_kind(before, kind);
  const char* what = kind == BaselineKind::kTrace ? "program" : "command";
  const char* flag = kind == BaselineKind::kTrace ? "--name NAME" : "-n NAME";
  if (kind == BaselineKind::kTrace && names.size() == 1 && before.order.size() == 1 &&
      before.order.front() != names.front())
    throw Error(fmt::format(
        "baseline not comparable: it is of program '{}', and this run of '{}' ({} names a "
        "program whatever its path)",
        before.order.front(), names.front(), flag));
  for (const auto& name : before.order)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw Error(fmt::format(
          "baseline not comparable: {} '{}' is in the baseline but is not run ({} names one)", what,
          name, flag));
  for (const auto& name : names)
    if (!before.rows.count(name))
      throw Error(fmt::format(
          "baseline not comparable: {} '{}' is run but is not in the baseline ({} names one)", what,
          name, flag));
  check_same_tracing(before, traced, trace_all);
}

BaselineComparison compare_programs(const Baseline& before, const std::vector<std::string>& names,
                                    const std::vector<StrategyResult>& results,
                                    const std::string& dir, const BaselineRules& rules) {
  std::vector<ComparedRow> rows;
  for (std::size_t i = 0; i < results.size() && i < names.size(); ++i) {
    const StrategyResult& r = results[i];
    rows.push_back({names[i], &r, r.trace ? file_write_calls(*r.trace, dir) : std::nullopt});
  }
  return compare_rows(before, rows, rules);
}

}  // namespace iobench
