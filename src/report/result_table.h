// The one results table behind the strategies' table, `iobench compare` and `iobench sweep`:
// write calls with a log bar, bytes per call, the median with its spread and a linear bar,
// a relative column, syscall time and its share, CPU and faults. A caller fills one
// ResultRow per result and names its first and relative columns; every other column, its
// plain values for CSV, the cells of a row that did not run, and the notes and failure lines
// are described here once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "report/grid.h"
#include "report/reporter.h"

namespace iobench {

/// One result as a table row: the result, and what differs from table to table.
struct ResultRow {
  const StrategyResult* result = nullptr;
  GridCell name;                        // the first column: strategy, command or swept value
  GridCell relative;                    // "vs" the reference, time per line or per KiB
  const char* time_sgr = style::kNone;  // the time bar's colour
  std::string label;                    // in notes and failure lines: a name, "--flag value"
};

/// The row ran (status ok): its cells show figures; otherwise its status and dashes.
bool ran(const ResultRow& row);

/// The shared columns, from the first column's header to faults. The bars are scaled to the
/// largest time and write-call count among the rows that ran. The drop ranks say what a
/// narrow terminal gives up first (highest first): the bars narrow, then faults, CPU, spread,
/// bytes/call, the bars, syscall time, share; never the name, the calls, the median or the
/// relative column, which are the table's message. Each column carries its plain values
/// (CSV's keys); the relative column's are the caller's, `relative_fields`.
std::vector<Column<ResultRow>> result_columns(const std::vector<ResultRow>& rows, GridColumn name,
                                              GridColumn relative,
                                              std::vector<Field<ResultRow>> relative_fields = {});

/// A figure in plain units for CSV: "" when absent.
std::string plain(std::optional<double> v);

/// --latency: the write calls' p50, p99 and max, "—" where a row has none.
std::vector<Column<ResultRow>> latency_columns();

/// The notes the rows that ran call for, in this order: share_note's (a share could not be
/// trusted, once per whole it was over), kLostNote (a syscall time was lost).
std::vector<std::string> result_notes(const std::vector<ResultRow>& rows);

/// "<label>: <status>: <error>" in the status' colour for each row that did not run.
std::vector<std::string> failure_lines(const std::vector<ResultRow>& rows, bool color);

/// The heading (the work `what`, the runs, the machine) and the grid, fitted to pres.columns.
std::string render_result_grid(const RunRecord& rep, const Presentation& pres,
                               const std::string& what, const char* per,
                               const std::vector<Column<ResultRow>>& cols,
                               const std::vector<ResultRow>& rows);

/// What closes every results table: where each number came from, then the failure lines.
std::string render_result_footer(const RunRecord& rep, const Presentation& pres, const char* per,
                                 const std::vector<std::string>& failures);

}  // namespace iobench
