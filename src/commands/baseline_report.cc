#include "commands/baseline_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
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

/// --save-baseline of a trace or compare: `document` with every row's name and per-file
/// counts.
void save_program_baseline(const BaselineOptions& o, const std::string& document, BaselineKind kind,
                           const std::vector<std::string>& names,
                           const std::vector<StrategyResult>& results) {
  const std::string dir = working_dir();
  std::vector<ProgramRow> rows;
  for (std::size_t i = 0; i < names.size() && i < results.size(); ++i)
    rows.push_back(
        {names[i], results[i].trace ? file_write_calls(*results[i].trace, dir) : std::nullopt});
  save_baseline(o.save, render_baseline_document(document, kind, rows, o.rules.exact_counts));
}

/// The command line that saves this run's counts as the baseline, kept exact when the
/// baseline alone asked for it (the flag is in the words already when given).
std::string update_command(const BaselineComparison& cmp, const BaselineOptions& o) {
  std::vector<std::string> words = o.update_command;
  if (cmp.exact_counts && !o.rules.exact_counts) {
    const auto save = std::find(words.begin(), words.end(), "--save-baseline");
    words.insert(save, "--exact-counts");
  }
  return shell_words(words);
}

}  // namespace

void save_baseline(const std::string& path, const std::string& document) {
  if (!write_output(path, document, "--save-baseline: ")) return;
  // Read back as --baseline will read it: the line says what the next comparison holds to.
  const Baseline saved = parse_baseline(document, path);
  fmt::print(stderr, "iobench: saved baseline {}{}: {}\n", escape_text(path),
             saved.exact_counts ? " (exact counts)" : "", escape_text(baseline_summary(saved)));
}

bool report_comparison(const BaselineComparison& cmp, const BaselineOptions& o, bool on_stdout,
                       std::vector<JUnitCase>& junit) {
  const std::string text = render_comparison(cmp);
  if (on_stdout)
    write_stdout(text);
  else
    write_stderr(text);
  // The names come from the baseline file or a compare -n: escaped.
  for (const auto& d : cmp.diffs) {
    const std::string line = escape_text(baseline_diff_line(d));
    if (d.regression)
      fmt::print(stderr, "iobench: regression: {}\n", line);
    else if (d.improvement && d.failed)
      fmt::print(stderr, "iobench: changed: {} (an improvement, but the counts are exact)\n", line);
    else if (d.improvement)
      fmt::print(stderr, "iobench: improved: {}\n", line);
  }
  // Only when nothing regressed: saving a regression as the baseline would hide it.
  if (cmp.improved() && !cmp.regressed() && !o.update_command.empty())
    fmt::print(stderr, "iobench: to make these counts the baseline, run in {}: {}\n",
               escape_text(working_dir()), escape_text(update_command(cmp, o)));
  const std::vector<JUnitCase> compared = junit_cases(cmp);
  junit.insert(junit.end(), compared.begin(), compared.end());
  return !cmp.failed();
}

std::optional<Baseline> load_program_baseline(const BaselineOptions& o, BaselineKind kind,
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
    save_program_baseline(o.baseline, render_trace_json(rep), BaselineKind::kTrace, {o.name},
                          results);
  if (!baseline) return true;
  const BaselineComparison cmp =
      compare_programs(*baseline, {o.name}, results, working_dir(), o.baseline.rules);
  return report_comparison(cmp, o.baseline, /*on_stdout=*/false, junit);
}

bool compare_baseline(const CompareOptions& o, const std::optional<Baseline>& baseline,
                      const RunRecord& rep, std::vector<JUnitCase>& junit) {
  std::vector<std::string> names;
  for (const CompareCommand& c : o.commands) names.push_back(c.baseline_name);
  if (!o.baseline.save.empty())
    save_program_baseline(o.baseline, render_json(rep), BaselineKind::kCompare, names, rep.results);
  if (!baseline) return true;
  const BaselineComparison cmp =
      compare_programs(*baseline, names, rep.results, working_dir(), o.baseline.rules);
  return report_comparison(cmp, o.baseline, o.format == OutputFormat::kTable, junit);
}

}  // namespace iobench
