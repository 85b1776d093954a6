// `iobench sweep`: one strategy through the runner at each value of one flag (parsed in
// cli/sweep_cli.cc), then the knee, the table or iobench-sweep/1, and the plot.
#include "commands/sweep.h"

#include <fmt/format.h>

#include <string>

#include "base/error.h"
#include "commands/report_setup.h"
#include "report/dirs.h"
#include "report/gnuplot.h"
#include "report/noise_note.h"
#include "report/plot.h"
#include "report/presentation.h"
#include "report/progress.h"
#include "report/sweep_report.h"
#include "run/runner.h"

namespace iobench {

namespace {

/// The sweep in one directory: every value in turn, in `dir`.
SweepReport sweep_in(const SweepOptions& s, const std::string& dir) {
  const BenchOptions first = options_for_dir(s.runs.front(), dir);
  const Strategy& strategy = *first.strategies.front();
  SweepReport rep;
  rep.strategy = std::string(strategy.name);
  rep.flag = s.flag;
  rep.parameter = s.parameter;
  rep.sizes = s.sizes;
  RunRecord& b = rep.base;
  b = bench_record(first);

  {
    Progress progress;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      const std::string label =
          fmt::format("{} {} {}", rep.strategy, s.flag, format_sweep_value(rep, s.values[i]));
      const BenchOptions point = options_for_dir(s.runs[i], dir);
      // The value's own options; the same run logic as `iobench`.
      Runner runner(point.run, point.strategies, point.params, point.dir);
      runner.set_observer([&](const RunEvent& e) {
        RunEvent named = e;
        named.name = label;
        progress.on_run(named);
      });
      runner.set_notice_sink(progress.notices());
      rep.points.push_back({s.values[i], runner.run_one(strategy)});
      b.pinned = runner.tracer_pinned();
      b.tracer_overhead_ns = runner.tracer_overhead_ns();
    }
  }
  // More lines or longer lines take longer by design: a knee would mean nothing.
  if (s.parameter != "lines" && s.parameter != "line_length") rep.knee = find_knee(rep.points);
  return rep;
}

}  // namespace

int run_sweep(const SweepOptions& s) {
  const BenchOptions& first = s.runs.front();
  std::vector<SweepReport> reps;
  for (const std::string& dir :
       first.dirs.empty() ? std::vector<std::string>{first.dir} : first.dirs)
    reps.push_back(sweep_in(s, dir));

  const auto render = [&](const Presentation& pres) {
    if (first.format == OutputFormat::kJson) return render_sweep_json(reps);
    std::string out;
    for (const SweepReport& rep : reps) {
      if (reps.size() > 1)  // --dir A,B: a block per directory, as a run's table has
        out += fmt::format("{}━━ {} ━━\n", out.empty() ? "" : "\n",
                           dir_title(rep.base.filesystem, rep.base.dir));
      out += render_sweep_table(rep, pres);
    }
    return out;
  };
  write_stdout(screen_sized(first.notes, bench_presentation(first), render));
  for (const SweepReport& rep : reps) print_noise_note(sweep_noise_note(rep, reps.size() > 1));
  if (!first.plot.empty()) write_plot(first.plot, sweep_plot_script(reps.front()));
  for (const SweepReport& rep : reps)
    for (const auto& p : rep.points)
      if (p.result.status == ResultStatus::kFailed || p.result.status == ResultStatus::kTimeout)
        return output_exit_status(kExitRunFailed);
  return output_exit_status(kExitOk);
}

}  // namespace iobench
