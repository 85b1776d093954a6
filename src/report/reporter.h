// Reporters are pure functions from a run record to bytes (hyperfine's exporters); where the
// bytes go is the caller's job. All of them are fed the same RunRecord; those that present
// it (the terminal table) also take a Presentation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/options.h"
#include "model/run_record.h"

namespace iobench {

/// How a record is shown, handed to the renderers that present (the terminal table, the
/// charts) and never stored with it: the commands decide it from the flags and the terminal.
/// The text after a table: in full, each note cut to one line (a terminal shorter than the
/// output), or none but the summary and failures (--brief).
enum class Notes { kFull, kOneLine, kNone };

struct Presentation {
  bool color = false;    // escape codes
  bool latency = false;  // --latency: the write calls' p50/p99/max columns, the latency chart
  // The table so far of a run still going: the rows, no summary or notes (live_table.h).
  bool live = false;
  SortOrder sort = SortOrder::kRegistry;
  std::size_t columns = 0;  // the width to fit; 0: no limit, as when piped
  Notes notes = Notes::kFull;
};

std::string render_table(const RunRecord& record, const Presentation& presentation);
std::string render_json(const RunRecord& report);
std::string render_csv(const RunRecord& record, const Presentation& presentation);
std::string render_markdown(const RunRecord& record, const Presentation& presentation);
/// `presentation.columns` > 0: a long file name loses its middle so that every row fits.
std::string render_trace_table(const TraceRecord& report, const Presentation& presentation = {});
std::string render_trace_json(const TraceRecord& report);
/// A file's calls that return a byte count, summed (trace_table.cc): whether its bytes are
/// known (calls > 0, !returns_unknown) and whether they are an estimate.
SyscallStats data_moved(const FileStats& file);

/// An output format, declared once: its --format names and what renders it. Adding one is a
/// render_<format>() in its own report/<format>.cc, its OutputFormat value, and its line in
/// the list (reporter.cc); --format, render() and the help read them from there.
struct FormatInfo {
  OutputFormat format;
  const char* name;   // --format NAME
  const char* alias;  // another name it answers to, or nullptr
  std::string (*bench)(const RunRecord&, const Presentation&);  // a run's, compare's rows
  // `iobench trace`'s, if it renders it.
  std::string (*trace)(const TraceRecord&, const Presentation&) = nullptr;
};
/// Every format, in the order --format's help and errors name them.
const std::vector<FormatInfo>& output_formats();
/// The format named `name` (or its alias), or nullptr.
const FormatInfo* find_format(const std::string& name);
/// "table, json, csv, markdown": the formats' names (only those `iobench trace` renders
/// when `trace`).
std::string format_names(bool trace);

std::string render(OutputFormat format, const RunRecord& record, const Presentation& presentation);
/// A format trace does not render gives its table (the CLI refuses such a format first).
std::string render(OutputFormat format, const TraceRecord& report,
                   const Presentation& presentation = {});

/// "5 untraced runs", "1 run": `noun` counted as --runs asked. With --runs auto, the
/// fewest and most samples a row got ("5–37 untraced runs"), or "5 or more" before any row.
std::string run_count_text(const RunRecord& report, const std::string& noun);

/// Units for people: 1.23 ms, 64.0 KiB, 100,000.
std::string format_duration(double ns);
std::string format_bytes(double bytes);
std::string format_count(std::uint64_t n);

}  // namespace iobench
