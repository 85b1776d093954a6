// iobench's entry point: one run() with one error exit, as hyperfine does. It only
// dispatches: each command is one run_<command>() in src/commands/.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>
#include <variant>

#include "base/capabilities.h"
#include "base/environment.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "base/process.h"
#include "base/unique_fd.h"
#include "check/baseline.h"
#include "cli/cli.h"
#include "commands/bench.h"
#include "commands/compare.h"
#include "commands/sweep.h"
#include "commands/trace.h"
#include "report/dirs.h"
#include "report/escape.h"
#include "report/live_table.h"
#include "report/presentation.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "run/host_info.h"
#include "run/runner.h"
#include "strategies/registry.h"
#include "strategies/support/line_format.h"
#include "tracer/bpf_clock.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"

namespace iobench {
namespace {

int run(int argc, char** argv) {
  install_interrupt_handlers();
  Command cmd = parse_command_line(argc, argv);
  if (auto* help = std::get_if<HelpCommand>(&cmd)) {
    write_stdout(help->text);
    return output_exit_status(kExitOk);
  }
  if (std::holds_alternative<VersionCommand>(cmd)) {
    // Whether --tracer bpf can be had from this binary at all (README "kernel clock").
    const std::string bpf =
        tracing::bpf_clock_built() ? std::string("built") : tracing::bpf_clock_unavailable_reason();
    write_stdout(fmt::format("iobench {} ({})\nkernel clock (bpf): {}\n", IOBENCH_VERSION,
                             IOBENCH_BUILD_TYPE, bpf));
    return output_exit_status(kExitOk);
  }
  if (std::holds_alternative<ListCommand>(cmd)) {
    std::string out;
    for (const Strategy* s : all_strategies())
      out += fmt::format("{:<18} {}\n", s->name, s->description);
    write_stdout(out);
    return output_exit_status(kExitOk);
  }
  require_proc_of_our_pid_namespace();  // every command below runs and follows children
  if (auto* trace = std::get_if<TraceCommandOptions>(&cmd)) return run_trace(*trace);
  if (auto* sweep = std::get_if<SweepOptions>(&cmd)) return run_sweep(*sweep);
  if (auto* compare = std::get_if<CompareOptions>(&cmd)) return run_compare(*compare);
  return run_bench(std::get<BenchOptions>(cmd));
}

}  // namespace
}  // namespace iobench

int main(int argc, char** argv) {
  iobench::keep_user_environment();  // before anything reads it
  iobench::lower_capabilities();     // setcap'd: effective only while a backend needs them
  try {
    return iobench::run(argc, argv);
  } catch (const iobench::Error& e) {
    // Messages name paths and commands from outside: escaped, so they stay one inert line.
    if (*e.what())
      std::fprintf(stderr, "iobench: error: %s\n", iobench::escape_text(e.what()).c_str());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iobench: error: %s\n", iobench::escape_text(e.what()).c_str());
    return iobench::kExitRunFailed;
  }
}
