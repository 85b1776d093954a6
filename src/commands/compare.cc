// `iobench compare`: the commands through the runner, each result exported as it lands,
// then the table (or JSON) and the plot.
#include "commands/compare.h"

#include <unistd.h>

#include <memory>

#include "base/error.h"
#include "report/gnuplot.h"
#include "report/plot.h"
#include "report/presentation.h"
#include "report/reporter.h"
#include "report/terminal.h"
#include "run/command_workload.h"
#include "run/host_info.h"
#include "run/progress.h"
#include "run/runner.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

BenchReport compare_report_header(const CompareOptions& o) {
  BenchReport rep;
  rep.host = host_info();
  rep.version = IOBENCH_VERSION;
  rep.build_type = IOBENCH_BUILD_TYPE;
  rep.runs = o.run.runs;
  rep.warmup = o.run.warmup;
  rep.traced = o.run.trace;
  rep.trace_mode = o.run.tracer.mode;
  rep.tracer_backend = o.run.tracer.backend->name;
  rep.color = use_color(o.color, STDOUT_FILENO);
  rep.sort = o.sort;
  rep.columns = table_columns(o.columns, STDOUT_FILENO);
  for (const auto& c : o.commands) rep.commands.push_back({c.name, c.command});
  return rep;
}

}  // namespace

int run_compare(const CompareOptions& o) {
  BenchReport rep = compare_report_header(o);
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
    runner.run_workloads(rows, [&](const StrategyResult& r) {
      rep.results.push_back(r);
      rep.pinned = runner.tracer_pinned();
      // After each command, as a run does after each strategy: a later failure loses nothing.
      write_exports(o.export_json, o.export_csv, o.export_markdown, rep, ExportPass::kAfterResult);
    });
    rep.tracer_overhead_ns = runner.tracer_overhead_ns();
  }
  write_exports(o.export_json, o.export_csv, o.export_markdown, rep, ExportPass::kFinal);

  write_stdout(render(o.format, rep));
  if (!o.plot.empty()) write_plot(o.plot, comparison_plot_script(rep));
  for (const auto& r : rep.results)
    if (r.status != ResultStatus::kOk) return output_exit_status(kExitRunFailed);
  return output_exit_status(kExitOk);
}

}  // namespace iobench
