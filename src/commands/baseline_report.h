// Baselines as the commands use them: read and judged comparable before anything runs,
// saved and compared after, the comparison shown and its JUnit cases added. The run (bench),
// `trace` and `compare` share these, so each saves and shows a comparison the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check/baseline.h"
#include "model/options.h"
#include "model/run_record.h"
#include "report/junit.h"

namespace iobench {

/// Writes `document` (the command's JSON, with its `baseline` member) to --save-baseline and
/// says on stderr, in one line, what the file now holds, as the next --baseline reads it.
void save_baseline(const std::string& path, const std::string& document);

/// The comparison's table: on stdout when `on_stdout` (under a table), else stderr, away from
/// the data; each regression, improvement and exact-count change on stderr, and, when
/// nothing regressed but a count fell, the command that saves the new counts as the baseline
/// (`o.update_command`); its JUnit cases added. False when a value failed the check.
bool report_comparison(const BaselineComparison& cmp, const BaselineOptions& o, bool on_stdout,
                       std::vector<JUnitCase>& junit);

/// The --baseline of `trace` or `compare` (`kind`), read and found comparable with a run of
/// `names` (exit 2 otherwise), or nullopt when none was given.
std::optional<Baseline> load_program_baseline(const BaselineOptions& o, BaselineKind kind,
                                              const std::vector<std::string>& names, bool traced,
                                              bool trace_all);

/// trace's baseline after the run: saved (--save-baseline) and compared (--baseline), the
/// table on stderr as trace's own. False when a value failed the check.
bool trace_baseline(const TraceCommandOptions& o, const std::optional<Baseline>& baseline,
                    const TraceRecord& rep, std::vector<JUnitCase>& junit);

/// compare's: the same for its rows (named by each command's baseline_name); the table on
/// stdout under compare's table.
bool compare_baseline(const CompareOptions& o, const std::optional<Baseline>& baseline,
                      const RunRecord& rep, std::vector<JUnitCase>& junit);

}  // namespace iobench
