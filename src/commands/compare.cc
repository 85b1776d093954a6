// `iobench compare`: the commands through the runner, each result exported as it lands,
// then the table (or JSON), the plot and the baseline comparison.
#include "commands/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "commands/baseline_report.h"
#include "commands/report_setup.h"
#include "report/junit.h"
#include "report/noise_note.h"
#include "report/output_file.h"
#include "report/presentation.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "run/command_workload.h"
#include "run/runner.h"

namespace iobench {

int run_compare(const CompareOptions& o) {
  // Read first: a bad or incomparable baseline is a usage error, found before anything runs.
  std::vector<std::string> names;
  for (const CompareCommand& c : o.commands) names.push_back(c.baseline_name);
  const std::optional<Baseline> baseline = load_program_baseline(
      o.baseline, BaselineKind::kCompare, names, o.run.trace, o.run.tracer.trace_all);
  RunRecord rep = compare_record(o);
  const Presentation pres = stdout_presentation(o.color, o.sort, o.columns, false, o.notes);
  std::vector<std::unique_ptr<CommandWorkload>> commands;
  std::vector<Workload*> rows;
  for (const auto& c : o.commands) {
    commands.push_back(std::make_unique<CommandWorkload>(c.name, c.program, c.argv, o.show_output));
    rows.push_back(commands.back().get());
  }
  {
    Runner runner(o.run);
    Progress progress;  // on stderr, only when it is a terminal
    runner.set_observer(progress.observer());
    runner.set_notice_sink(progress.notices());
    runner.run_workloads(rows, [&](const StrategyResult& r) {
      rep.results.push_back(r);
      rep.pinned = runner.tracer_pinned();
      // After each command, as a run does after each strategy: a later failure loses nothing.
      write_exports(o.export_json, o.export_csv, o.export_markdown, rep, pres,
                    ExportPass::kAfterResult);
    });
    rep.tracer_overhead_ns = runner.tracer_overhead_ns();
  }
  write_exports(o.export_json, o.export_csv, o.export_markdown, rep, pres, ExportPass::kFinal);

  write_stdout(
      screen_sized(o.notes, pres, [&](const Presentation& p) { return render(o.format, rep, p); }));
  print_noise_note(noise_note(rep));
  write_comparison_plot(o.plot, rep, pres);
  std::vector<JUnitCase> junit;
  const bool passed = compare_baseline(o, baseline, rep, junit);
  // Written whatever the verdicts: a regression is exactly what a CI dashboard must show.
  if (!o.export_junit.empty())
    write_output(o.export_junit,
                 render_junit(fmt::format("iobench compare {}", fmt::join(names, " ")), junit),
                 "--export-junit: ");
  for (const auto& r : rep.results)
    if (r.status != ResultStatus::kOk) return output_exit_status(kExitRunFailed);
  return output_exit_status(passed ? kExitOk : kExitCheckFailed);
}

}  // namespace iobench
