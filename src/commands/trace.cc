// `iobench trace -- CMD`: resolve the command in the parent, run it under the chosen
// backend, then the report (stderr or -o; JSON on stdout), expectations and the exit status.
#include "commands/trace.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/program_path.h"
#include "base/unique_fd.h"
#include "commands/baseline_report.h"
#include "report/escape.h"
#include "report/junit.h"
#include "report/presentation.h"
#include "report/reporter.h"
#include "report/verdicts.h"
#include "tracer/counting_backend.h"

namespace iobench {
namespace {

/// Why exec failed, for the one error line: the errno, and what a script's first line says.
std::string exec_failure(const std::string& name, const std::string& program, int err) {
  std::string why = fmt::format("cannot execute '{}': {}", name, std::strerror(err));
  std::ifstream in(program, std::ios::binary);
  std::string first(256, '\0');  // the kernel reads no more of a #! line than this
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(in.gcount()));
  first = first.substr(0, first.find('\n'));
  const bool binary = first.find('\0') != std::string::npos || first.starts_with("\177ELF");
  if (err == ENOENT && first.starts_with("#!")) {
    const std::size_t begin = first.find_first_not_of(" \t", 2);
    const std::string interpreter = begin == std::string::npos ? "" : first.substr(begin);
    why += fmt::format(" (its #! interpreter '{}')", interpreter.substr(0, interpreter.find(' ')));
  } else if (err == ENOEXEC && !binary && !first.starts_with("#!")) {
    why += " (a script needs a #! line)";
  }
  return why;
}

/// Runs the command under the chosen backend. Returns exec's errno, or 0 when it ran.
int trace_command(const TraceCommandOptions& o, const std::string& program, TraceRecord& rep) {
  std::vector<char*> args;
  for (const auto& a : o.command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child leaves exec's errno in a page shared before fork: reporting it costs the child
  // no syscall, which the tracer would count.
  SharedMapping<int> exec_errno;
  const std::function<int()> exec_command = [&]() noexcept {
    ::execv(program.c_str(), args.data());
    const int err = errno;
    if (exec_errno) *exec_errno.get() = err;
    // As a shell does: 127 when the file or its #! interpreter is missing, 126 otherwise.
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
  };
  // Ctrl-C as strace does it (README "Ctrl-C"): the first is the command's to handle, and
  // its handler's writes are counted; a second one interrupts iobench.
  TracerOptions tracer = o.tracer;
  tracer.command_gets_first_interrupt = true;
  rep.trace = make_counting_backend(tracer)->run(exec_command, o.timeout);
  return exec_errno ? *exec_errno.get() : 0;
}

}  // namespace

int run_trace(const TraceCommandOptions& o) {
  // Read first: a bad or incomparable baseline is a usage error, found before anything runs.
  const std::optional<Baseline> baseline =
      load_program_baseline(o.baseline, BaselineKind::kTrace, {o.name}, true, o.tracer.trace_all);
  restore_default_signals();
  const std::string program = resolve_command("trace", o.command.front());
  TraceRecord rep;
  rep.command = o.command;
  rep.per_process = o.per_process;
  const int exec_errno = trace_command(o, program, rep);
  if (!rep.trace.available)
    fmt::print(stderr, "iobench: warning: cannot trace ({}); ran untraced\n",
               rep.trace.unavailable_reason);
  if (const auto& details = rep.trace.ptrace) {
    if (!details->seccomp)
      fmt::print(stderr, "iobench: warning: seccomp filter refused; traced every syscall (slow)\n");
    for (const auto& program : details->lost_privileges)
      fmt::print(stderr, "iobench: warning: {}\n", escape_text(lost_privileges_warning(program)));
  }
  if (exec_errno != 0) {
    rep.error = exec_failure(o.command.front(), program, exec_errno);
  } else if (rep.trace.timed_out) {
    rep.error =
        fmt::format("timed out after {:g}s; killed the command and every process it started",
                    std::chrono::duration<double>(*o.timeout).count());
  }
  // -o puts the report in a file. Else the table goes to stderr, like strace -c, so the
  // command's own stdout stays clean; JSON is data and goes to stdout. A command that never
  // ran has no table: its error line says all there is.
  const bool json = o.format == OutputFormat::kJson;
  if (json || exec_errno == 0) {
    const std::string text = render(o.format, rep);
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
  if (exec_errno == 0) verdicts = check_expectations(o.expectations, rep.trace);
  bool passed = report_expectations(verdicts, false);
  std::vector<JUnitCase> junit = junit_cases(verdicts);
  if (exec_errno == 0 && !trace_baseline(o, baseline, rep, junit)) passed = false;
  if (!o.export_junit.empty())
    write_output(o.export_junit, render_junit("iobench trace", junit), "--export-junit: ");
  if (!rep.error.empty())
    fmt::print(stderr, "iobench: error: trace: {}\n", escape_text(rep.error));  // names the command
  if (exec_errno == 0 && rep.trace.timed_out) return kExitTimedOut;
  // The command's own failure takes priority over a failed expectation or a lost output.
  if (rep.trace.term_signal) return 128 + rep.trace.term_signal;
  if (rep.trace.exit_code != 0) return rep.trace.exit_code;
  return output_exit_status(passed ? kExitOk : kExitCheckFailed);
}

}  // namespace iobench
