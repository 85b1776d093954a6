#include "report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "base/error.h"
#include "report/dirs.h"
#include "report/escape.h"
#include "report/plot_parts.h"
#include "report/table_parts.h"

namespace iobench {
namespace {

/// What --plot FILE's extension draws with. A projector is read from the back of the room:
/// every format is 16:9 with text of 22/1600 of the width, as the SVG draws it (cairo sizes
/// a point at 96 dpi: the PNG's font scale is 0.75, the PDF's 0.75 × 1152/1600 for 16 inches).
struct PlotTerminal {
  const char* extension;  // lower case, with its dot
  const char* terminal;
};
constexpr PlotTerminal kPlotTerminals[] = {
    {".svg", "svg size 1600,900 fixed enhanced font 'Sans,22' background '#ffffff'"},
    {".png",
     "pngcairo size 1600,900 enhanced font 'Sans,22' fontscale 0.75 pointscale 2.5 background "
     "'#ffffff'"},
    {".pdf", "pdfcairo size 16in,9in enhanced font 'Sans,22' fontscale 0.54 background '#ffffff'"},
};

/// A round tic step (1, 2 or 5 × 10ⁿ) giving about four tics over [0, range]: more crowd
/// the labels in a third of the width.
double tic_step(double range) {
  const double raw = range / 4;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

/// `text` as two lines of about equal length, broken at the space nearest its middle: a
/// label under a third of the chart.
std::string two_lines(std::string text) {
  const std::size_t middle = text.size() / 2;
  const std::size_t before = text.rfind(' ', middle), after = text.find(' ', middle);
  std::size_t at = before;
  if (at == std::string::npos || (after != std::string::npos && after - middle < middle - at))
    at = after;
  if (at != std::string::npos) text[at] = '\n';
  return text;
}

/// One horizontal-bar panel. Bars run from `base` to the value (boxxyerror), one plot element
/// per row so each is a countable, titled mark; the labels are one more element.
struct Panel {
  std::string title, xlabel;
  int column;          // data column with the value
  int label_column;    // data column with the text beside the bar
  bool log = false;    // log scale: bars start at 0.5 (a bar for "1 call" stays visible)
  double max = 0;      // largest value, for the range
  double min_max = 0;  // the range reaches at least this (100 for a percentage)
};

std::string panel_script(const Panel& p, const std::vector<std::string>& rows,
                         const std::vector<std::size_t>& colours, double left, double right,
                         bool names, const std::string& tics) {
  const std::size_t n = rows.size();
  std::string s;
  s += fmt::format("set lmargin at screen {:.3f}\nset rmargin at screen {:.3f}\n", left, right);
  s += fmt::format("set title {} noenhanced\nset xlabel {} noenhanced\n", quote(p.title),
                   quote(p.xlabel));
  if (names)
    s += "set ytics (" + tics + ") noenhanced\n";
  else
    s += "set ytics (\"\" 0)\n";  // rows line up with the first panel's names
  const double base = p.log ? 0.5 : 0;
  const double top = std::max(p.max, p.min_max);
  if (p.log) {
    s += "set logscale x 10\nset xtics autofreq\nset mxtics 1\nset format x '%.0s%c'\n";
    s += fmt::format("set xrange [0.5:{}]\n", number(std::max(10.0, top) * 8));  // room for labels
  } else {
    const double range = top > 0 ? top * 1.45 : 1;
    s += fmt::format("unset logscale x\nset format x '%g'\nset xtics 0, {}\n",
                     number(tic_step(range)));
    s += fmt::format("set xrange [0:{}]\n", number(range));
  }
  s += "plot ";
  for (std::size_t i = 0; i < n; ++i) {
    // x:y:xlow:xhigh:ylow:yhigh, a bar 0.7 rows thick.
    s += fmt::format(
        "$rows every ::{0}::{0} using {1}:1:({2}):{1}:($1-0.35):($1+0.35) "
        "with boxxyerror fc rgb {3} fs solid 0.9 border lc rgb '#333333' title {4} noenhanced, "
        "\\\n  ",
        i, p.column, number(base), quote(kColours[colours[i] % std::size(kColours)]),
        quote(rows[i]));
  }
  s += fmt::format(
      "$rows using (valid({0}) ? ${0} : {1}):1:{2} with labels left offset 0.6,0 "
      "font ',20' noenhanced notitle\n",
      p.column, number(base), p.label_column);
  return s;
}

/// The rows a comparison chart draws: the measured ones in the table's order, grouped by
/// directory with --dir A,B, each with its label and a colour its strategy keeps in every group.
struct ChartRows {
  std::vector<const StrategyResult*> rows;
  std::vector<std::string> names;
  std::vector<std::size_t> colours;
};

ChartRows chart_rows(const RunRecord& rep, SortOrder sort) {
  ChartRows c;
  for (const StrategyResult* r : sorted_rows(rep, sort))
    if (r->status == ResultStatus::kOk) c.rows.push_back(r);
  const std::vector<std::string> dirs = result_dirs(rep.results);
  auto dir_index = [&](const StrategyResult* r) {
    return std::find(dirs.begin(), dirs.end(), r->dir) - dirs.begin();
  };
  std::stable_sort(c.rows.begin(), c.rows.end(),
                   [&](auto* a, auto* b) { return dir_index(a) < dir_index(b); });
  std::vector<std::string> strategies;
  for (const StrategyResult* r : c.rows) {
    auto it = std::find(strategies.begin(), strategies.end(), r->strategy);
    if (it == strategies.end()) it = strategies.insert(it, r->strategy);
    c.colours.push_back(static_cast<std::size_t>(it - strategies.begin()));
    c.names.push_back(dirs.size() > 1 ? fmt::format("{} · {}", r->strategy, r->filesystem)
                                      : r->strategy);
  }
  return c;
}

/// The largest value of each panel: bars' range.
struct ChartMax {
  double time = 0, calls = 0, share = 0;
};

/// The data block: row, time (in `unit`), calls, share, then the three labels. Names stay
/// out of it (quoted tics are safe for any character).
std::string chart_data(const std::vector<const StrategyResult*>& rows, const TimeUnit& unit,
                       ChartMax& max) {
  std::string s = "$rows << EOD\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StrategyResult& r = *rows[i];
    double calls = NAN, share = NAN;
    std::string calls_text = "not traced", share_text = "—";
    if (r.write_calls) {
      calls = static_cast<double>(*r.write_calls);
      calls_text = format_count(*r.write_calls);
      max.calls = std::max(max.calls, calls);
    }
    if (auto pct = syscall_share(r)) {
      share = *pct;
      share_text = fmt::format("{:.0f}%", share);
      max.share = std::max(max.share, share);
    }
    s +=
        fmt::format("{} {} {} {} {} {} {}\n", i, number(r.time_ns.median / unit.ns),
                    number(calls > 0 ? calls : NAN), number(share),
                    quote(format_duration(r.time_ns.median)), quote(calls_text), quote(share_text));
  }
  return s + "EOD\n";
}

}  // namespace

std::string plot_terminal(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::size_t dot = name.rfind('.');
  std::string extension = dot == std::string::npos || dot == 0 ? "" : name.substr(dot);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const PlotTerminal& t : kPlotTerminals)
    if (extension == t.extension) return fmt::format("set terminal {}\n", t.terminal);
  std::vector<std::string> known;
  for (const PlotTerminal& t : kPlotTerminals) known.emplace_back(t.extension);
  throw Error(fmt::format("--plot: {}: not {} (the extension chooses the format)",
                          escape_text(path), readable_list(known, "or")));
}

