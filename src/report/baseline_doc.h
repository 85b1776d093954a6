// --save-baseline: the document --export-json writes, plus a `baseline` member that says
// which command saved it, whether its counts are exact and (trace, compare) names each row
// (check/baseline.h reads it back), so one file is both the export and the baseline.
#pragma once

#include <string>
#include <vector>

#include "check/baseline.h"
#include "check/program_baseline.h"

namespace iobench {

/// `document` (render_json's or render_trace_json's text) with "baseline": {"kind":
/// "run"|"trace"|"compare", "exact_counts": bool} added, and for a trace or compare
/// "rows": [{"name", "file_calls"}].
std::string render_baseline_document(const std::string& document, BaselineKind kind,
                                     const std::vector<ProgramRow>& rows, bool exact_counts);

}  // namespace iobench
