// What the commands that report a benchmark (run, sweep, compare) assemble before anything
// is rendered: the run record's header — host, build, workload, tracer, facts gathered here
// and never by report/ — and the presentation the flags and stdout's terminal ask for.
#pragma once

#include <cstddef>
#include <string>

#include "model/options.h"
#include "commands/compare.h"
#include "report/reporter.h"

namespace iobench {

/// The record's header for a run of these options, with no results yet. Shared by the
/// strategies' run and sweep so that they describe runs alike.
RunRecord bench_record(const BenchOptions& o);

/// The record's header for `iobench compare`: its commands, no workload or directory.
RunRecord compare_record(const CompareOptions& o);

/// How the table on stdout looks: colour per --color and NO_COLOR, the width per --columns
/// and the terminal, the row order, and --latency's columns.
Presentation stdout_presentation(ColorMode color, SortOrder sort, std::size_t columns,
                                 bool latency);
Presentation bench_presentation(const BenchOptions& o);

/// The options of one directory's run: `o` with dir (and dirs) set to `dir` (--dir A,B).
BenchOptions options_for_dir(const BenchOptions& o, const std::string& dir);

}  // namespace iobench
