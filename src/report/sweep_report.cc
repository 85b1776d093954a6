#include "report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/grid.h"
#include "report/json_result.h"
#include "report/result_table.h"
#include "report/table_parts.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

constexpr const char* kNone = "—";

bool measured(const SweepPoint& p) {
  return p.result.status == ResultStatus::kOk && p.result.time_ns.median > 0;
}

std::string exact_size(std::uint64_t v) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t u = 0;
  while (u + 1 < std::size(kUnits) && v >= 1024 && v % 1024 == 0) v /= 1024, ++u;
  return fmt::format("{} {}", format_count(v), kUnits[u]);
}

}  // namespace

std::optional<std::size_t> find_knee(const std::vector<SweepPoint>& points, double gain) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (measured(points[i])) ok.push_back(i);
  if (ok.size() < 2) return std::nullopt;
  for (std::size_t k = 0; k + 1 < ok.size(); ++k) {
    const double t = points[ok[k]].result.time_ns.median;
    const bool flat = std::all_of(
        ok.begin() + static_cast<long>(k) + 1, ok.end(),
        [&](std::size_t j) { return points[j].result.time_ns.median > (1 - gain) * t; });
    if (flat) return ok[k];
  }
  return std::nullopt;  // still falling by 10% or more at the largest value
}

std::string format_sweep_value(const SweepReport& rep, std::uint64_t value) {
  return rep.sizes ? exact_size(value) : format_count(value);
}

namespace {

std::string name_of(const SweepReport& rep) {
  std::string name = rep.flag.substr(2);
  std::replace(name.begin(), name.end(), '-', ' ');
  return name;
}

/// "knee: buffer size 64 KiB (790.0 µs): no larger ... faster or more", and the fastest
/// value when it is not the knee.
std::string knee_text(const SweepReport& rep, const std::string& name, bool color) {
  const SweepPoint& k = rep.points[*rep.knee];
  const SweepPoint* best = &k;
  for (const auto& p : rep.points)
    if (measured(p) && p.result.time_ns.median < best->result.time_ns.median) best = &p;
  std::string out = paint(fmt::format("knee: {} {}", name, format_sweep_value(rep, k.value)),
                          style::kBold, color);
  out += fmt::format(" ({}): no larger {} made the median time 10% faster or more",
                     format_duration(k.result.time_ns.median), name);
  if (best != &k)
    out += fmt::format(";\n  the fastest, {} at {}, is within 10% of it",
                       format_duration(best->result.time_ns.median),
                       format_sweep_value(rep, best->value));
  return out + ".\n";
}

/// The knee (or why there is none) and the result notes, under the sweep table.
std::string sweep_notes(const SweepReport& rep, const std::string& name,
                        const std::vector<ResultRow>& rows, bool color) {
  std::string out;
  if (rep.parameter == "lines") {
    out +=
        "A scaling sweep has no knee: read the time per line (constant when the cost is per "
        "line).\n";
  } else if (rep.parameter == "line_length") {
    out +=
        "Longer lines write more bytes, so there is no knee: read the time per KiB (it falls "
        "while the cost per call is being spread over more bytes).\n";
  } else if (rep.knee) {
    out += knee_text(rep, name, color);
  } else {
    out += fmt::format(
        "knee: none in this range: the largest {} still made the median time 10% faster or\n"
        "  more (knee: the smallest value beyond which no larger one does).\n",
        name);
  }
  for (const auto& note : result_notes(rows)) out += paint(note, style::kDim, color) + "\n";
  return out;
}

/// The relative column: time per line for a scaling sweep, per KiB when the line length
/// changes the bytes, else the first measured value's median against this one's.
GridColumn relative_column(const SweepReport& rep, const SweepPoint* first) {
  if (rep.parameter == "lines") return {"line", true, "per"};
  if (rep.parameter == "line_length") return {"KiB", true, "per"};
  return {first ? format_sweep_value(rep, first->value) : "first", true, "vs"};
}

std::string relative_cell(const SweepReport& rep, const SweepPoint& p, const SweepPoint* first) {
  const StrategyResult& r = p.result;
  const double med = r.time_ns.median;
  if (rep.parameter == "lines")
    return p.value > 0 ? format_duration(med / static_cast<double>(p.value)) : kNone;
  if (rep.parameter == "line_length")
    return r.bytes > 0 ? format_duration(med * 1024 / static_cast<double>(r.bytes)) : kNone;
  return first ? format_relative(first->result.time_ns.median, med) : kNone;
}

/// A row per point, the knee's marked; time bars all green (no row is a reference).
std::vector<ResultRow> sweep_rows(const SweepReport& rep, const SweepPoint* first) {
  std::vector<ResultRow> rows;
  for (std::size_t i = 0; i < rep.points.size(); ++i) {
    const SweepPoint& p = rep.points[i];
    const std::string value = format_sweep_value(rep, p.value);
    const bool knee = rep.knee && *rep.knee == i && p.result.status == ResultStatus::kOk;
    rows.push_back({.result = &p.result,
                    .name = {knee ? "knee ▶ " + value : value, knee ? style::kBold : style::kNone},
                    .relative = relative_cell(rep, p, first),
                    .time_sgr = style::kGreen,
                    .label = rep.flag + " " + value});
  }
  return rows;
}

/// What the heading says was swept: the strategy, the flag, and the workload that stayed.
std::string sweep_what(const SweepReport& rep) {
  const RunRecord& b = rep.base;
  std::string what = fmt::format("sweep {} {}", rep.strategy, rep.flag);
  if (rep.parameter == "line_length")
    what += fmt::format(" · {} lines", format_count(b.lines));
  else if (rep.parameter != "lines")
    what += fmt::format(" · {} lines ({})", format_count(b.lines),
                        format_bytes(static_cast<double>(b.bytes)));
  return what;
}

}  // namespace

