// A benchmark's record on the way out: stdout and stderr, the export files, the --plot chart.
// Shared by the strategies' run, sweep and compare; what to write is assembled by commands/.
#pragma once

#include <string>

#include "report/output_file.h"  // write_output, for every output file
#include "report/reporter.h"

namespace iobench {

/// Writes a report to stdout. A reader that went away (`iobench sweep ... | head -1`) ends
/// the run quietly with 128 + SIGPIPE, as main's own output does. Any other failure (a full
/// disk, /dev/full) prints one `iobench: error: stdout: ...` line, drops the rest of stdout
/// and makes the exit status 4 (output_exit_status); the run goes on.
void write_stdout(const std::string& text);

/// Writes a report to stderr (trace's table). A failure makes the exit status 4.
void write_stderr(const std::string& text);

/// When write_exports is called: after each result (so a later failure loses nothing), or
/// once at the end of the run.
enum class ExportPass { kAfterResult, kFinal };

/// Writes the --export-json, --export-csv and --export-markdown files (an empty name: not
/// asked for) of a run or a compare, each by write_output: one that fails is reported once
/// and the others are still written. kAfterResult writes only regular files; a stream
/// (is_stream_output) takes its one document at kFinal, which writes every file again.
void write_exports(const std::string& json, const std::string& csv, const std::string& markdown,
                   const RunRecord& rep, const Presentation& pres, ExportPass pass);

/// Draws the comparison chart (the latency CDFs with pres.latency) to `path`; nothing when
/// it is empty (--plot not given).
void write_comparison_plot(const std::string& path, const RunRecord& rep, const Presentation& pres);

}  // namespace iobench