std::string comparison_plot_script(const RunRecord& rep, const Presentation& pres) {
  const ChartRows c = chart_rows(rep, pres.sort);
  ChartMax max;
  for (auto* r : c.rows) max.time = std::max(max.time, r->time_ns.median);
  const TimeUnit unit = time_unit(max.time);

  std::string s = kScriptStart;
  std::string title =
      !rep.commands.empty()
          ? fmt::format("iobench compare: {} commands · {}", c.rows.size(), runs_text(rep))
          : fmt::format("iobench: {} · {}", lines_text(rep), runs_text(rep));
  s += fmt::format("set multiplot title {} noenhanced font 'Sans,26'\n",
                   quote(title + "\n" + machine(rep)));
  s += "unset key\nset border 3\nset xtics nomirror\nset ytics nomirror scale 0\n"
       "set grid xtics lc rgb '#dddddd'\nset tmargin at screen 0.83\nset bmargin at screen 0.16\n";
  s += fmt::format("set yrange [{}:-0.6]\n", number(static_cast<double>(c.rows.size()) - 0.4));
  std::string tics;
  for (std::size_t i = 0; i < c.names.size(); ++i)
    tics += fmt::format("{}{} {}", i ? ", " : "", quote(c.names[i]), i);
  s += chart_data(c.rows, unit, max);
  // Bars need at least 0.5 on a log axis: a row with 0 calls keeps its label and no bar.
  s += panel_script(
      {"median time", fmt::format("time ({})", unit.name), 2, 5, false, max.time / unit.ns, 0},
      c.names, c.colours, 0.17, 0.40, true, tics);
  s += panel_script({"write calls", "calls (log scale)", 3, 6, true, max.calls, 0}, c.names,
                    c.colours, 0.45, 0.69, false, tics);
  s += panel_script({"% of time", two_lines(share_definition(rep)), 4, 7, false, max.share, 100},
                    c.names, c.colours, 0.74, 0.97, false, tics);
  s += "unset multiplot\n";
  return s;
}

