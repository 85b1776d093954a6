// The results of a run (strategies, or `compare`'s commands) as rows and columns: the one
// model the terminal table, Markdown and CSV all draw, so a column added here shows in each.
#pragma once

#include <vector>

#include "report/reporter.h"
#include "report/result_table.h"

namespace iobench {

/// One row per result, "vs" the summary's reference (green where a row beats it, red where
/// it loses: readable from the back row); in --sort order when `sorted`, else as run.
std::vector<ResultRow> bench_rows(const RunRecord& rep, const Presentation& pres, bool sorted);

/// result_columns named for the rows (strategy or command, "vs" the reference), and the
/// latency columns with --latency. The "vs" column's plain values: the reference's name and
/// the speedup, its median over this row's (2 = twice as fast).
std::vector<Column<ResultRow>> bench_columns(const RunRecord& rep, const Presentation& pres,
                                             const std::vector<ResultRow>& rows);

}  // namespace iobench
