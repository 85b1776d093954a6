// The JSON object of one result row, as `iobench/1` writes it in results[]: shared by every
// document that carries results (iobench/1, iobench-sweep/1), so a row reads the same in each.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/result.h"
#include "report/reporter.h"

namespace iobench {

nlohmann::json result_json(const StrategyResult& r);

/// The `config` object of a document: the run's size, knobs and tracer. One function, so
/// `iobench/1` and `iobench-sweep/1` (which nulls its swept knob) carry the same keys.
nlohmann::json config_json(const RunRecord& rep);
/// config.runs: the number --runs gave, or "auto" (each row's samples say how many it got).
nlohmann::json runs_json(std::optional<int> runs);

/// The text of a document, indented by 2 and ending in a newline: the one way every JSON
/// iobench writes is serialised (README "The JSON document", names and odd bytes). A string
/// that is not valid UTF-8 is written with each invalid byte as U+FFFD, and the member that
/// holds it (or the array that holds it) gets a sibling `<key>_raw` with the exact bytes in
/// escape_text's form (report/escape.h), so nothing is lost and the document always parses.
std::string dump_json(nlohmann::json doc);

}  // namespace iobench
