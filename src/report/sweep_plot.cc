#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "report/plot.h"
#include "report/plot_parts.h"
#include "report/sweep_report.h"

namespace iobench {
namespace {

/// A sweep chart's points: the measured values, and what the axes need to know of them.
struct SweepChart {
  std::vector<const SweepPoint*> points;
  bool per_kib = false;  // a line-length sweep: its time panel is the time per KiB
  bool zero_value = false, zero_calls = false;
  double max_time = 0;
};

/// The time a point's panel shows. A line-length sweep writes more bytes at each value: its
/// time is per KiB, which falls while the cost per call is spread over more bytes.
double chart_time(const SweepChart& c, const StrategyResult& r) {
  if (!c.per_kib) return r.time_ns.median;
  return r.time_ns.median * 1024 / static_cast<double>(std::max<std::uint64_t>(r.bytes, 1));
}

SweepChart sweep_chart(const SweepReport& rep) {
  SweepChart c;
  c.per_kib = rep.parameter == "line_length";
  for (const auto& p : rep.points)
    if (p.result.status == ResultStatus::kOk) c.points.push_back(&p);
  for (auto* p : c.points) {
    c.max_time = std::max(c.max_time, chart_time(c, p->result));
    c.zero_value = c.zero_value || p->value == 0;
    c.zero_calls = c.zero_calls || !p->result.write_calls || *p->result.write_calls == 0;
  }
  return c;
}

/// The x axis: the swept values as tics, log scale unless a value is 0, a little room
/// either side.
std::string sweep_x_axis(const SweepReport& rep, const SweepChart& c) {
  const auto& pts = c.points;
  std::string s;
  // Logarithmic where it can be: both quantities span orders of magnitude.
  if (!c.zero_value) s += "set logscale x 10\n";
  std::string tics;
  for (std::size_t i = 0; i < pts.size(); ++i)
    tics += fmt::format("{}{} {}", i ? ", " : "", quote(format_sweep_value(rep, pts[i]->value)),
                        number(static_cast<double>(pts[i]->value)));
  if (!pts.empty()) s += "set xtics (" + tics + ") rotate by 30 right\n";
  if (pts.size() > 1) {
    const double lo = static_cast<double>(pts.front()->value),
                 hi = static_cast<double>(pts.back()->value);
    s += c.zero_value ? fmt::format("set xrange [{}:{}]\n", number(lo - (hi - lo) * 0.05),
                                    number(hi + (hi - lo) * 0.05))
                      : fmt::format("set xrange [{}:{}]\n", number(lo / 1.5), number(hi * 1.5));
  }
  const std::string xlabel = rep.parameter == "lines"
                                 ? "lines written"
                                 : fmt::format("{}{}", rep.flag, rep.sizes ? " (bytes)" : "");
  return s + fmt::format("set xlabel {} noenhanced\n",
                         quote(xlabel + (c.zero_value ? "" : ", log scale")));
}

/// The data block (value, calls, time in `unit`) and the knee's dashed line and label.
std::string sweep_data(const SweepReport& rep, const SweepChart& c, const TimeUnit& unit) {
  std::string s = "$points << EOD\n";
  for (const SweepPoint* p : c.points) {
    const StrategyResult& r = p->result;
    s += fmt::format("{} {} {}\n", number(static_cast<double>(p->value)),
                     number(r.write_calls ? static_cast<double>(*r.write_calls) : NAN),
                     number(chart_time(c, r) / unit.ns));
  }
  s += "EOD\n";
  if (rep.knee) {
    const double knee = static_cast<double>(rep.points[*rep.knee].value);
    s += fmt::format(
        "set arrow 1 from {0}, graph 0 to {0}, graph 1 nohead dt 2 lw 2 lc rgb '#AA3377'\n"
        "set label 1 {1} at {0}, graph 0.95 offset 0.5,0 textcolor rgb '#AA3377' noenhanced\n",
        number(knee), quote("knee: " + format_sweep_value(rep, rep.points[*rep.knee].value)));
  }
  return s;
}

/// One panel: a line through the points and each point its own titled mark.
std::string sweep_panel(const SweepReport& rep, const SweepChart& c, const char* title,
                        const std::string& ylabel, int column, bool log) {
  std::string p = fmt::format("set title {} noenhanced\nset ylabel {} noenhanced\n", quote(title),
                              quote(ylabel));
  // Counts read best as 10k, 1M; times are already in the axis' unit.
  p += log ? fmt::format("set logscale y 10\nset format y '{}'\n", column == 2 ? "%.0s%c" : "%g")
           : "unset logscale y\nset format y '%g'\n";
  // Room beyond the first and last value (a point on the axis' end was cut in half), and no
  // more: extended to the next tic, a log axis gained a decade of nothing each side.
  p += log ? "set autoscale yfix\nset offsets 0, 0, graph 0.08, graph 0.08\n"
           : "set autoscale yfixmax\nset yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n";
  p += fmt::format("plot $points using 1:{} with lines lw 3 lc rgb '#4477AA' notitle", column);
  for (std::size_t i = 0; i < c.points.size(); ++i)
    p += fmt::format(
        ", \\\n  $points every ::{0}::{0} using 1:{1} with points pt 7 ps 2 lc rgb '#4477AA' "
        "title {2} noenhanced",
        i, column, quote(format_sweep_value(rep, c.points[i]->value)));
  return p + "\n";
}

}  // namespace

std::string sweep_plot_script(const SweepReport& rep) {
  const RunRecord& b = rep.base;
  const SweepChart c = sweep_chart(rep);
  const TimeUnit unit = time_unit(c.max_time);
  std::string s = kScriptStart;
  const std::string what =
      rep.parameter == "lines" ? fmt::format("on {}", filesystems_text(b.filesystem))
      : c.per_kib
          ? fmt::format("{} lines on {}", format_count(b.lines), filesystems_text(b.filesystem))
          : lines_text(b);
  s += fmt::format("set multiplot layout 1,2 title {} noenhanced font 'Sans,26'\n",
                   quote(fmt::format("iobench sweep: {} {} · {} · {}\n{}", rep.strategy, rep.flag,
                                     what, runs_text(b), machine(b))));
  s += "unset key\nset border 3\nset xtics nomirror noenhanced\nset ytics nomirror\n"
       "set grid xtics ytics lc rgb '#dddddd'\nset tmargin at screen 0.83\nset bmargin at screen "
       "0.14\n";
  s += sweep_x_axis(rep, c);
  s += sweep_data(rep, c, unit);
  s += sweep_panel(rep, c, "write calls", c.zero_calls ? "calls" : "calls (log scale)", 2,
                   !c.zero_calls);
  s += sweep_panel(rep, c, c.per_kib ? "median time per KiB" : "median time",
                   fmt::format("time{} ({}, log scale)", c.per_kib ? " per KiB" : "", unit.name), 3,
                   c.max_time > 0);
  s += "unset multiplot\n";
  return s;
}

}  // namespace iobench
