// What a benchmark's results look like on the way out: the table's colour and order, the
// facts its footnotes need, the --plot chart. Shared by the strategies' run, sweep and compare.
#pragma once

#include <cstdint>
#include <string>

#include "cli/options.h"
#include "report/output_file.h"  // write_output, for every output file
#include "report/reporter.h"

namespace iobench {

/// st_blksize of a file in dir: the buffer glibc gives a FILE* there. 0 when unknown.
std::uint64_t io_block_size(const std::string& dir);

/// Sets rep's colour (for stdout, per --color and NO_COLOR), row order and block size.
void set_presentation(const BenchOptions& o, BenchReport& rep);

/// The report's header for a run of these options: host, build, workload, tracer, and the
/// presentation above. Shared by the strategies' run and sweep so they describe runs alike.
BenchReport bench_report_header(const BenchOptions& o);

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
                   const BenchReport& rep, ExportPass pass);

/// Draws the comparison chart to o.plot; nothing when --plot was not given.
void write_comparison_plot(const BenchOptions& o, const BenchReport& rep);

}  // namespace iobench
