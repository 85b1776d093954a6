// `iobench compare`: running the commands, counting their writes, reporting them.
#include "commands/compare.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "base/monotonic_clock.h"
#include "base/process.h"
#include "report/gnuplot.h"
#include "report/presentation.h"
#include "run/host_info.h"
#include "run/progress.h"
#include "report/plot.h"
#include "report/presentation.h"
#include "report/reporter.h"
#include "report/terminal.h"
#include "run/host_info.h"
#include "run/progress.h"
#include "run/run_samples.h"
#include "run/runner.h"
#include "tracer/counting_backend.h"
#include "tracer/write_calls.h"

namespace iobench {
namespace {

/// What one run of a command did.
struct CommandRun {
  std::int64_t elapsed_ns = 0;
  rusage usage{};
  int exit_code = 0;
  int term_signal = 0;
  bool timed_out = false;
};

/// Everything the forked child needs, prepared before fork (no allocation after it).
struct Launch {
  std::string program;
  std::vector<char*> argv;
  int null_fd = -1;
  bool show_output = false;

  /// In the child: stdin (and stdout, stderr unless shown) on /dev/null, default signal
  /// dispositions (SIG_IGN would survive exec), then exec. Never returns.
  [[noreturn]] void exec() const noexcept {
    ::dup2(null_fd, STDIN_FILENO);
    if (!show_output) {
      ::dup2(null_fd, STDOUT_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
    }
    (void)::signal(SIGPIPE, SIG_DFL);
    (void)::signal(SIGXFSZ, SIG_DFL);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);  // as a shell does when exec fails
  }
};

/// One untraced run: CLOCK_MONOTONIC around fork, exec and wait4, as hyperfine measures a
/// whole process; CPU and faults from wait4's rusage.
CommandRun run_untraced(const Launch& launch, std::optional<std::chrono::nanoseconds> timeout) {
  CommandRun run;
  const std::int64_t t0 = monotonic_ns();
  pid_t pid = fork_tree();
  if (pid < 0) throw_errno("fork", errno, kExitRunFailed);
  if (pid == 0) launch.exec();
  // The whole process tree is waited for (and killed on timeout or interrupt), but the
  // time is the main process's, as hyperfine measures it.
  ProcessTree tree(pid);
  const TreeEnd end = tree.wait(deadline_after(timeout));
  run.elapsed_ns = end.main_exit_ns - t0;
  run.usage = end.usage;
  run.timed_out = end.timed_out;
  const int status = end.status;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  return run;
}

/// Why a run failed, in one line, or "".
std::string failure(int exit_code, int term_signal, bool timed_out) {
  if (timed_out) return "timed out";
  if (term_signal)
    return fmt::format("killed by signal {} ({})", term_signal, ::strsignal(term_signal));
  if (exit_code == 127) return "exited with status 127 (could not be run)";
  if (exit_code) return fmt::format("exited with status {}", exit_code);
  return "";
}

StrategyResult measure(const CompareCommand& c, const CompareOptions& o, CountingBackend* tracer,
                       int null_fd, Progress& progress, bool& warned) {
  StrategyResult r;
  r.strategy = c.name;
  Launch launch{c.program, {}, null_fd, o.show_output};
  for (const auto& a : c.argv) launch.argv.push_back(const_cast<char*>(a.c_str()));
  launch.argv.push_back(nullptr);

  const int total = o.warmup + o.runs + (tracer ? 1 : 0);
  RunSamples samples;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    progress.on_run({c.name, i + 1, total, i < o.warmup ? RunKind::kWarmup : RunKind::kTimed});
    CommandRun run = run_untraced(launch, o.timeout);
    std::string why = failure(run.exit_code, run.term_signal, run.timed_out);
    if (!why.empty()) {
      r.status = run.timed_out ? ResultStatus::kTimeout : ResultStatus::kFailed;
      r.error = why;
      return r;
    }
    if (i >= o.warmup) samples.add(run.elapsed_ns, run.usage);
  }
  samples.summarize_into(r);

  if (tracer) {
    progress.on_run({c.name, total, total, RunKind::kTraced});
    TraceResult t = tracer->run([&]() noexcept -> int { launch.exec(); }, o.timeout);
    std::string why = failure(t.exit_code, t.term_signal, t.timed_out);
    if (!t.available && !warned) {
      fmt::print(stderr, "iobench: warning: cannot trace ({}); write calls unavailable\n",
                 t.unavailable_reason);
      warned = true;
    }
    for (const auto& program : t.lost_privileges)
      fmt::print(stderr, "iobench: warning: {}: {}\n", c.name, lost_privileges_warning(program));
    if (!why.empty()) {
      r.status = t.timed_out ? ResultStatus::kTimeout : ResultStatus::kFailed;
      r.error = why + " (traced run)";
      return r;
    }
    if (t.available) {
      attribute_command_writes(t, r);
      r.traced_time_ns = t.wall_ns;
      r.trace = std::move(t);
      set_syscall_share(r);
    }
  }
  return r;
}

}  // namespace

void attribute_command_writes(const TraceResult& trace, StrategyResult& result) {
  const WriteCount count = count_writes(trace);
  result.write_calls = count.calls;
  result.syscall_time_ns = count.time_ns;
  result.bytes = count.bytes;
  result.timed_calls = count.timed_calls;
  result.syscall_time_ci95_ns = count.time_ci95_ns;
}

int run_compare(const CompareOptions& o) {
  BenchReport rep;
  rep.host = host_info();
  rep.version = IOBENCH_VERSION;
  rep.build_type = IOBENCH_BUILD_TYPE;
  rep.runs = o.runs;
  rep.warmup = o.warmup;
  rep.traced = o.trace;
  rep.trace_mode = o.tracer.mode;
  rep.tracer_backend = to_string(o.tracer.backend);
  rep.color = use_color(o.color, STDOUT_FILENO);
  rep.sort = o.sort;
  rep.columns = table_columns(o.columns, STDOUT_FILENO);
  for (const auto& c : o.commands) rep.commands.push_back({c.name, c.command});

  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0) throw_errno("/dev/null", errno, kExitRunFailed);
  std::unique_ptr<CountingBackend> tracer;
  if (o.trace) tracer = make_counting_backend(o.tracer);
  bool warned = false;
  {
    Progress progress;
    for (const auto& c : o.commands) {
      rep.results.push_back(measure(c, o, tracer.get(), null_fd, progress, warned));
      if (rep.results.back().trace) rep.pinned = rep.results.back().trace->pinned;
      // After each command, as a run does after each strategy: a later failure loses nothing.
      write_exports(o.export_json, o.export_csv, o.export_markdown, rep);
    }
  }
  ::close(null_fd);
  if (tracer) rep.tracer_overhead_ns = tracer->overhead_ns();

  write_stdout(render(o.format, rep));
  if (!o.plot.empty()) write_plot(o.plot, comparison_plot_script(rep));
  for (const auto& r : rep.results)
    if (r.status != ResultStatus::kOk) return kExitRunFailed;
  return kExitOk;
}

}  // namespace iobench
