// iobench's entry point: one run() with one error exit, as hyperfine does.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "baseline.h"
#include "cli.h"
#include "dirs.h"
#include "error.h"
#include "host_info.h"
#include "interrupt.h"
#include "line_format.h"
#include "live_table.h"
#include "presentation.h"
#include "progress.h"
#include "registry.h"
#include "report/reporter.h"
#include "runner.h"
#include "tracer/perf_counter.h"
#include "tracer/tracer.h"
#include "tracer/unique_fd.h"

namespace iobench {
namespace {

/// Prints the verdicts (after the table; on stderr when stdout carries a data format).
bool report_expectations(const std::vector<ExpectationOutcome>& outcomes, bool to_stdout) {
  bool all_passed = true;
  std::string text;
  for (const auto& e : outcomes) {
    text += e.line + "\n";
    all_passed = all_passed && e.passed;
  }
  if (text.empty()) return true;
  if (to_stdout)
    write_stdout("\n" + text);
  else
    std::fputs(text.c_str(), stderr);
  return all_passed;
}

int run_bench(const BenchOptions& o) {
  // Read the baseline first: a bad one is a usage error, found before anything runs.
  std::optional<Baseline> baseline;
  if (!o.baseline.empty()) {
    baseline = load_baseline(o.baseline);
    check_comparable(*baseline, o);
  }

  BenchReport rep = bench_report_header(o);
  if (std::string(IOBENCH_BUILD_TYPE) != "Release" && std::string(IOBENCH_BUILD_TYPE) != "RelWithDebInfo")
    fmt::print(stderr, "iobench: warning: built without optimisation ({}): it measures the wrong thing\n",
               IOBENCH_BUILD_TYPE);
  Progress progress;  // on stderr, only when it is a terminal
  LiveTable live(o.format, progress);
  for (const std::string& dir : o.dirs.empty() ? std::vector<std::string>{o.dir} : o.dirs) {
    const BenchOptions one = options_for_dir(o, dir);  // --dir A,B: A's rows, then B's
    Runner runner(one);
    runner.set_observer(progress.observer());
    runner.run([&](const StrategyResult& r) {
      rep.results.push_back(r);
      rep.pinned = runner.tracer_pinned();
      rep.tracer_overhead_ns = runner.tracer_overhead_ns();
      // After each strategy: a later failure loses nothing.
      write_exports(o.export_json, o.export_csv, o.export_markdown, rep);
      live.update(rep);
    });
  }
  live.clear();
  if (!o.save_baseline.empty()) write_file_atomically(o.save_baseline, render_json(rep));
  progress.finish();
  write_stdout(render_by_dir(o.format, rep));
  write_comparison_plot(o, rep);

  int status = kExitOk;
  for (const auto& r : rep.results)
    if (r.status == ResultStatus::kFailed || r.status == ResultStatus::kTimeout) status = kExitRunFailed;
  const bool table = o.format == OutputFormat::kTable;
  if (!report_expectations(check_expectations(o.expectations, rep.results), table)) status = kExitCheckFailed;
  if (baseline) {
    BaselineComparison cmp = compare_with_baseline(*baseline, rep, o.count_tolerance, o.time_tolerance);
    std::string text = render_comparison(cmp);
    if (table)
      write_stdout(text);
    else
      std::fputs(text.c_str(), stderr);
    if (cmp.regressed()) {
      for (const auto& d : cmp.diffs)
        if (d.regression)
          fmt::print(stderr, "iobench: regression: {}.{}: {} → {} ({})\n", d.strategy, d.metric,
                     d.before, d.after, d.change);
      status = kExitCheckFailed;
    }
  }
  return status;
}

/// PATH lookup in the parent, so a missing command is a usage error (exit 2) rather than a
/// message written by the traced child, which would itself be counted.
std::string resolve_command(const std::string& name) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (!executable(name)) throw_errno("trace: cannot run '" + name + "'", errno ? errno : EACCES);
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  throw Error("trace: command not found: '" + name + "'");
}

/// Why exec failed, for the one error line: the errno, and what a script's first line says.
std::string exec_failure(const std::string& name, const std::string& program, int err) {
  std::string why = fmt::format("cannot execute '{}': {}", name, std::strerror(err));
  std::ifstream in(program, std::ios::binary);
  std::string first(256, '\0');  // the kernel reads no more of a #! line than this
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(in.gcount()));
  first = first.substr(0, first.find('\n'));
  const bool binary = first.find('\0') != std::string::npos || first.starts_with("\x7f" "ELF");
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
int trace_command(const TraceCommandOptions& o, const std::string& program, TraceReport& rep) {
  std::vector<char*> args;
  for (const auto& a : o.command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child leaves exec's errno in a page shared before fork: reporting it costs the child
  // no syscall, which the tracer would count.
  tracing::SharedMapping<int> exec_errno;
  const std::function<int()> exec_command = [&]() noexcept {
    ::execv(program.c_str(), args.data());
    const int err = errno;
    if (exec_errno) *exec_errno.get() = err;
    // As a shell does: 127 when the file or its #! interpreter is missing, 126 otherwise.
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
  };
  if (o.tracer.backend == TracerBackend::kPerf) {
    rep.trace = PerfCounter().run(exec_command, o.timeout);
  } else {
    Tracer tracer(o.tracer);
    rep.trace = tracer.run(exec_command, o.timeout);
  }
  return exec_errno ? *exec_errno.get() : 0;
}

int run_trace(const TraceCommandOptions& o) {
  restore_default_signals();
  const std::string program = resolve_command(o.command.front());
  TraceReport rep;
  rep.command = o.command;
  rep.per_process = o.per_process;
  const int exec_errno = trace_command(o, program, rep);
  if (!rep.trace.available)
    fmt::print(stderr, "iobench: warning: cannot trace ({}); ran untraced\n", rep.trace.unavailable_reason);
  if (!rep.trace.seccomp)
    fmt::print(stderr, "iobench: warning: seccomp filter refused; traced every syscall (slow)\n");
  for (const auto& program : rep.trace.lost_privileges)
    fmt::print(stderr, "iobench: warning: {}\n", lost_privileges_warning(program));
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
      write_file_atomically(o.output, text, "--output: ");
    else if (json)
      write_stdout(text);
    else
      std::fputs(text.c_str(), stderr);
  }
  if (!o.export_json.empty())
    write_file_atomically(o.export_json, render_trace_json(rep), "--export-json: ");
  const bool passed =
      exec_errno != 0 || report_expectations(check_expectations(o.expectations, rep.trace), false);
  if (!rep.error.empty()) fmt::print(stderr, "iobench: error: trace: {}\n", rep.error);
  if (exec_errno == 0 && rep.trace.timed_out) return kExitTimedOut;
  // The command's own failure takes priority over a failed expectation.
  if (rep.trace.term_signal) return 128 + rep.trace.term_signal;
  if (rep.trace.exit_code != 0) return rep.trace.exit_code;
  return passed ? kExitOk : kExitCheckFailed;
}

int run(int argc, char** argv) {
  install_interrupt_handlers();
  Command cmd = parse_command_line(argc, argv);
  if (auto* help = std::get_if<HelpCommand>(&cmd)) {
    write_stdout(help->text);
    return kExitOk;
  }
  if (std::holds_alternative<VersionCommand>(cmd)) {
    write_stdout(fmt::format("iobench {} ({})\n", IOBENCH_VERSION, IOBENCH_BUILD_TYPE));
    return kExitOk;
  }
  if (std::holds_alternative<ListCommand>(cmd)) {
    std::string out;
    for (const Strategy* s : all_strategies()) out += fmt::format("{:<18} {}\n", s->name, s->description);
    write_stdout(out);
    return kExitOk;
  }
  if (auto* trace = std::get_if<TraceCommandOptions>(&cmd)) return run_trace(*trace);
  if (auto* sweep = std::get_if<SweepOptions>(&cmd)) return run_sweep(*sweep);
  if (auto* compare = std::get_if<CompareOptions>(&cmd)) return run_compare(*compare);
  return run_bench(std::get<BenchOptions>(cmd));
}

}  // namespace
}  // namespace iobench

int main(int argc, char** argv) {
  try {
    return iobench::run(argc, argv);
  } catch (const iobench::Error& e) {
    if (*e.what()) std::fprintf(stderr, "iobench: error: %s\n", e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iobench: error: %s\n", e.what());
    return iobench::kExitRunFailed;
  }
}
