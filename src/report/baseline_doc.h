// --save-baseline of `trace` and `compare`: the document --export-json writes, plus a
// `baseline` member that says which command saved it and names each row (check/baseline.h
// reads it back), so one file is both the export and the baseline.
#pragma once

#include <string>
#include <vector>

#include "check/baseline.h"
#include "check/program_baseline.h"

namespace iobench {

/// `document` (render_json's or render_trace_json's text) with
/// "baseline": {"kind": "trace"|"compare", "rows": [{"name", "file_calls"}]} added.
std::string render_baseline_document(const std::string& document, BaselineKind kind,
                                     const std::vector<ProgramRow>& rows);

}  // namespace iobench
