#include "commands/baseline_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "check/program_baseline.h"
#include "report/baseline_doc.h"
#include "report/baseline_table.h"
#include "report/escape.h"
#include "report/output_file.h"
#include "report/presentation.h"
#include "report/reporter.h"

namespace iobench {
namespace {

/// Where the programs ran (trace's and compare's commands run in iobench's directory): the
/// files under it are counted by their path relative to it, the same wherever CI checks out.
std::string working_dir() {
  std::error_code err;
  std::string dir = std::filesystem::current_path(err).string();
  return err ? "" : dir;
}

/// --save-baseline: `document` with every row's name and per-file counts.
void save_program_baseline(const std::string& path, const std::string& document, BaselineKind kind,
                           const std::vector<std::string>& names,
                           const std::vector<StrategyResult>& results) {
  const std::string dir = working_dir();
  std::vector<ProgramRow> rows;
  for (std::size_t i = 0; i < names.size() && i < results.size(); ++i)
    rows.push_back(
        {names[i], results[i].trace ? file_write_calls(*results[i].trace, dir) : std::nullopt});
  write_output(path, render_baseline_document(document, kind, rows), "--save-baseline: ");
}

}  // namespace

bool report_comparison(const BaselineComparison& cmp, bool on_stdout,
                       std::vector<JUnitCase>& junit) {
  const std::string text = render_comparison(cmp);
  if (on_stdout)
    write_stdout(text);
  else
    write_stderr(text);
  for (const auto& d : cmp.diffs)
    if (d.regression)
      fmt::print(stderr, "iobench: regression: {}\n",  // the names come from the baseline file
                 escape_text(baseline_diff_line(d)));
  const std::vector<JUnitCase> compared = junit_cases(cmp);
  junit.insert(junit.end(), compared.begin(), compared.end());
  return !cmp.regressed();
}

std::optional<Baseline> load_program_baseline(const ProgramBaselineOptions& o, BaselineKind kind,
                                              const std::vector<std::string>& names, bool traced,
                                              bool trace_all) {
  if (o.compare_with.empty()) return std::nullopt;
  Baseline b = load_baseline(o.compare_with);
  check_comparable(b, kind, names, traced, trace_all);
  return b;
}

bool trace_baseline(const TraceCommandOptions& o, const std::optional<Baseline>& baseline,
                    const TraceRecord& rep, std::vector<JUnitCase>& junit) {
  const std::vector<StrategyResult> results = {traced_program_result(rep.trace)};
  if (!o.baseline.save.empty())
    save_program_baseline(o.baseline.save, render_trace_json(rep), BaselineKind::kTrace, {o.name},
                          results);
  if (!baseline) return true;
  const BaselineComparison cmp =
      compare_programs(*baseline, {o.name}, results, working_dir(), o.baseline.count_tolerance, 0);
  return report_comparison(cmp, /*on_stdout=*/false, junit);
}

bool compare_baseline(const CompareOptions& o, const std::optional<Baseline>& baseline,
                      const RunRecord& rep, std::vector<JUnitCase>& junit) {
  std::vector<std::string> names;
  for (const CompareCommand& c : o.commands) names.push_back(c.baseline_name);
  if (!o.baseline.save.empty())
    save_program_baseline(o.baseline.save, render_json(rep), BaselineKind::kCompare, names,
                          rep.results);
  if (!baseline) return true;
  const BaselineComparison cmp =
      compare_programs(*baseline, names, rep.results, working_dir(), o.baseline.count_tolerance,
                       o.baseline.time_tolerance);
  return report_comparison(cmp, o.format == OutputFormat::kTable, junit);
}

}  // namespace iobench