std::string latency_plot_script(const RunRecord& rep, const Presentation& pres) {
  std::vector<const StrategyResult*> rows;
  for (const StrategyResult* r : sorted_rows(rep, pres.sort))
    if (r->status == ResultStatus::kOk && r->latency && !r->latency->cdf.empty()) rows.push_back(r);
  std::string s = kScriptStart;
  s += fmt::format("set title {} noenhanced\n",
                   quote(fmt::format("iobench: write-call latency · {} · traced run, tracer "
                                     "cost subtracted\n{}",
                                     lines_text(rep), machine(rep))));
  s += "set xlabel 'time per call (ns, log scale)'\nset ylabel 'fraction of calls at or below'\n";
  s += "set logscale x 10\nset format x '%.0s%c'\nset yrange [0:1.02]\nset grid\n";
  // Beside the plot, not in it: inside, the key sat on a curve.
  s += "set key outside right top vertical noenhanced\n";
  // The axis starts at the smallest curve's 1st percentile, not at the calls the tracer's
  // cost correction took too much from (1-2 ns): those are not the calls' times.
  double floor_ns = INFINITY;
  for (const StrategyResult* r : rows)
    for (const auto& [ns, q] : r->latency->cdf)
      if (q >= 0.01) {
        floor_ns = std::min(floor_ns, static_cast<double>(ns));
        break;
      }
  if (std::isfinite(floor_ns))
    s += fmt::format("set xrange [{}:*]\n", number(std::max(1.0, floor_ns / 1.25)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s += fmt::format("$cdf{} << EOD\n", i);
    // A log axis has no 0: a call corrected to 0 ns is drawn at 1 ns.
    for (const auto& [ns, q] : rows[i]->latency->cdf)
      s += fmt::format("{} {}\n", number(std::max<double>(1, static_cast<double>(ns))), number(q));
    s += "EOD\n";
  }
  if (rows.empty())
    return s + "set label 'no timed write calls' at graph 0.5,0.5 center\nplot NaN notitle\n";
  s += "plot ";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s += fmt::format("{}$cdf{} using 1:2 with steps lw 3 lc rgb {} title {} noenhanced",
                     i ? ", \\\n  " : "", i, quote(kColours[i % std::size(kColours)]),
                     quote(rows[i]->strategy));
  }
  return s + "\n";
}

}  // namespace iobench