std::string render_sweep_table(const SweepReport& rep, const Presentation& pres) {
  const RunRecord& b = rep.base;
  const SweepPoint* first = nullptr;
  for (const auto& p : rep.points)
    if (!first && measured(p)) first = &p;
  const std::vector<ResultRow> rows = sweep_rows(rep, first);
  const std::string value_title = name_of(rep);
  const auto cols = result_columns(rows, {value_title, true}, relative_column(rep, first));
  std::string out = render_result_grid(b, pres, sweep_what(rep), "value", cols, rows);
  out += "\n" + reflow(sweep_notes(rep, value_title, rows, pres.color), pres.columns);
  return out + render_result_footer(b, pres, "value", failure_lines(rows, pres.color));
}

namespace {

nlohmann::json sweep_json(const SweepReport& rep) {
  using nlohmann::json;
  const RunRecord& b = rep.base;
  json points = json::array();
  for (const auto& p : rep.points)
    points.push_back({{"value", p.value}, {"result", result_json(p.result)}});
  json config = config_json(b);
  config["traced"] = b.traced;      // iobench-sweep/1's own key, kept beside the tracer block
  config[rep.parameter] = nullptr;  // it is the swept one: see points[].value
  if (rep.parameter == "lines" || rep.parameter == "line_length") config["bytes"] = nullptr;
  json doc = {
      {"schema", "iobench-sweep/1"},
      {"iobench",
       {{"version", b.version}, {"build_type", b.build_type}, {"compiler", b.host.compiler}}},
      {"host", {{"kernel", b.host.kernel}, {"cpu", b.host.cpu}, {"cpus", b.host.cpus}}},
      {"strategy", rep.strategy},
      {"parameter", rep.parameter},
      {"config", config},
      {"points", points},
      {"knee", rep.knee ? json(rep.points[*rep.knee].value) : json(nullptr)},
  };
  return doc;
}

}  // namespace

std::string render_sweep_json(const SweepReport& rep) { return dump_json(sweep_json(rep)); }

std::string render_sweep_json(const std::vector<SweepReport>& reps) {
  if (reps.size() == 1) return render_sweep_json(reps.front());
  SweepReport all = reps.front();
  all.points.clear();
  all.knee.reset();  // each directory has its own: knees[]
  all.base.dir = all.base.filesystem = "";
  nlohmann::json knees = nlohmann::json::array();
  for (const SweepReport& rep : reps) {
    all.points.insert(all.points.end(), rep.points.begin(), rep.points.end());
    all.base.dir += (all.base.dir.empty() ? "" : ",") + rep.base.dir;
    all.base.filesystem += (all.base.filesystem.empty() ? "" : ",") + rep.base.filesystem;
    knees.push_back({{"dir", rep.base.dir},
                     {"filesystem", rep.base.filesystem},
                     {"value", rep.knee ? nlohmann::json(rep.points[*rep.knee].value)
                                        : nlohmann::json(nullptr)}});
  }
  nlohmann::json doc = sweep_json(all);
  doc["knees"] = knees;
  return dump_json(std::move(doc));
}

}  // namespace iobench
