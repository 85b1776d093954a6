// `iobench [run]`: the chosen strategies through the runner, each result exported as it
// lands, then the table, the expectations and the baseline comparison.
#include "commands/bench.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>

#include "base/error.h"
#include "check/baseline.h"
#include "commands/baseline_report.h"
#include "commands/report_setup.h"
#include "report/baseline_doc.h"
#include "report/dirs.h"
#include "report/junit.h"
#include "report/live_table.h"
#include "report/noise_note.h"
#include "report/presentation.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "report/verdicts.h"
#include "run/runner.h"

namespace iobench {

namespace {

/// The comparison with the baseline (commands/baseline_report.h). False on a regression.
bool report_baseline(const Baseline& baseline, const BenchOptions& o, const RunRecord& rep,
                     std::vector<JUnitCase>& junit) {
  const BaselineComparison cmp = compare_with_baseline(baseline, rep, o.baseline.rules);
  return report_comparison(cmp, o.baseline, o.format == OutputFormat::kTable, junit);
}

/// What bare `iobench` is about to run, in one line that fits 80 columns.
std::string announcement(const BenchOptions& o) {
  return fmt::format("iobench: running {} strategies × {} lines in {} · Ctrl-C stops · --help\n",
                     o.strategies.size(), format_count(o.params.lines), o.dir);
}

}  // namespace

int run_bench(const BenchOptions& o) {
  // Read the baseline first: a bad one is a usage error, found before anything runs.
  std::optional<Baseline> baseline;
  if (!o.baseline.compare_with.empty()) {
    baseline = load_baseline(o.baseline.compare_with);
    check_comparable(*baseline, o);
  }

  RunRecord rep = bench_record(o);
  const Presentation pres = bench_presentation(o);
  if (std::string(IOBENCH_BUILD_TYPE) != "Release" &&
      std::string(IOBENCH_BUILD_TYPE) != "RelWithDebInfo")
    fmt::print(stderr,
               "iobench: warning: built without optimisation ({}): it measures the wrong thing\n",
               IOBENCH_BUILD_TYPE);
  Progress progress;  // on stderr, only when it is a terminal
  if (o.bare) Progress::print_line(announcement(o));
  LiveTable live(o.format, progress);
  for (const std::string& dir : o.dirs.empty() ? std::vector<std::string>{o.dir} : o.dirs) {
    const BenchOptions one = options_for_dir(o, dir);  // --dir A,B: A's rows, then B's
    Runner runner(one.run, one.strategies, one.params, one.dir);
    runner.set_observer(progress.observer());
    runner.set_notice_sink(progress.notices());
    runner.run([&](const StrategyResult& r) {
      rep.results.push_back(r);
      rep.pinned = runner.tracer_pinned();
      rep.tracer_overhead_ns = runner.tracer_overhead_ns();
      // After each strategy: a later failure loses nothing.
      write_exports(o.export_json, o.export_csv, o.export_markdown, rep, pres,
                    ExportPass::kAfterResult);
      live.update(rep, pres);
    });
  }
  live.clear();
  write_exports(o.export_json, o.export_csv, o.export_markdown, rep, pres, ExportPass::kFinal);
  progress.finish();
  if (!o.baseline.save.empty())
    save_baseline(o.baseline.save, render_baseline_document(render_json(rep), BaselineKind::kRun,
                                                            {}, o.baseline.rules.exact_counts));
  write_stdout(screen_sized(
      o.notes, pres, [&](const Presentation& p) { return render_by_dir(o.format, rep, p); }));
  print_noise_note(noise_note(rep));
  write_comparison_plot(o.plot, rep, pres);

  int status = kExitOk;
  for (const auto& r : rep.results)
    if (r.status == ResultStatus::kFailed || r.status == ResultStatus::kTimeout)
      status = kExitRunFailed;
  const std::vector<ExpectationOutcome> verdicts = check_expectations(o.expectations, rep.results);
  if (!report_expectations(verdicts, o.format == OutputFormat::kTable)) status = kExitCheckFailed;
  std::vector<JUnitCase> junit = junit_cases(verdicts);
  if (baseline && !report_baseline(*baseline, o, rep, junit)) status = kExitCheckFailed;
  // Written whatever the verdicts: a failed check is exactly what a CI dashboard must show.
  if (!o.export_junit.empty())
    write_output(o.export_junit, render_junit("iobench", junit), "--export-junit: ");
  return output_exit_status(status);  // 4 when a file or stdout could not be written
}

}  // namespace iobench
