// Parts every chart script shares (plot.cc, sweep_plot.cc): gnuplot's strings and numbers,
// the colours, a time axis' unit, and the words of a title (N, the runs, the filesystems,
// the machine). What each chart shows is its own file's job.
#pragma once

#include <string>
#include <vector>

#include "report/reporter.h"

namespace iobench {

/// Every script's first line: names and titles are UTF-8.
inline constexpr const char* kScriptStart = "set encoding utf8\n";
// Colour-blind-safe categorical colours (Paul Tol's "bright" and "muted"), one per row,
// kept by the row's place in the report so a strategy has one colour in every panel.
inline constexpr const char* kColours[] = {"#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE",
                                           "#AA3377", "#777777", "#332288", "#117733", "#882255"};

/// A gnuplot double-quoted string. Every text element is also marked noenhanced, so names
/// like writer_c print as written. A backquote is escaped too: gnuplot runs `...` as a shell
/// command even inside double quotes, and names come from outside. Each line is shown as
/// the table shows a name (report/escape.h: no control byte or invalid UTF-8 in the SVG,
/// which is XML); a newline stays gnuplot's `\n`.
std::string quote(const std::string& s);

/// A number in a script or data block: six significant digits, NaN (no point, no bar) when
/// it is not finite.
std::string number(double v);

/// The unit a time axis reads in: nanoseconds per unit and its name.
struct TimeUnit {
  double ns;
  const char* name;
};
TimeUnit time_unit(double max_ns);

/// "a", "a and b", "a, b and c" (with `word` "and" or "or"): a list a title reads aloud.
std::string readable_list(const std::vector<std::string>& items, const char* word);

/// The record's filesystem types (--dir A,B joins them with commas), each once, as a list.
std::string filesystems_text(const std::string& joined);

/// A title's second line: the CPU, how many, and the kernel.
std::string machine(const RunRecord& rep);

/// "median of N runs".
std::string runs_text(const RunRecord& rep);

/// "N lines (size) on ext4": what each run wrote, and where.
std::string lines_text(const RunRecord& rep);

}  // namespace iobench
