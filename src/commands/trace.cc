// `iobench trace -- CMD`: resolve the command in the parent, run it under the chosen
// backend, then the report (stderr or -o; JSON on stdout), expectations and the exit status.
#include "commands/trace.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/command_exec.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "base/program_path.h"
#include "commands/baseline_report.h"
#include "report/escape.h"
#include "report/junit.h"
#include "report/presentation.h"
#include "report/reporter.h"
#include "report/terminal.h"
#include "report/verdicts.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

/// Runs the command under the chosen backend: rep.trace, and rep.error when exec failed.
void trace_command(const TraceCommandOptions& o, const CommandExec& command, TraceRecord& rep) {
  const std::function<int()> exec_command = [&]() noexcept { return command.exec(); };
  // Ctrl-C as strace does it (README "Ctrl-C"): the first is the command's to handle, and
  // its handler's writes are counted; a second one interrupts iobench.
  TracerOptions tracer = o.tracer;
  tracer.command_gets_first_interrupt = true;
  rep.trace = make_counting_backend(tracer)->run(exec_command, o.timeout);
  rep.never_ran = command.failed_errno() != 0;
  if (rep.never_ran) rep.error = command.failure();
}

}  // namespace

int run_trace(const TraceCommandOptions& o) {
  // Read first: a bad or incomparable baseline is a usage error, found before anything runs.
  const std::optional<Baseline> baseline =
      load_program_baseline(o.baseline, BaselineKind::kTrace, {o.name}, true, o.tracer.trace_all);
  restore_default_signals();
  const CommandExec command(resolve_command("trace", o.command.front()), o.command);
  TraceRecord rep;
  rep.command = o.command;
  rep.per_process = o.per_process;
  trace_command(o, command, rep);
  const bool ran = !rep.never_ran;
  if (!rep.trace.available)
    fmt::print(stderr, "iobench: warning: cannot trace ({}); ran untraced\n",
               rep.trace.unavailable_reason);
  if (const auto& details = rep.trace.ptrace) {
    if (!details->seccomp)
      fmt::print(stderr, "iobench: warning: seccomp filter refused; traced every syscall (slow)\n");
    for (const auto& program : details->lost_privileges)
      fmt::print(stderr, "iobench: warning: {}\n", escape_text(lost_privileges_warning(program)));
    for (const auto& [program, request] : details->refused_ptrace)
      fmt::print(stderr, "iobench: warning: {}\n",
                 escape_text(refused_ptrace_warning(program, request)));
  }
  for (const std::string& lost : rep.trace.lost)
    fmt::print(stderr, "iobench: warning: counts incomplete: {}\n", lost);
  if (ran && rep.trace.timed_out) {
    rep.error =
        fmt::format("timed out after {:g}s; killed the command and every process it started",
                    std::chrono::duration<double>(*o.timeout).count());
  }
  // -o puts the report in a file. Else the table goes to stderr, like strace -c, so the
  // command's own stdout stays clean; JSON is data and goes to stdout. A command that never
  // ran has no table: its error line says all there is.
  const bool json = o.format == OutputFormat::kJson;
  if (json || ran) {
    // The table fits stderr's terminal (a long path loses its middle); a file gets it whole.
    const std::size_t columns = o.output.empty() && !json ? table_columns(0, STDERR_FILENO) : 0;
    const std::string text = render(o.format, rep, {.columns = columns});
    if (!o.output.empty())
      write_output(o.output, text, "--output: ");
    else if (json)
      write_stdout(text);
    else
      write_stderr(text);
  }
  if (!o.export_json.empty())
    write_output(o.export_json, render_trace_json(rep), "--export-json: ");
  std::vector<ExpectationOutcome> verdicts;
  if (ran) verdicts = check_expectations(o.expectations, rep.trace);
  bool passed = report_expectations(verdicts, false);
  // Each case and the suite named after the program: two traces in one CI job stay apart.
  std::vector<JUnitCase> junit = junit_cases(verdicts, o.name);
  if (ran && !trace_baseline(o, baseline, rep, junit)) passed = false;
  if (!o.export_junit.empty())
    write_output(o.export_junit, render_junit("iobench trace " + o.name, junit),
                 "--export-junit: ");
  if (!rep.error.empty())
    fmt::print(stderr, "iobench: error: trace: {}\n", escape_text(rep.error));  // names the command
  if (!ran) return kExitCannotRun;  // found, but exec refused it (README "Exit status")
  if (rep.trace.timed_out) return kExitTimedOut;
  // The command's own failure takes priority over a failed expectation or a lost output.
  if (rep.trace.term_signal) return 128 + rep.trace.term_signal;
  if (rep.trace.exit_code != 0) return rep.trace.exit_code;
  return output_exit_status(passed ? kExitOk : kExitCheckFailed);
}

}  // namespace iobench
