// Filesystems side by side: `--dir A,B` runs the same benchmark in each directory, one
// result set per directory (each row carries its dir and filesystem), and shows one block
// per directory headed by its filesystem type and path.
#pragma once

#include <string>
#include <vector>

#include "report/reporter.h"

namespace iobench {

/// --dir's comma list, in the order given. Throws Error (exit 2) on an empty name or a
/// directory given twice. Does not look at the directories (cli.cc checks each).
std::vector<std::string> parse_dirs(const std::string& text);

/// The directories the rows ran in, in order of first appearance ("" for rows with none).
std::vector<std::string> result_dirs(const std::vector<StrategyResult>& results);

/// `rep` with only the rows of `dir`, and dir and filesystem naming it.
RunRecord dir_block(const RunRecord& rep, const std::string& dir);

/// "tmpfs · /dev/shm": the title of a directory's block, escaped as a table cell is.
std::string dir_title(const std::string& filesystem, const std::string& dir);

/// render(format, rep, pres), but one block per directory for the table and Markdown when the rows
/// ran in more than one. JSON and CSV stay one document: each row says where it ran.
std::string render_by_dir(OutputFormat format, const RunRecord& rep, const Presentation& pres);

}  // namespace iobench
