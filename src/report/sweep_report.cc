#include "report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/grid.h"
#include "report/json_result.h"
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

/// The knee (or why there is none) and the share notes, under the sweep table.
std::string sweep_notes(const SweepReport& rep, const std::string& name, bool over_100, bool lost,
                        bool color) {
  const bool lines = rep.parameter == "lines";
  std::string out;
  if (lines) {
    out +=
        "A scaling sweep has no knee: read the time per line (constant when the cost is per "
        "line).\n";
  } else if (rep.parameter == "line_length") {
    out +=
        "Longer lines write more bytes, so there is no knee: read the time per KiB (it falls "
        "while the cost per call is being spread over more bytes).\n";
  } else if (rep.knee) {
    const SweepPoint& k = rep.points[*rep.knee];
    const SweepPoint* best = &k;
    for (const auto& p : rep.points)
      if (measured(p) && p.result.time_ns.median < best->result.time_ns.median) best = &p;
    out += paint(fmt::format("knee: {} {}", name, format_sweep_value(rep, k.value)), style::kBold,
                 color);
    out += fmt::format(" ({}): no larger {} made the median time 10% faster or more",
                       format_duration(k.result.time_ns.median), name);
    if (best != &k)
      out += fmt::format(";\n  the fastest, {} at {}, is within 10% of it",
                         format_duration(best->result.time_ns.median),
                         format_sweep_value(rep, best->value));
    out += ".\n";
  } else {
    out += fmt::format(
        "knee: none in this range: the largest {} still made the median time 10% faster or\n"
        "  more (knee: the smallest value beyond which no larger one does).\n",
        name);
  }
  if (over_100) out += paint(kShareNote, style::kDim, color) + std::string("\n");
  if (lost) out += paint(kLostNote, style::kDim, color) + std::string("\n");
  return out;
}

}  // namespace

std::string render_sweep_table(const SweepReport& rep) {
  const BenchReport& b = rep.base;
  const bool color = b.color;
  const bool lines = rep.parameter == "lines";
  const bool per_kib = rep.parameter == "line_length";  // the bytes change with the value
  double max_time = 0, max_calls = 0;
  const SweepPoint* first = nullptr;
  for (const auto& p : rep.points) {
    if (!measured(p)) continue;
    if (!first) first = &p;
    max_time = std::max(max_time, p.result.time_ns.median);
    if (p.result.write_calls)
      max_calls = std::max(max_calls, static_cast<double>(*p.result.write_calls));
  }
  const std::string value_title = name_of(rep);
  std::vector<GridColumn> cols = {
      // Drop ranks as in the strategies table (table.cc).
      {value_title, true},
      {"calls", true, "write"},
      bar_column(8, 4),
      {"call", true, "bytes/", 2, 5},
      {"median", true, "time"},
      {"±σ", true, "", 1, 6},
      bar_column(8, 3),
      lines     ? GridColumn{"line", true, "per"}
      : per_kib ? GridColumn{"KiB", true, "per"}
                : GridColumn{first ? format_sweep_value(rep, first->value) : "first", true, "vs"},
      {"time", true, "syscall", 2, 2},
      {"time", true, "% of", 2, 1},
      {"CPU", true, "", 2, 7},
      {"faults", true, "", 2, 8},
  };
  std::vector<std::vector<GridCell>> rows;
  std::vector<std::string> errors;
  bool over_100 = false, lost = false;
  for (std::size_t i = 0; i < rep.points.size(); ++i) {
    const SweepPoint& p = rep.points[i];
    const StrategyResult& r = p.result;
    const std::string value = format_sweep_value(rep, p.value);
    if (r.status != ResultStatus::kOk) {
      const char* sgr = r.status == ResultStatus::kUnsupported ? style::kYellow : style::kRed;
      rows.push_back({value,
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
      errors.push_back(paint(
          fmt::format("{} {}: {}: {}", rep.flag, value, to_string(r.status), r.error), sgr, color));
      continue;
    }
    const double med = r.time_ns.median;
    std::string calls = r.write_calls ? format_count(*r.write_calls) : kNone;
    std::string per_call = kNone, sys_time = kNone, share = kNone;
    double calls_bar = -1;
    if (r.write_calls && max_calls > 0)
      calls_bar = std::log10(1 + static_cast<double>(*r.write_calls)) / std::log10(1 + max_calls);
    if (r.write_calls && *r.write_calls > 0)
      per_call = format_bytes(static_cast<double>(r.bytes) / static_cast<double>(*r.write_calls));
    sys_time = format_syscall_time(r);
    lost = lost || syscall_time_lost(r);
    if (auto pct = syscall_share(r)) share = fmt::format("{:.0f}%", *pct);
    over_100 = over_100 || syscall_share_untrusted(r);

    std::string rel = kNone;
    if (lines) {
      if (p.value > 0) rel = format_duration(med / static_cast<double>(p.value));
    } else if (per_kib) {
      if (r.bytes > 0) rel = format_duration(med * 1024 / static_cast<double>(r.bytes));
    } else if (first) {
      rel = format_relative(first->result.time_ns.median, med);
    }
    const bool knee = rep.knee && *rep.knee == i;
    rows.push_back({{knee ? "knee ▶ " + value : value, knee ? style::kBold : style::kNone},
                    calls,
                    GridCell::bar(calls_bar, style::kCyan),
                    per_call,
                    format_duration(med),
                    r.time_ns.samples.size() > 1 && r.time_ns.mean > 0
                        ? fmt::format("±{:.0f}%", 100 * r.time_ns.stddev / r.time_ns.mean)
                        : kNone,
                    GridCell::bar(max_time > 0 ? med / max_time : -1, style::kGreen),
                    rel,
                    sys_time,
                    share,
                    format_duration(r.cpu_ns.median),
                    format_count(r.minor_faults + r.major_faults)});
  }

  std::string what = fmt::format("sweep {} {}", rep.strategy, rep.flag);
  if (per_kib)
    what += fmt::format(" · {} lines", format_count(b.lines));
  else if (!lines)
    what += fmt::format(" · {} lines ({})", format_count(b.lines),
                        format_bytes(static_cast<double>(b.bytes)));
  std::string out = wrap_lines(render_heading(b, what, "value"), b.columns);
  out += render_grid(cols, rows, color, b.columns);
  out += "\n";
  out += reflow(sweep_notes(rep, value_title, over_100, lost, color), b.columns);
  out += "\n";
  out += reflow(render_provenance(b, "value"), b.columns);
  for (const auto& e : errors) out += wrap_lines(e, b.columns) + "\n";
  return out;
}

namespace {

nlohmann::json sweep_json(const SweepReport& rep) {
  using nlohmann::json;
  const BenchReport& b = rep.base;
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

std::string render_sweep_json(const SweepReport& rep) { return sweep_json(rep).dump(2) + "\n"; }

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
  return doc.dump(2) + "\n";
}

}  // namespace iobench
