#include "report/baseline_doc.h"

#include <nlohmann/json.hpp>

#include "report/json_result.h"

namespace iobench {

std::string render_baseline_document(const std::string& document, BaselineKind kind,
                                     const std::vector<ProgramRow>& rows) {
  // The text dump_json wrote parses back to the same values, so the export's members stay
  // exactly as --export-json writes them; only `baseline` is added.
  nlohmann::json doc = nlohmann::json::parse(document);
  nlohmann::json saved = nlohmann::json::array();
  for (const ProgramRow& row : rows)
    saved.push_back({{"name", row.name},
                     {"file_calls",
                      row.file_calls ? nlohmann::json(*row.file_calls) : nlohmann::json(nullptr)}});
  doc["baseline"] = {{"kind", to_string(kind)}, {"rows", saved}};
  return dump_json(std::move(doc));
}

}  // namespace iobench
