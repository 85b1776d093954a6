#include "report/baseline_doc.h"

#include <nlohmann/json.hpp>

#include "report/json_result.h"

namespace iobench {

std::string render_baseline_document(const std::string& document, BaselineKind kind,
                                     const std::vector<ProgramRow>& rows, bool exact_counts) {
  // The text dump_json wrote parses back to the same values, so the export's members stay
  // exactly as --export-json writes them; only `baseline` is added.
  nlohmann::json doc = nlohmann::json::parse(document);
  nlohmann::json saved = {{"kind", to_string(kind)}, {"exact_counts", exact_counts}};
  if (kind != BaselineKind::kRun) {
    nlohmann::json named = nlohmann::json::array();
    for (const ProgramRow& row : rows)
      named.push_back({{"name", row.name},
                       {"file_calls", row.file_calls ? nlohmann::json(*row.file_calls)
                                                     : nlohmann::json(nullptr)}});
    saved["rows"] = named;
  }
  doc["baseline"] = saved;
  return dump_json(std::move(doc));
}

}  // namespace iobench
