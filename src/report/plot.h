// Charts as gnuplot scripts: pure functions from results to a script drawn for a projector
// (large fonts, labelled axes with units, a title naming N and the machine). The script names
// no terminal: --plot FILE's extension chooses it (plot_terminal). Running gnuplot is the
// caller's job (report/gnuplot.h).
//
// Every bar or point is its own gnuplot plot element titled with its strategy, command or
// value, so the SVG holds one <g id="gnuplot_plot_..."><title>NAME</title> per mark and
// panel: a test (or a script) can count them.
#pragma once

#include <string>

#include "report/reporter.h"
#include "report/sweep_report.h"

namespace iobench {

/// The gnuplot `set terminal` command (a line) for --plot FILE, by FILE's extension: .svg,
/// .png (pngcairo) or .pdf (pdfcairo), in any case. Throws Error (exit 2) for any other
/// extension or none.
std::string plot_terminal(const std::string& path);

/// Three panels of horizontal bars, one bar per measured row: median time, write calls (log
/// scale) and the share of the median time spent in those calls; the bars in --sort order.
std::string comparison_plot_script(const RunRecord& rep, const Presentation& pres);

/// One cumulative distribution per traced row (its write calls' corrected per-call times,
/// log x): what --plot draws with --latency.
std::string latency_plot_script(const RunRecord& rep, const Presentation& pres);

/// Two log–log panels against the swept value: write calls and median time, the knee marked.
std::string sweep_plot_script(const SweepReport& rep);

}  // namespace iobench
