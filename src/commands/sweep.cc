// `iobench sweep`: one strategy through the runner at each value of one flag (parsed in
// cli/sweep_cli.cc), then the knee, the table or iobench-sweep/1, and the plot.
#include "commands/sweep.h"

#include <fmt/format.h>

#include <string>

#include "base/error.h"
#include "report/gnuplot.h"
#include "report/plot.h"
#include "report/presentation.h"
#include "report/sweep_report.h"
#include "run/progress.h"
#include "run/runner.h"

namespace iobench {

int run_sweep(const SweepOptions& s) {
  const BenchOptions& first = s.runs.front();
  const Strategy& strategy = *first.strategies.front();
  SweepReport rep;
  rep.strategy = std::string(strategy.name);
  rep.flag = s.flag;
  rep.parameter = s.parameter;
  rep.sizes = s.sizes;
  BenchReport& b = rep.base;
  b = bench_report_header(first);

  {
    Progress progress;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      const std::string label =
          fmt::format("{} {} {}", rep.strategy, s.flag, format_sweep_value(rep, s.values[i]));
      Runner runner(s.runs[i]);  // the value's own options; the same run logic as `iobench`
      runner.set_observer([&](const RunEvent& e) {
        RunEvent named = e;
        named.name = label;
        progress.on_run(named);
      });
      rep.points.push_back({s.values[i], runner.run_one(strategy)});
      b.pinned = runner.tracer_pinned();
      b.tracer_overhead_ns = runner.tracer_overhead_ns();
    }
  }
  // More lines or longer lines take longer by design: a knee would mean nothing.
  if (s.parameter != "lines" && s.parameter != "line_length") rep.knee = find_knee(rep.points);

  write_stdout(first.format == OutputFormat::kJson ? render_sweep_json(rep)
                                                   : render_sweep_table(rep));
  if (!first.plot.empty()) write_plot(first.plot, sweep_plot_script(rep));
  for (const auto& p : rep.points)
    if (p.result.status == ResultStatus::kFailed || p.result.status == ResultStatus::kTimeout)
      return kExitRunFailed;
  return kExitOk;
}

}  // namespace iobench
