// What the commands that report a benchmark (run, sweep, compare) assemble before anything
// is rendered: the run record's header — host, build, workload, tracer, facts gathered here
// and never by report/ — and the presentation the flags and stdout's terminal ask for.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "commands/compare.h"
#include "model/options.h"
#include "report/reporter.h"

namespace iobench {

/// The record's header for a run of these options, with no results yet. Shared by the
/// strategies' run and sweep so that they describe runs alike.
RunRecord bench_record(const BenchOptions& o);

/// The record's header for `iobench compare`: its commands, no workload or directory.
RunRecord compare_record(const CompareOptions& o);

/// How the table on stdout looks: colour per --color and NO_COLOR, the width per --columns
/// and the terminal, the row order, and --latency's columns.
Presentation stdout_presentation(ColorMode color, SortOrder sort, std::size_t columns, bool latency,
                                 NotesMode notes);
Presentation bench_presentation(const BenchOptions& o);

/// `render(pres)`; by default (NotesMode::kAuto), on a terminal with fewer rows than its
/// lines, rendered again with each note cut to one line, so that the heading and the first
/// rows stay on the screen. Piped, everything.
std::string screen_sized(NotesMode mode, Presentation pres,
                         const std::function<std::string(const Presentation&)>& render);

/// The options of one directory's run: `o` with dir (and dirs) set to `dir` (--dir A,B).
BenchOptions options_for_dir(const BenchOptions& o, const std::string& dir);

}  // namespace iobench
