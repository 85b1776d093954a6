#include "report/bench_columns.h"

#include <fmt/format.h>

#include <utility>

#include "report/table_parts.h"

namespace iobench {

std::vector<ResultRow> bench_rows(const RunRecord& rep, const Presentation& pres, bool sorted) {
  const StrategyResult* reference = compare_rows(rep).reference;
  std::vector<const StrategyResult*> results;
  if (sorted) {
    results = sorted_rows(rep, pres.sort);
  } else {
    for (const auto& r : rep.results) results.push_back(&r);
  }
  std::vector<ResultRow> rows;
  for (const StrategyResult* r : results) {
    const double med = r->time_ns.median;
    const char* speed = style::kNone;
    if (reference && r != reference)
      speed = med < reference->time_ns.median ? style::kGreen : style::kRed;
    rows.push_back(
        {.result = r,
         .name = {r->strategy, r == reference ? style::kBold : style::kNone},
         .relative = {reference ? format_relative(reference->time_ns.median, med) : "—", speed},
         .time_sgr = speed,
         .label = r->strategy});
  }
  return rows;
}

std::vector<Column<ResultRow>> bench_columns(const RunRecord& rep, const Presentation& pres,
                                             const std::vector<ResultRow>& rows) {
  const StrategyResult* reference = compare_rows(rep).reference;
  auto speedup = [reference](const ResultRow& row) -> std::string {
    const double med = row.result->time_ns.median;
    if (!ran(row) || !reference || med <= 0 || reference->time_ns.median <= 0) return "";
    return plain(reference->time_ns.median / med);
  };
  std::vector<Field<ResultRow>> relative_fields = {
      {.key = "reference",
       .value =
           [reference](const ResultRow& row) {
             return ran(row) && reference ? reference->strategy : "";
           }},
      {.key = "speedup", .value = speedup}};
  auto cols = result_columns(
      rows, {.title = rep.commands.empty() ? "strategy" : "command", .right = false},
      {.title = reference ? reference->strategy : "relative", .over = reference ? "vs" : ""},
      std::move(relative_fields));
  if (pres.latency)
    for (auto& c : latency_columns()) cols.push_back(std::move(c));
  return cols;
}

}  // namespace iobench
